package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/sweep/ssetest"
)

// Chunk builders in the formats real servers send.
func chatContent(s string) string {
	b, _ := json.Marshal(s)
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` + string(b) + `},"logprobs":null,"finish_reason":null}]}`
}

func chatRole() string {
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
}

func chatReasoning(field, s string) string {
	b, _ := json.Marshal(s)
	return `{"choices":[{"index":0,"delta":{"` + field + `":` + string(b) + `,"content":null},"finish_reason":null}]}`
}

func chatFinish(reason string) string {
	return `{"choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}`
}

func usageChunk(prompt, completion int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		prompt, completion, prompt+completion)
}

// ollamaText is an Ollama-style completions chunk carrying a zero usage.
func ollamaText(s, finish string, prompt, completion int) string {
	b, _ := json.Marshal(s)
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"cmpl-1","object":"text_completion","choices":[{"text":%s,"index":0,"finish_reason":%s}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		b, fr, prompt, completion, prompt+completion)
}

// ev is one scripted event: its delay after the previous one and its raw bytes.
type ev struct {
	delay time.Duration
	raw   string
}

func data(delay time.Duration, payload string) ev { return ev{delay, "data: " + payload + "\n\n"} }

// framed rewrites a "\n"-framed event's line endings to eol.
func framed(e ev, eol string) ev {
	e.raw = strings.ReplaceAll(e.raw, "\n", eol)
	return e
}

// build turns events into steps; with split, every event is written byte by byte
// (gap apart). It returns, per event, the index of the step that completes it: written
// byte by byte, an event ending in CRLF is complete at the blank line's CR (a CR ends a
// line), one step before its last byte.
func build(evs []ev, split bool, gap time.Duration) ([]ssetest.Step, []int) {
	var steps []ssetest.Step
	var last []int
	for _, e := range evs {
		if !split {
			steps = append(steps, ssetest.Step{Delay: e.delay, Data: []byte(e.raw)})
			last = append(last, len(steps)-1)
			continue
		}
		steps = append(steps, ssetest.Split([]byte(e.raw), 1, e.delay, gap)...)
		k := len(steps) - 1
		if strings.HasSuffix(e.raw, "\r\n") {
			k--
		}
		last = append(last, k)
	}
	return steps, last
}

// standard is a role chunk, three content chunks, finish, usage, [DONE].
func standard() []ev {
	return []ev{
		data(0, chatRole()),
		data(40*time.Millisecond, chatContent("Hel")),
		data(10*time.Millisecond, chatContent("lo")),
		data(15*time.Millisecond, chatContent("!")),
		data(5*time.Millisecond, chatFinish("stop")),
		data(2*time.Millisecond, usageChunk(5, 3)),
		data(1*time.Millisecond, "[DONE]"),
	}
}

func withEOL(evs []ev, eol string) []ev {
	out := make([]ev, len(evs))
	for i, e := range evs {
		out[i] = framed(e, eol)
	}
	return out
}

// clientCase is one scripted exchange and the record it must produce. ttft, ttfo and
// e2e are event indexes (-1: the metric must be nil).
type clientCase struct {
	name      string
	api       string
	evs       []ev
	split     bool
	status    int
	ctype     string
	end       ssetest.End
	cfg       func(*ClientConfig)
	ttft      int
	ttfo      int
	e2e       int
	osl       int
	source    string
	chunks    int
	prompt    int
	reasoning int
	finish    string
	answer    string
	wantOK    bool
	class     string
	errHas    string
}

func okCase(name string, evs []ev) clientCase {
	return clientCase{name: name, evs: evs, ttft: 1, ttfo: 1, e2e: 3, osl: 3, source: rundir.TokensUsage,
		chunks: 3, prompt: 5, finish: "stop", answer: "Hello!", wantOK: true}
}

