package sweep

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// TestStepDoneLineLogged: without a terminal, every finished step logs one line with
// its segment, load, requests, errors and TTFT percentiles.
func TestStepDoneLineLogged(t *testing.T) {
	srv := newRTServer(t, 2*time.Millisecond, time.Millisecond)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{1, 2}
	p.Ladder.Requests = 6
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	if err := Run(context.Background(), p, Options{OutDir: filepath.Join(t.TempDir(), "r"), Logger: log, Progress: &buf}); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`msg="step (\d)/2 done" segment=short concurrency=(\d) requests=6 errors=0 ttft_p50_ms=\d+ ttft_p95_ms=\d+ elapsed=\S+ eta=\S+`)
	m := re.FindAllStringSubmatch(buf.String(), -1)
	if len(m) != 2 || m[0][1] != "1" || m[0][2] != "1" || m[1][1] != "2" || m[1][2] != "2" {
		t.Fatalf("step lines = %q in log:\n%s", m, buf.String())
	}
}

// TestStepLogCounts: the step-done line counts as the SLA judge and the analysis do
// (logSample): measure and grace requests, unfinished ones (here in the legacy form:
// grace requests cancelled at the end of the grace period) apart (not errors), TTFT over
// the successful finished requests with tokens; no TTFT is "–", never NaN.
func TestStepLogCounts(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	ok := func(phase string, ttft float64) stepResult {
		return stepResult{rec: &rundir.Record{Phase: phase, Status: rundir.StatusOK, OutputTokens: 4, TTFTMs: ms(ttft)}}
	}
	fail := func(phase, class string) stepResult {
		return stepResult{rec: &rundir.Record{Phase: phase, Status: rundir.StatusError, ErrorClass: class}}
	}
	results := []stepResult{
		ok(rundir.PhaseWarmup, 1000),
		ok(rundir.PhaseMeasure, 10), ok(rundir.PhaseMeasure, 30), ok(rundir.PhaseGrace, 20),
		fail(rundir.PhaseMeasure, rundir.ErrHTTP5xx),
		fail(rundir.PhaseMeasure, rundir.ErrCancelled), // interrupted inside the window: an error
		fail(rundir.PhaseGrace, rundir.ErrCancelled), fail(rundir.PhaseGrace, rundir.ErrCancelled),
		fail(rundir.PhaseGrace, rundir.ErrTimeoutIdle),
	}
	c := logSample(results)
	if c.Requests != 6 || c.Errors != 3 || c.CutOff != 2 || c.TTFT.N != 3 {
		t.Errorf("requests %d errors %d cancelled %d ttft %d values; want 6, 3, 2 and 3", c.Requests, c.Errors, c.CutOff, c.TTFT.N)
	}
	if got := msText(c.TTFT, sla.P50); got != "20" {
		t.Errorf("TTFT p50 %s, want 20", got)
	}
	none := logSample([]stepResult{fail(rundir.PhaseGrace, rundir.ErrCancelled)})
	if got := msText(none.TTFT, sla.P50); got != "–" || none.Requests != 0 || none.CutOff != 1 {
		t.Errorf("all cancelled: TTFT %q requests %d cancelled %d, want –, 0, 1", got, none.Requests, none.CutOff)
	}
}
