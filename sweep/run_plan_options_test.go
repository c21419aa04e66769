package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

const rtEnvLaunchAddr = "LLMCAP_RT_LAUNCH_ADDR"

// TestLaunchChild is the server process TestLaunchStartsAndStopsServer launches (this
// test binary re-executed); it serves until it is terminated.
func TestLaunchChild(t *testing.T) {
	addr := os.Getenv(rtEnvLaunchAddr)
	if addr == "" {
		t.Skip("server process of TestLaunchStartsAndStopsServer only")
	}
	time.Sleep(300 * time.Millisecond) // not ready at once: the runner must poll
	newRTServerAt(t, addr, time.Millisecond, time.Millisecond)
	select {}
}

func TestLaunchStartsAndStopsServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := rtPlan("http://" + addr + "/v1")
	p.Target.Launch = &plan.Launch{Command: []string{os.Args[0], "-test.run=^TestLaunchChild$", "-test.count=1"},
		Env: []string{rtEnvLaunchAddr + "=" + addr}, ReadyTimeout: 30 * time.Second}
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	recs, steps, _ := rtRead(t, dir)
	if len(steps) != 1 || len(recs) < 20 {
		t.Fatalf("%d steps %d records", len(steps), len(recs))
	}
	for _, r := range recs {
		if !r.OK() {
			t.Fatalf("failed record against the launched server: %+v", r)
		}
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("launched server still listening after the run")
	}
}

func TestScrapeMetricsURLsAlignedToSteps(t *testing.T) {
	srv := newRTServer(t, 20*time.Millisecond, 5*time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{2, 4}
	p.Ladder.Requests = 40
	p.Target.MetricsURLs = []string{srv.URL + "/metrics"}
	p.Target.MetricsInterval = 20 * time.Millisecond
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	_, steps, _ := rtRead(t, dir)
	maxRunning := map[int]float64{}
	n := 0
	rtLines(t, filepath.Join(dir, rundir.FileServerMetrics), func(b []byte) {
		var m rundir.MetricSample
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		n++
		if _, ok := m.Values[`rt_requests_total{model="m"}`]; !ok {
			t.Fatalf("sample lacks the labelled counter: %v", m.Values)
		}
		if m.Step >= 0 {
			st := steps[m.Step]
			if m.TimeNs < st.StartNs || m.TimeNs > st.EndNs {
				t.Errorf("sample at %d tagged step %d outside [%d, %d]", m.TimeNs, m.Step, st.StartNs, st.EndNs)
			}
		}
		maxRunning[m.Step] = max(maxRunning[m.Step], m.Values["rt_running"])
	})
	if n < 5 || maxRunning[0] > 2 || maxRunning[1] != 4 {
		t.Errorf("%d samples; server running max per step %v, want ≤ 2 and 4", n, maxRunning)
	}
}

func TestParseMetricsHistogram(t *testing.T) {
	text := `# HELP vllm:time_to_first_token_seconds TTFT.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} 3
vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} 5
vllm:time_to_first_token_seconds_sum{model_name="m"} 0.9
vllm:time_to_first_token_seconds_count{model_name="m"} 5
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m"} 7
`
	v, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"}`:  3,
		`vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"}`: 5,
		`vllm:time_to_first_token_seconds_sum{model_name="m"}`:              0.9,
		`vllm:time_to_first_token_seconds_count{model_name="m"}`:            5,
		`vllm:num_requests_waiting{model_name="m"}`:                         7,
	}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %v, want %v (all: %v)", k, v[k], w, v)
		}
	}
	if _, err := parseMetrics(strings.NewReader("bad metric {{{\n")); err == nil {
		t.Error("malformed exposition parsed without error")
	}
}

func TestOpenLoopMaxConcurrencyCap(t *testing.T) {
	srv := newRTServer(t, 50*time.Millisecond, 5*time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = nil
	p.Ladder.Rate = []float64{200}
	p.Ladder.MaxConcurrency = 5
	p.Ladder.Requests = 40
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	if maxSeen, _ := srv.stats(); maxSeen != 5 {
		t.Errorf("server saw %d concurrent, want the cap 5", maxSeen)
	}
	recs, _, _ := rtRead(t, dir)
	var lags []float64
	for _, r := range recs {
		lags = append(lags, *r.ScheduleLagMs)
	}
	// 200 req/s offered, ~70 req/s served: late requests show their lag.
	if p99 := quantileOf(lags, 0.99); p99 < 50 {
		t.Errorf("capped open loop lag p99 %.1f ms; expected queueing lag", p99)
	}
}

func TestMultiTurnClosedLoop(t *testing.T) {
	srv := newRTServer(t, 2*time.Millisecond, time.Millisecond)
	p := rtPlan(srv.url())
	p.Segments[0].MultiTurn = &plan.MultiTurn{Turns: 3, ThinkTimeS: plan.Dist{Kind: plan.DistFixed, Value: 0.05}}
	p.Ladder.Concurrency = []int{4}
	p.Ladder.Requests = 60
	dir := t.TempDir()
	var prog bytes.Buffer
	if err := Run(context.Background(), p, Options{OutDir: dir, Progress: &prog}); err != nil {
		t.Fatal(err)
	}
	if prog.Len() != 0 {
		t.Errorf("progress wrote %q to a non-terminal", prog.String())
	}
	if maxSeen, _ := srv.stats(); maxSeen != 4 {
		t.Errorf("server saw %d concurrent, want 4", maxSeen)
	}
	recs, _, _ := rtRead(t, dir)
	turns := map[string][]rundir.Record{}
	for _, r := range recs {
		turns[r.SessionID] = append(turns[r.SessionID], r)
	}
	later := 0
	for id, rs := range turns {
		for _, r := range rs {
			if r.Turn > 0 {
				later++
				prev := rs[0]
				if r.PromptTokens <= prev.PromptTokens || r.PromptTokens != r.IntendedPromptTokens {
					t.Errorf("session %s turn %d prompt %d (intended %d) after first turn %d: history not appended",
						id, r.Turn, r.PromptTokens, r.IntendedPromptTokens, prev.PromptTokens)
				}
			}
		}
	}
	if later == 0 {
		t.Fatal("no later turns were sent")
	}
}

func TestInterruptThenResume(t *testing.T) {
	srv := newRTServer(t, 5*time.Millisecond, 20*time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{2, 3}
	p.Ladder.Requests = 30
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if b, _ := os.ReadFile(filepath.Join(dir, rundir.FileSteps)); len(b) > 0 {
				time.Sleep(60 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	if err := Run(ctx, p, Options{OutDir: dir}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	before, _, _ := rtRead(t, dir)
	cancelled := 0
	for _, r := range before {
		if r.Step == 1 && r.ErrorClass == rundir.ErrCancelled {
			cancelled++
		}
	}
	if cancelled == 0 {
		t.Fatal("interrupt mid step 1 recorded no cancelled request")
	}
	if err := Run(context.Background(), nil, Options{OutDir: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	recs, steps, meta := rtRead(t, dir)
	if len(steps) != 2 || meta.State != rundir.StateComplete {
		t.Fatalf("%d steps, state %s", len(steps), meta.State)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.RequestID] || !r.OK() {
			t.Fatalf("duplicated or failed record after resume: %+v", r)
		}
		seen[r.RequestID] = true
	}
}