func framingCases() []clientCase {
	noSpace := standard()
	for i := range noSpace {
		noSpace[i].raw = strings.Replace(noSpace[i].raw, "data: ", "data:", 1)
	}
	multi := standard()
	multi[2].raw = "data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"lo\"}}]}\n\n"
	comments := standard()
	comments = append(comments[:2], append([]ev{{5 * time.Millisecond, ": keep-alive\n\n"}}, comments[2:]...)...)
	comments[3].delay -= 5 * time.Millisecond
	comments[4].raw = "event: message\nid: 42\nretry: 1000\n" + comments[4].raw
	// The keep-alive comment is event 2, so content events are 1, 3 and 4.
	cc := okCase("comments and event/id/retry", comments)
	cc.e2e = 4
	split := withEOL(standard(), "\r\n")
	split[2] = framed(data(10*time.Millisecond, chatContent("l\u00f6 \u4e16\U0001F389")), "\r\n")
	sc := okCase("split at every byte (CRLF, UTF-8)", split)
	sc.split, sc.answer = true, "Hell\u00f6 \u4e16\U0001F389!"
	mixed := withEOL(standard(), "\r")
	mixed[2] = framed(mixed[2], "\n")
	return []clientCase{
		okCase("LF", standard()),
		okCase("CRLF", withEOL(standard(), "\r\n")),
		okCase("bare CR", withEOL(standard(), "\r")),
		okCase("mixed endings", mixed),
		okCase("data without space", noSpace),
		okCase("multi-line data", multi),
		cc,
		sc,
	}
}

func semanticCases() []clientCase {
	reasoning := clientCase{name: "reasoning then content", evs: []ev{
		data(0, chatRole()),
		data(30*time.Millisecond, chatReasoning("reasoning_content", "Let")),
		data(10*time.Millisecond, chatReasoning("reasoning", " me")),
		data(20*time.Millisecond, chatContent("Yes")),
		data(10*time.Millisecond, chatContent(".")),
		data(5*time.Millisecond, chatFinish("stop")),
		data(0, `{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"completion_tokens_details":{"reasoning_tokens":2}}}`),
		data(0, "[DONE]"),
	}, ttft: 1, ttfo: 3, e2e: 4, osl: 4, source: rundir.TokensUsage, chunks: 4, prompt: 9, reasoning: 2,
		finish: "stop", answer: "Yes.", wantOK: true}
	noChoices := okCase("usage without choices", standard())
	noChoices.evs[5] = data(2*time.Millisecond, `{"usage":{"prompt_tokens":5,"completion_tokens":3}}`)
	ollama := clientCase{name: "zero usage every chunk (Ollama completions)", api: "completions", evs: []ev{
		data(25*time.Millisecond, ollamaText("a", "", 0, 0)),
		data(10*time.Millisecond, ollamaText("b", "", 0, 0)),
		data(10*time.Millisecond, ollamaText("c", "", 0, 0)),
		data(10*time.Millisecond, ollamaText("", "stop", 7, 4)),
		data(0, "[DONE]"),
	}, ttft: 0, ttfo: 0, e2e: 2, osl: 4, source: rundir.TokensUsage, chunks: 3, prompt: 7, finish: "stop",
		answer: "abc", wantOK: true}
	single := clientCase{name: "single-event answer", evs: []ev{
		data(0, chatRole()),
		data(35*time.Millisecond, chatContent("The whole answer.")),
		data(10*time.Millisecond, chatFinish("stop")),
		data(0, usageChunk(3, 4)),
		data(0, "[DONE]"),
	}, ttft: 1, ttfo: 1, e2e: 1, osl: 4, source: rundir.TokensUsage, chunks: 1, prompt: 3, finish: "stop",
		answer: "The whole answer.", wantOK: true}
	counted := okCase("finish-only last chunk, no usage", standard()[:5])
	counted.evs = append(counted.evs, data(20*time.Millisecond, "[DONE]"))
	counted.source, counted.prompt = rundir.TokensCounted, 0
	noDone := okCase("finish without [DONE]", standard()[:5])
	noDone.source, noDone.prompt = rundir.TokensCounted, 0
	return append([]clientCase{reasoning, noChoices, ollama, single, counted, noDone}, emptyCases()...)
}

