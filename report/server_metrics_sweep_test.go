package report

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// sglangServed is what the loopback SGLang /metrics endpoint answered to one scrape:
// the totals over its two data-parallel ranks (running and waiting summed, token usage
// the fuller rank's).
type sglangServed struct{ running, waiting, tokenUsage float64 }

// sglangEndpoint is a loopback OpenAI-compatible streaming server that also exposes
// SGLang-named Prometheus metrics at /metrics; each scrape's values follow the scrape
// number k and are recorded in order.
type sglangEndpoint struct {
	mu     sync.Mutex
	served []sglangServed
}

// script answers /v1/models, /metrics and (any other path) a streamed chat completion.
func (e *sglangEndpoint) script(_ int, r *http.Request, _ []byte) ssetest.Script {
	switch r.URL.Path {
	case "/v1/models":
		return ssetest.Script{ContentType: "application/json",
			Steps: []ssetest.Step{{Data: []byte(`{"object":"list","data":[{"id":"m","object":"model","owned_by":"sglang"}]}`)}}}
	case "/metrics":
		return ssetest.Script{ContentType: "text/plain; version=0.0.4", Steps: []ssetest.Step{{Data: e.metrics()}}}
	}
	var steps []ssetest.Step
	for i := 0; i < 4; i++ {
		d := 2 * time.Millisecond
		if i == 0 {
			d = 10 * time.Millisecond
		}
		steps = append(steps, ssetest.Step{Delay: d, Data: ssetest.Events(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"w%d "}}]}`, i))})
	}
	steps = append(steps, ssetest.Step{Data: ssetest.Events(`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":4}}`, "[DONE]")})
	return ssetest.Script{Steps: steps}
}

// metrics renders the next scrape in SGLang's exposition (collector.py names).
func (e *sglangEndpoint) metrics() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := len(e.served)
	run0, run1 := float64(k%4), 1.0
	wait0 := float64(k % 3)
	tok0, tok1 := 0.05*float64(k%10), 0.2
	e.served = append(e.served, sglangServed{running: run0 + run1, waiting: wait0, tokenUsage: math.Max(tok0, tok1)})
	var b strings.Builder
	gauge := func(name string, v0, v1 float64) {
		fmt.Fprintf(&b, "# HELP %s SGLang gauge.\n# TYPE %s gauge\n", name, name)
		fmt.Fprintf(&b, "%s{dp_rank=\"0\",model_name=\"m\"} %g\n%s{dp_rank=\"1\",model_name=\"m\"} %g\n", name, v0, name, v1)
	}
	gauge("sglang:num_running_reqs", run0, run1)
	gauge("sglang:num_queue_reqs", wait0, 0)
	gauge("sglang:token_usage", tok0, tok1)
	gauge("sglang:cache_hit_rate", 0.5, 0.5)
	fmt.Fprintf(&b, "# TYPE sglang:num_retracted_requests_total counter\nsglang:num_retracted_requests_total{dp_rank=\"0\",model_name=\"m\"} %d\n", k)
	b.WriteString("# TYPE sglang:time_to_first_token_seconds histogram\n" +
		"sglang:time_to_first_token_seconds_bucket{le=\"0.1\",model_name=\"m\"} 3\n" +
		"sglang:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 4\n" +
		"sglang:time_to_first_token_seconds_sum{model_name=\"m\"} 0.31\n" +
		"sglang:time_to_first_token_seconds_count{model_name=\"m\"} 4\n")
	return []byte(b.String())
}

func (e *sglangEndpoint) scrapes() []sglangServed {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]sglangServed(nil), e.served...)
}

