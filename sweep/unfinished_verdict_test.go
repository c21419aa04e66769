package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep/ssetest"
)

// loadPlan loads yaml through plan.Load (so every default applies), aimed at url, with
// the --set style overrides set (dotted keys; may be nil).
func loadPlan(t *testing.T, yaml, url string, set map[string]any) *plan.Plan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	over := map[string]any{"target.url": url}
	for k, v := range set {
		over[k] = v
	}
	p, err := plan.Load(path, over)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const verdictSegments = `
name: verdict
seed: 14
target: {api: chat, model: fault}
segments:
  - {name: chat, weight: 1, prompt_tokens: {dist: fixed, value: 16}, output_tokens: {dist: fixed, value: 8}}
report: {formats: [json]}
`

// halfHang answers every other load request by hanging after the headers.
func halfHang(n int, _ time.Duration) ssetest.Fault {
	if n%2 == 1 {
		return ssetest.FaultHang
	}
	return ssetest.FaultNone
}

// sweepAndAnalyze runs p into a fresh directory and analyses it, failing the test on
// either's error; it returns the directory, the analysis and the sweep's wall time.
func sweepAndAnalyze(t *testing.T, p *plan.Plan) (string, *analysis.Analysis, time.Duration) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	start := time.Now()
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	took := time.Since(start)
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	return dir, a, took
}

// TestHalfHungStepFailsTheSLA (issue #14): with no grace period (grace 0s; the default
// is 30 s) and the default first-byte and idle timeouts of minutes, a server that hangs every other request after the headers
// leaves those requests in flight when the 1.5 s window closes. They are recorded as
// unfinished with their waits, and the analysis fails the step — the TTFT p95's lower
// bound (the waits, ~1.5 s) is above its 500 ms bound — and those that waited over
// 1 s (sla.OverdueFloor; the healthy answers take milliseconds) are overdue, failed in
// the error rate. Before, they were "cancelled", dropped from the
// latencies, and the step passed at the healthy requests' 5 ms TTFT.
func TestHalfHungStepFailsTheSLA(t *testing.T) {
	srv, err := ssetest.NewFaultServer(ssetest.FaultConfig{Script: halfHang})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p := loadPlan(t, verdictSegments+`
ladder: {concurrency: [4], duration: 1500ms, grace: 0s, cooldown: 0s, early_stop: {enabled: false}}
sla: {ttft_ms: {p95: 500}, e2e_ms: {p95: 2000}, max_error_rate: 0.01}
`, srv.URL, nil)
	if p.Ladder.Grace != 0 || p.Target.IdleTimeout != plan.DefaultIdleTimeout {
		t.Fatalf("not the defaults: grace %v, idle timeout %v", p.Ladder.Grace, p.Target.IdleTimeout)
	}
	dir, a, _ := sweepAndAnalyze(t, p)
	recs, steps, _ := rtRead(t, dir)
	hung := srv.Counts()[ssetest.FaultHang]
	unfinished := 0
	for _, r := range recs {
		if r.ErrorClass != rundir.ErrUnfinished {
			continue
		}
		unfinished++
		if r.Phase != rundir.PhaseGrace || r.WaitedMs == nil || *r.WaitedMs < 1000 || r.TTFTMs != nil {
			t.Errorf("unfinished record %s: phase %s, waited %v ms, ttft %v", r.RequestID, r.Phase, r.WaitedMs, r.TTFTMs)
		}
	}
	if hung == 0 || unfinished != hung || len(steps) != 1 || steps[0].Unfinished != hung || steps[0].CutByStepTimeout {
		t.Fatalf("%d hung answers, %d unfinished records, steps %+v", hung, unfinished, steps)
	}
	s := a.Segments[0].Steps[0]
	if s.MeetsSLA || s.Unfinished != hung || s.Overdue == 0 || s.ErrorRate <= 0.01 {
		t.Fatalf("step meets SLA %v, unfinished %d (want %d), overdue %d, error rate %g: the half-hung step must fail",
			s.MeetsSLA, s.Unfinished, hung, s.Overdue, s.ErrorRate)
	}
	if len(s.SLAViolations) == 0 || !strings.HasPrefix(s.SLAViolations[0], "ttft p95") || !strings.Contains(s.SLAViolations[0], "censored") {
		t.Errorf("violations %q: want the TTFT p95 broken by the unfinished", s.SLAViolations)
	}
	if cp := a.Segments[0].Capacity; cp.MaxConcurrencyWithinSLA >= 4 {
		t.Errorf("capacity %g: the failing step counted as within the SLA", cp.MaxConcurrencyWithinSLA)
	}
}

// TestRequestBoundWindowEndsAtTheStepTimeout (issue #14): a window bounded only by
// ladder.requests (20, no duration) against a server that hangs every other request
// after the headers never completes its count; the step's wall-time bound
// (ladder.step_timeout 2s) ends it: the sweep returns within a few seconds, steps.jsonl
// says cut_by_step_timeout with the unfinished count, and the analysis fails the step
// and warns of the bound.
func TestRequestBoundWindowEndsAtTheStepTimeout(t *testing.T) {
	srv, err := ssetest.NewFaultServer(ssetest.FaultConfig{Script: halfHang})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p := loadPlan(t, verdictSegments+`
ladder: {concurrency: [4], requests: 20, step_timeout: 2s, cooldown: 0s, early_stop: {enabled: false}}
sla: {ttft_ms: {p95: 500}, max_error_rate: 0.01}
`, srv.URL, nil)
	if st := p.Steps()[0]; st.Timeout != 2*time.Second || st.Duration != 0 {
		t.Fatalf("step timeout %v, duration %v", st.Timeout, st.Duration)
	}
	dir, a, took := sweepAndAnalyze(t, p)
	if took > 8*time.Second {
		t.Errorf("the sweep took %v with a 2 s step bound", took)
	}
	_, steps, _ := rtRead(t, dir)
	if len(steps) != 1 || !steps[0].CutByStepTimeout || steps[0].Unfinished == 0 || steps[0].Unfinished != srv.Counts()[ssetest.FaultHang] {
		t.Fatalf("steps %+v (hung answers %d): want one step cut by its bound with every hung request unfinished", steps, srv.Counts()[ssetest.FaultHang])
	}
	s := a.Segments[0].Steps[0]
	if s.MeetsSLA || !s.CutByStepTimeout || s.Unfinished != steps[0].Unfinished {
		t.Errorf("analysis: meets SLA %v, cut by step timeout %v, unfinished %d", s.MeetsSLA, s.CutByStepTimeout, s.Unfinished)
	}
	warned := false
	for _, w := range a.Warnings {
		warned = warned || (w.Kind == analysis.WarnStepTimeout && strings.Contains(w.Message, "wall-time bound (2s)"))
	}
	if !warned {
		t.Errorf("no step-timeout warning in %q", a.WarningMessages())
	}
}