// emptyCases are answers without content events: an error only when there is neither
// a content/reasoning event nor a usage completion_tokens > 0.
func emptyCases() []clientCase {
	onlyDone := clientCase{name: "only [DONE]", evs: []ev{data(10*time.Millisecond, "[DONE]")},
		ttft: -1, ttfo: -1, e2e: -1, source: rundir.TokensCounted, class: rundir.ErrEmptyResponse,
		errHas: "stream ended with no content and no tokens"}
	zeroUsage := clientCase{name: "finish and zero usage, no content", evs: []ev{
		data(0, chatRole()),
		data(10*time.Millisecond, chatFinish("length")),
		data(0, usageChunk(5, 0)),
		data(0, "[DONE]"),
	}, ttft: -1, ttfo: -1, e2e: -1, source: rundir.TokensUsage, prompt: 5, finish: "length",
		class: rundir.ErrEmptyResponse, errHas: "no content and no tokens (finish_reason length)"}
	usageOnly := clientCase{name: "usage tokens without content events", evs: []ev{
		data(0, chatRole()),
		data(10*time.Millisecond, chatFinish("stop")),
		data(0, usageChunk(5, 3)),
		data(0, "[DONE]"),
	}, ttft: -1, ttfo: -1, e2e: -1, osl: 3, source: rundir.TokensUsage, prompt: 5, finish: "stop", wantOK: true}
	reasoningOnly := clientCase{name: "reasoning only, no usage", evs: []ev{
		data(0, chatRole()),
		data(20*time.Millisecond, chatReasoning("reasoning_content", "Hmm")),
		data(10*time.Millisecond, chatReasoning("reasoning_content", ".")),
		data(5*time.Millisecond, chatFinish("length")),
		data(0, "[DONE]"),
	}, ttft: 1, ttfo: -1, e2e: 2, osl: 2, source: rundir.TokensCounted, chunks: 2, reasoning: 2,
		finish: "length", wantOK: true}
	return []clientCase{onlyDone, zeroUsage, usageOnly, reasoningOnly}
}

