package tune

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/internal/testlock"

	"github.com/llmcap/llmcap/rundir"
)

// TestServersThatFailAreFailedTrials: a server that exits at once and one that never
// answers are failed trials (exited, not_ready) with their server log's tail, and the
// search goes on to the one that works, which it recommends.
func TestServersThatFailAreFailedTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("launches servers")
	}
	testlock.Hold(t) // timing-critical: not beside the other packages' heavy tests
	p := simTunePlan(t, `    env: ["`+envHelper+`={mode}"]
  space:
    - {name: mode, type: categorical, values: [crash, hang, sim]}
    - {name: max_num_seqs, type: int, values: [4]}
  algorithm: grid
`)
	p.Tune.Launch.ReadyTimeout = 1500e6 // 1.5 s
	dir := t.TempDir()
	res, err := Run(context.Background(), p, Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	trials, _, err := rundir.ReadTrials(dir)
	if err != nil || len(trials) != 3 {
		t.Fatalf("%d trials (%v), want 3", len(trials), err)
	}
	want := []struct{ mode, status, class, log string }{
		{"crash", rundir.TrialFailed, rundir.TrialFailExited, "CUDA error: out of memory"},
		{"hang", rundir.TrialFailed, rundir.TrialFailNotReady, ""},
		{"sim", rundir.TrialOK, "", "simulator serving"},
	}
	for i, w := range want {
		tr := trials[i]
		t.Logf("trial %d %v: %s %s %q; log %q", tr.Trial, tr.Params, tr.Status, tr.FailClass, tr.FailReason, tr.ServerLogTail)
		if tr.Params["mode"] != w.mode || tr.Status != w.status || tr.FailClass != w.class {
			t.Errorf("trial %d: %v %s/%s, want %s %s/%s", i, tr.Params["mode"], tr.Status, tr.FailClass, w.mode, w.status, w.class)
		}
		if w.status == rundir.TrialFailed && (!strings.Contains(tr.ServerLogTail, w.log) || tr.FailReason == "" || len(tr.Objectives) != 0) {
			t.Errorf("trial %d: log tail %q reason %q objectives %v", i, tr.ServerLogTail, tr.FailReason, tr.Objectives)
		}
	}
	if res.Recommended != 2 || res.OK != 1 || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "2 of 3 trials failed") {
		t.Errorf("result: recommended %d, %d ok, notes %q", res.Recommended, res.OK, res.Notes)
	}
}
