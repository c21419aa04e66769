package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llmcap/llmcap/plan"
)

func startTest(t testing.TB, cfg plan.Simulator) *Server {
	t.Helper()
	s, err := Start(context.Background(), cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// sseResult is what the tiny test client read from one SSE stream.
type sseResult struct {
	status  int
	events  []map[string]any
	content []string // content/text of content-bearing events, in order
	finish  string
	usage   map[string]any
	done    bool
	ttft    time.Duration
	e2e     time.Duration
}

// postStream sends a streaming request and reads the SSE stream with bufio.
func postStream(t testing.TB, client *http.Client, url string, body map[string]any) sseResult {
	t.Helper()
	data, _ := json.Marshal(body)
	start := time.Now()
	resp, err := client.Post(url, "application/json", strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	res := sseResult{status: resp.StatusCode}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		payload := strings.TrimPrefix(line, "data: ")
		if payload == "[DONE]" {
			res.done = true
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(payload), &ev); err != nil {
			t.Fatalf("bad SSE payload %q: %v", payload, err)
		}
		res.events = append(res.events, ev)
		if u, ok := ev["usage"].(map[string]any); ok {
			res.usage = u
		}
		choices, _ := ev["choices"].([]any)
		for _, c := range choices {
			ch := c.(map[string]any)
			text, _ := ch["text"].(string)
			if d, ok := ch["delta"].(map[string]any); ok {
				text, _ = d["content"].(string)
			}
			if text != "" {
				if len(res.content) == 0 {
					res.ttft = time.Since(start)
				}
				res.content = append(res.content, text)
				res.e2e = time.Since(start)
			}
			if f, ok := ch["finish_reason"].(string); ok {
				res.finish = f
			}
		}
	}
	return res
}

func words(n int) string { return strings.TrimSpace(strings.Repeat("lorem ", n)) }

func TestServerStreamChat(t *testing.T) {
	s := startTest(t, plan.Simulator{SpeedUp: 50})
	res := postStream(t, http.DefaultClient, s.URL()+"/chat/completions", map[string]any{
		"model": "llama-3.1-8b", "stream": true, "max_tokens": 5, "ignore_eos": true,
		"stream_options": map[string]any{"include_usage": true},
		"messages":       []map[string]any{{"role": "system", "content": "be brief"}, {"role": "user", "content": words(10)}},
	})
	if res.status != 200 || !res.done {
		t.Fatalf("status %d, [DONE] %v", res.status, res.done)
	}
	if len(res.content) != 5 || res.finish != "length" {
		t.Errorf("content events %d (%q), finish %q; want 5 and length", len(res.content), res.content, res.finish)
	}
	first := res.events[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
	if first["role"] != "assistant" || first["content"] != "" {
		t.Errorf("first event delta %v, want the role-only chunk", first)
	}
	last := res.events[len(res.events)-1]
	if c := last["choices"].([]any); len(c) != 0 || res.usage == nil {
		t.Fatalf("last event %v: want usage with empty choices", last)
	}
	if res.usage["prompt_tokens"] != 12.0 || res.usage["completion_tokens"] != 5.0 || res.usage["total_tokens"] != 17.0 {
		t.Errorf("usage %v, want 12 prompt (2 + 10 words) and 5 completion tokens", res.usage)
	}
}

func TestServerCompletionsAndNonStream(t *testing.T) {
	s := startTest(t, plan.Simulator{SpeedUp: 50})
	res := postStream(t, http.DefaultClient, s.URL()+"/completions", map[string]any{
		"stream": true, "max_tokens": 3, "prompt": words(7)})
	if len(res.content) != 3 || res.finish != "length" || res.usage != nil || !res.done {
		t.Errorf("completions stream: %d tokens, finish %q, usage %v, done %v", len(res.content), res.finish, res.usage, res.done)
	}
	for _, api := range []string{"/completions", "/chat/completions"} {
		body := `{"max_tokens":4,"prompt":"a b c","messages":[{"role":"user","content":[{"type":"text","text":"a b c"}]}]}`
		resp, err := http.Post(s.URL()+api, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Choices []struct {
				Text    string `json:"text"`
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]int `json:"usage"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || len(out.Choices) != 1 {
			t.Fatalf("%s: %v %+v", api, err, out)
		}
		text := out.Choices[0].Text + out.Choices[0].Message.Content
		if len(strings.Fields(text)) != 4 || out.Usage["prompt_tokens"] != 3 || out.Usage["completion_tokens"] != 4 {
			t.Errorf("%s: text %q usage %v; want 4 words, 3 prompt tokens", api, text, out.Usage)
		}
	}
}

func TestServerErrorsAndModels(t *testing.T) {
	s := startTest(t, plan.Simulator{SpeedUp: 50, Model: "stories-260k", GPU: "cpu-slow"})
	for _, c := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"messages":`, 400, "invalid_request"},
		{`{"model":"gpt-9","messages":[{"role":"user","content":"hi"}]}`, 404, "model_not_found"},
		{`{"messages":[]}`, 400, "invalid_request"},
		{`{"max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_request"},
		{fmt.Sprintf(`{"max_tokens":100,"messages":[{"role":"user","content":%q}]}`, words(500)), 400, "context_length_exceeded"},
	} {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Error struct {
				Message, Type string
				Code          string `json:"code"`
			} `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != c.status || e.Error.Code != c.code || e.Error.Message == "" {
			t.Errorf("%.40s: status %d code %q, want %d %q", c.body, resp.StatusCode, e.Error.Code, c.status, c.code)
		}
	}
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var models struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&models); err != nil || len(models.Data) != 1 || models.Data[0].ID != "stories-260k" {
		t.Errorf("models %+v, err %v", models, err)
	}
}

func TestServerOutputLengthsDeterministic(t *testing.T) {
	cfg := plan.Simulator{SpeedUp: 100, GPU: "H200", Model: "llama-3.2-1b",
		OutputTokens: &plan.Dist{Kind: plan.DistUniform, Min: 2, Max: 30}}
	lengths := func() []int {
		s := startTest(t, cfg)
		var out []int
		for i := range 6 {
			res := postStream(t, http.DefaultClient, s.URL()+"/chat/completions", map[string]any{
				"stream": true, "max_tokens": 20, "seed": 7,
				"messages": []map[string]any{{"role": "user", "content": fmt.Sprintf("question %d %s", i, words(5))}}})
			if len(res.content) < 20 && res.finish != "stop" || len(res.content) == 20 && res.finish != "length" {
				t.Errorf("%d tokens with finish %q", len(res.content), res.finish)
			}
			out = append(out, len(res.content))
		}
		return out
	}
	a, b := lengths(), lengths()
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("output lengths differ between servers: %v vs %v", a, b)
	}
	distinct := map[int]bool{}
	for _, n := range a {
		distinct[n] = true
		if n < 2 || n > 20 {
			t.Errorf("length %d outside [2, 20]", n)
		}
	}
	if len(distinct) < 2 {
		t.Errorf("lengths %v: want draws from the distribution, not a constant", a)
	}
}

// TestServerWallClock: tokens arrive on the wall clock as simulated iterations complete.
// On cpu-slow with stories-260k each iteration is the 2 ms overhead; with speed-up 1 a
// 50-token answer takes ≥ 50 iterations ≥ 100 ms, and (loose upper bound) < 1 s.
func TestServerWallClock(t *testing.T) {
	s := startTest(t, plan.Simulator{GPU: "cpu-slow", Model: "stories-260k", OverheadMs: 2})
	res := postStream(t, http.DefaultClient, s.URL()+"/completions", map[string]any{
		"stream": true, "max_tokens": 50, "ignore_eos": true, "prompt": words(20)})
	want := 50 * s.roof.Overhead
	t.Logf("E2E %v; driver %+v", res.e2e, s.Stats())
	if len(res.content) != 50 || res.e2e < want || res.e2e > time.Second {
		t.Errorf("%d tokens in %v, want 50 in [%v, 1s)", len(res.content), res.e2e, want)
	}
}

func TestServerMetricsAndAbort(t *testing.T) {
	s := startTest(t, plan.Simulator{SpeedUp: 20, GPU: "H100-SXM", Model: "llama-3.1-8b"})
	for range 3 {
		postStream(t, http.DefaultClient, s.URL()+"/completions", map[string]any{
			"stream": true, "max_tokens": 4, "ignore_eos": true, "prompt": words(16)})
	}
	// A client that goes away mid-stream: the request must leave the engine.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/completions",
		strings.NewReader(`{"stream":true,"max_tokens":100000,"ignore_eos":true,"prompt":"x"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadFull(resp.Body, make([]byte, 64))
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	var fams map[string]*familyView
	for time.Now().Before(deadline) {
		fams = scrape(t, s.URL())
		if fams["vllm:num_requests_running"].value == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v := fams["vllm:num_requests_running"].value; v != 0 {
		t.Errorf("running %v after the client left, want 0", v)
	}
	if v := fams["vllm:prompt_tokens_total"].value; v != 3*16+1 {
		t.Errorf("prompt tokens %v, want 49", v)
	}
	if v := fams["vllm:generation_tokens_total"].value; v < 13 {
		t.Errorf("generation tokens %v, want ≥ 13 (3 × 4 + the aborted stream's)", v)
	}
	if n := fams["vllm:time_to_first_token_seconds"].count; n != 4 {
		t.Errorf("TTFT histogram count %d, want 4", n)
	}
	if n := fams["vllm:inter_token_latency_seconds"].count; n < 9 {
		t.Errorf("ITL histogram count %d, want ≥ 9", n)
	}
	for _, name := range []string{"vllm:num_requests_waiting", "vllm:kv_cache_usage_perc", "vllm:num_preemptions_total"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("metric %s missing", name)
		}
	}
}

type familyView struct {
	value float64
	count uint64
}

// scrape parses /metrics with prometheus/common/expfmt.
func scrape(t *testing.T, base string) map[string]*familyView {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(base, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("metrics do not parse: %v", err)
	}
	out := map[string]*familyView{}
	for name, f := range fams {
		v := &familyView{}
		for _, m := range f.GetMetric() {
			switch {
			case m.GetGauge() != nil:
				v.value += m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				v.value += m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				v.count += m.GetHistogram().GetSampleCount()
			}
		}
		out[name] = v
	}
	return out
}

func TestServerPrefixCaching(t *testing.T) {
	s := startTest(t, plan.Simulator{SpeedUp: 20, PrefixCaching: true})
	shared := words(64) // 4 full blocks of 16
	for i := range 2 {
		res := postStream(t, http.DefaultClient, s.URL()+"/completions", map[string]any{
			"stream": true, "max_tokens": 2, "prompt": fmt.Sprintf("%s tail %d", shared, i)})
		if len(res.content) != 2 {
			t.Fatalf("request %d: %d tokens", i, len(res.content))
		}
	}
	fams := scrape(t, s.URL())
	if hits := fams["vllm:prefix_cache_hits_total"].value; hits != 64 {
		t.Errorf("prefix cache hits %v tokens, want 64 (the shared 4 blocks)", hits)
	}
	if q := fams["vllm:prefix_cache_queries_total"].value; q != 132 {
		t.Errorf("prefix cache queries %v tokens, want 2 × 66", q)
	}
	if _, ok := fams["llmcap_sim_iteration_lateness_seconds"]; !ok {
		t.Error("lateness histogram missing from /metrics")
	}
	if b, ok := s.Settings()["decode_ms_by_batch_ctx1024"].(map[string]float64); !ok || b["1"] <= 0 || b["256"] <= b["1"] {
		t.Errorf("decode_ms_by_batch_ctx1024 %v: want rising with batch", b)
	}
}