func errorCases() []clientCase {
	trunc := clientCase{name: "closed mid-stream", evs: standard()[:3], end: ssetest.EndAbort,
		ttft: 1, ttfo: 1, e2e: -1, osl: 2, source: rundir.TokensCounted, chunks: 2, answer: "Hello",
		class: rundir.ErrStreamTruncated}
	eof := trunc
	eof.name, eof.end = "ended without finish, usage or [DONE]", ssetest.EndNormal
	body := func(s string) []ev { return []ev{{0, s}} }
	httpCase := func(name string, status int, b, class, has string) clientCase {
		return clientCase{name: name, evs: body(b), status: status, ctype: "application/json",
			ttft: -1, ttfo: -1, e2e: -1, source: rundir.TokensCounted, class: class, errHas: has}
	}
	inBand := trunc
	inBand.name, inBand.end, inBand.class, inBand.errHas = "in-band error", ssetest.EndNormal, rundir.ErrInBand, "engine died"
	inBand.evs = append(standard()[:3], data(5*time.Millisecond, `{"error":{"message":"engine died","type":"InternalServerError","code":500}}`),
		data(0, "[DONE]"))
	inBandCtx := clientCase{name: "in-band context length (vLLM object error)", evs: []ev{
		data(10*time.Millisecond, `{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 4000 tokens.","type":"BadRequestError","param":null,"code":400}`),
		data(0, "[DONE]"),
	}, ttft: -1, ttfo: -1, e2e: -1, source: rundir.TokensCounted, class: rundir.ErrContextLength, errHas: "maximum context length"}
	eventErr := clientCase{name: "event: error", evs: []ev{
		data(0, chatRole()), {10 * time.Millisecond, "event: error\ndata: overloaded\n\n"},
	}, ttft: -1, ttfo: -1, e2e: -1, source: rundir.TokensCounted, class: rundir.ErrInBand, errHas: "overloaded"}
	abort := trunc
	abort.name, abort.end, abort.class, abort.errHas, abort.finish = "finish_reason abort", ssetest.EndNormal, rundir.ErrInBand, "abort", "abort"
	abort.evs = append(standard()[:3], data(5*time.Millisecond, chatFinish("abort")), data(0, "[DONE]"))
	return []clientCase{trunc, eof, inBand, inBandCtx, eventErr, abort,
		httpCase("HTTP 500", 500, `{"error":{"message":"boom","type":"InternalServerError"}}`, rundir.ErrHTTP5xx, "HTTP 500: boom"),
		httpCase("HTTP 429", 429, `{"error":"rate limited"}`, rundir.ErrHTTP429, "rate limited"),
		httpCase("HTTP 404 text", 404, "404 page not found\n", rundir.ErrHTTP4xx, "404 page not found"),
		httpCase("HTTP 422 FastAPI detail", 422, `{"detail":[{"loc":["body","model"],"msg":"field required"}]}`, rundir.ErrHTTP4xx, "field required"),
		httpCase("context length vLLM", 400, `{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (100 in the messages, 2000 in the completion).","type":"BadRequestError","param":null,"code":400}`, rundir.ErrContextLength, "maximum context length"),
		httpCase("context length OpenAI code", 400, `{"error":{"message":"Too many.","type":"invalid_request_error","code":"context_length_exceeded"}}`, rundir.ErrContextLength, "Too many."),
		httpCase("context length llama.cpp", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`, rundir.ErrContextLength, "available context size"),
		httpCase("context length Ollama", 400, `{"error":"the input length exceeds the context length"}`, rundir.ErrContextLength, "exceeds the context length"),
		httpCase("context length SGLang", 400, `{"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","code":400}`, rundir.ErrContextLength, "context length"),
		httpCase("context length TGI", 422, "{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 500 `max_new_tokens`\",\"error_type\":\"validation\"}", rundir.ErrContextLength, "must be <= 4096"),
	}
}

func TestClientScripted(t *testing.T) {
	var all []clientCase
	all = append(all, framingCases()...)
	all = append(all, semanticCases()...)
	all = append(all, errorCases()...)
	for _, tc := range all {
		t.Run(tc.name, func(t *testing.T) { runClientCase(t, tc) })
	}
}

// runClientCase runs tc; counts and statuses are asserted exactly on every attempt.
// Timings are asserted to 2 ms against the server's own send timestamps; as a shared
// CI machine can deschedule either side for milliseconds, a case whose only problem is
// timing is retried twice before it fails.
func runClientCase(t *testing.T, tc clientCase) {
	var problems []string
	for attempt := 0; attempt < 3; attempt++ {
		if problems = attemptClientCase(t, tc); len(problems) == 0 {
			return
		}
		t.Logf("attempt %d timing: %v", attempt+1, problems)
	}
	t.Errorf("timing outside 2 ms on 3 attempts: %v", problems)
}

func attemptClientCase(t *testing.T, tc clientCase) (timing []string) {
	steps, lastStep := build(tc.evs, tc.split, 50*time.Microsecond)
	warm, _ := build(standard(), false, 0)
	for i := range warm {
		warm[i].Delay = 0
	}
	srv, err := ssetest.NewScripts(ssetest.Script{Steps: warm},
		ssetest.Script{Status: tc.status, ContentType: tc.ctype, Steps: steps, End: tc.end})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := ClientConfig{BaseURL: srv.URL, API: tc.api, Model: "m", IdleTimeout: 5 * time.Second}
	if tc.cfg != nil {
		tc.cfg(&cfg)
	}
	c := NewClient(cfg)
	defer c.CloseIdleConnections()
	req := &Request{Messages: []ChatMessage{{Role: "user", Content: "hi"}}, Prompt: "hi", MaxTokens: 16}
	// A first request opens the keep-alive connection the measured one reuses.
	var rec rundir.Record
	if c.Do(context.Background(), req, &rec); !rec.OK() {
		t.Fatalf("warm-up request failed: %s %s", rec.ErrorClass, rec.Error)
	}
	waitIdleConn(t, c)
	rec = rundir.Record{}
	answer := c.Do(context.Background(), req, &rec)
	sent := srv.WaitWritten(2, 5*time.Second)
	if len(sent) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(sent))
	}
	if sent[0].RemoteAddr != sent[1].RemoteAddr {
		t.Errorf("connection not reused: %s then %s", sent[0].RemoteAddr, sent[1].RemoteAddr)
	}
	checkStatus(t, tc, &rec)
	if answer != tc.answer {
		t.Errorf("answer = %q, want %q", answer, tc.answer)
	}
	if rec.OutputTokens != tc.osl || rec.TokensSource != tc.source || rec.Chunks != tc.chunks ||
		rec.PromptTokens != tc.prompt || rec.ReasoningTokens != tc.reasoning || rec.FinishReason != tc.finish {
		t.Errorf("tokens: osl=%d %s chunks=%d prompt=%d reasoning=%d finish=%q; want %d %s %d %d %d %q",
			rec.OutputTokens, rec.TokensSource, rec.Chunks, rec.PromptTokens, rec.ReasoningTokens,
			rec.FinishReason, tc.osl, tc.source, tc.chunks, tc.prompt, tc.reasoning, tc.finish)
	}
	return checkTimings(t, tc, steps, lastStep, sent[1], &rec)
}

// checkTimings asserts a record's latencies against the window in which the server
// wrote each step; misses are returned, other problems reported on t.
func checkTimings(t *testing.T, tc clientCase, steps []ssetest.Step, lastStep []int, sent ssetest.Sent, rec *rundir.Record) (timing []string) {
	// Expected times: the window in which the server wrote the step that completes the
	// event, from the client's send (same process, same monotonic clock). The client
	// may not be early against the script either.
	window := func(event int) (lo, hi float64, ok bool) {
		if event < 0 {
			return 0, 0, false
		}
		k := lastStep[event]
		var scripted time.Duration
		for _, st := range steps[:k+1] {
			scripted += st.Delay
		}
		lo = float64(unixNs(sent.Writing[k])-rec.SentNs) / 1e6
		hi = float64(unixNs(sent.Steps[k])-rec.SentNs) / 1e6
		if hi < float64(scripted)/1e6 {
			t.Errorf("step %d flushed %.3f ms after send, before its scripted %v", k, hi, scripted)
		}
		return lo, hi, true
	}
	check := func(name string, got *float64, lo, hi float64, defined bool) {
		switch {
		case !defined && got != nil:
			t.Errorf("%s = %v ms, want nil", name, *got)
		case defined && got == nil:
			t.Errorf("%s = nil, want [%.3f, %.3f] ms", name, lo, hi)
		case defined && *got < 0:
			t.Errorf("%s = %.3f ms is negative", name, *got)
		case defined && (*got < lo-0.01 || *got > hi+2):
			timing = append(timing, fmt.Sprintf("%s = %.3f ms, server wrote it in [%.3f, %.3f] ms", name, *got, lo, hi))
		}
	}
	ttftLo, ttftHi, hasTTFT := window(tc.ttft)
	ttfoLo, ttfoHi, hasTTFO := window(tc.ttfo)
	e2eLo, e2eHi, hasE2E := window(tc.e2e)
	check("TTFT", rec.TTFTMs, ttftLo, ttftHi, hasTTFT)
	check("TTFO", rec.TTFOMs, ttfoLo, ttfoHi, hasTTFO)
	check("E2E", rec.E2EMs, e2eLo, e2eHi, hasE2E)
	hasITL := hasE2E && tc.osl >= 2 && tc.chunks >= 2
	var itlLo, itlHi float64
	if hasITL {
		n := float64(tc.osl - 1)
		itlLo, itlHi = (e2eLo-ttftHi-2)/n, (e2eHi+2-ttftLo)/n-2
	}
	check("ITL", rec.ITLMs, itlLo, itlHi, hasITL)
	if hasTTFT && rec.FirstTokenNs-rec.SentNs != int64(math.Round(*rec.TTFTMs*1e6)) {
		t.Errorf("first_token_ns - sent_ns = %d, TTFT %v ms", rec.FirstTokenNs-rec.SentNs, *rec.TTFTMs)
	}
	return timing
}

func checkStatus(t *testing.T, tc clientCase, rec *rundir.Record) {
	t.Helper()
	if tc.wantOK {
		if rec.Status != rundir.StatusOK || rec.ErrorClass != "" {
			t.Fatalf("status %q class %q (%s), want ok", rec.Status, rec.ErrorClass, rec.Error)
		}
		return
	}
	if rec.Status != rundir.StatusError || rec.ErrorClass != tc.class || !strings.Contains(rec.Error, tc.errHas) {
		t.Fatalf("status %q class %q error %q; want error %q containing %q",
			rec.Status, rec.ErrorClass, rec.Error, tc.class, tc.errHas)
	}
	if tc.status != 0 && rec.HTTPStatus != tc.status {
		t.Errorf("http_status = %d, want %d", rec.HTTPStatus, tc.status)
	}
}