// TestSweepAgainstSGLangMetricsEndpoint sweeps a real loopback server whose /metrics
// carries SGLang names, scraped by the sweep's scraper: the server-queue and server-kv
// series hold one point per scrape with the values served, and the analysis' per-step
// means and maxima are those of the scrapes in each step's measurement window.
func TestSweepAgainstSGLangMetricsEndpoint(t *testing.T) {
	ep := &sglangEndpoint{}
	srv, err := ssetest.New(ep.script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p := &plan.Plan{Name: "sglang", Seed: 3,
		Target: plan.Target{URL: srv.URL, API: "chat", Model: "m",
			MetricsURLs: []string{"http://" + srv.Addr + "/metrics"}, MetricsInterval: 15 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1,
			PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 20}, OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 4}}},
		Ladder: plan.Ladder{Concurrency: []int{2, 4}, Requests: 40},
		SLA:    plan.SLA{MaxErrorRate: 0.01}}
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	served := ep.scrapes()
	if len(in.metrics) != len(served) || len(served) < 5 {
		t.Fatalf("%d samples in %s for %d scrapes served (want equal, ≥ 5)", len(in.metrics), rundir.FileServerMetrics, len(served))
	}
	running, waiting := serverQueueSeries(in.metrics)
	kv := serverKVSeries(in.metrics)
	if len(running) != len(served) || len(waiting) != len(served) || len(kv) != len(served) {
		t.Fatalf("chart series of %d, %d, %d points for %d scrapes", len(running), len(waiting), len(kv), len(served))
	}
	for i, s := range served {
		if running[i].Y != s.running || waiting[i].Y != s.waiting || math.Abs(kv[i].Y-100*s.tokenUsage) > 1e-9 {
			t.Errorf("scrape %d: chart running %v waiting %v KV %v %%; served %v, %v, %v %%",
				i, running[i].Y, waiting[i].Y, kv[i].Y, s.running, s.waiting, 100*s.tokenUsage)
		}
	}
	windows, _, err := rundir.ReadSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, st := range a.Segments[0].Steps {
		want, n := servedInWindow(in.metrics, served, windows, st.Step)
		if n == 0 {
			continue
		}
		checked++
		sv := st.Server
		if sv == nil {
			t.Errorf("step %d: %d scrapes in its window, no server stats", st.Step, n)
			continue
		}
		if math.Abs(sv.RunningMean-want.RunningMean) > 1e-9 || math.Abs(sv.WaitingMean-want.WaitingMean) > 1e-9 ||
			sv.WaitingMax != want.WaitingMax || math.Abs(sv.KVCacheUsageMax-want.KVCacheUsageMax) > 1e-12 ||
			sv.Preemptions != want.Preemptions {
			t.Errorf("step %d: analysis %+v, served in the window %+v (%d scrapes)", st.Step, *sv, want, n)
		}
	}
	if checked == 0 {
		t.Fatal("no step had a scrape inside its measurement window")
	}
}

// servedInWindow is the served values of the scrapes the sweep tagged with step and
// timed inside its measurement window, as the analysis should summarise them (the
// retraction counter served is the scrape number, so its increase is the count of
// scrapes between the first and the last).
func servedInWindow(samples []rundir.MetricSample, served []sglangServed, windows []rundir.StepSummary, step int) (analysis.ServerStats, int) {
	var w rundir.StepSummary
	for _, s := range windows {
		if s.Index == step {
			w = s
		}
	}
	var out analysis.ServerStats
	first, n := -1, 0
	for i, m := range samples {
		if m.Step != step || m.TimeNs < w.MeasureStartNs || m.TimeNs > w.MeasureEndNs {
			continue
		}
		if first < 0 {
			first = i
		}
		out.Preemptions = float64(i - first)
		n++
		out.RunningMean += served[i].running
		out.WaitingMean += served[i].waiting
		out.WaitingMax = math.Max(out.WaitingMax, served[i].waiting)
		out.KVCacheUsageMax = math.Max(out.KVCacheUsageMax, served[i].tokenUsage)
	}
	if n > 0 {
		out.RunningMean /= float64(n)
		out.WaitingMean /= float64(n)
	}
	return out, n
}
