package analysis

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// interruptedRun simulates a three-step ladder interrupted during the warm-up of its
// last step: steps.jsonl has the first two steps; the third has only warm-up requests
// and one cancelled one.
func interruptedRun(t *testing.T, finished int) string {
	t.Helper()
	p := simPlan("intr", []int{1, 8, 32}, plan.SLA{TTFTMs: map[string]float64{"p95": 5000}})
	meta := metaFor(p)
	meta.State = rundir.StateInterrupted
	steps := p.Steps()
	var recs []rundir.Record
	for _, r := range decodeSim.ladder(p) {
		if r.Step >= finished {
			if r.Phase != rundir.PhaseWarmup {
				continue
			}
			if r.Step == finished && len(recs) > 0 && recs[len(recs)-1].Step != finished {
				failRecord(&r, rundir.ErrCancelled, "cancelled: context canceled")
				r.Phase = rundir.PhaseGrace
			}
		}
		recs = append(recs, r)
	}
	sums := []rundir.StepSummary{}
	for _, s := range steps[:finished] {
		sums = append(sums, rundir.StepSummary{Step: s, RunID: "test"})
	}
	return writeRunDir(t, meta, recs, sums, nil)
}

// TestInterruptedRunLeavesOutTheUnfinishedStep: the step without a steps.jsonl line is
// not analysed (it used to be the headline: "no measured requests … lengthen the
// steps"), and the answer says how far the run got.
func TestInterruptedRunLeavesOutTheUnfinishedStep(t *testing.T) {
	a, err := Analyze(interruptedRun(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("answer: %s\nwarnings: %q", a.Answer, a.WarningMessages())
	for _, sa := range a.Segments {
		for _, s := range sa.Steps {
			if s.Step >= 2 {
				t.Errorf("segment %s: unfinished step %d analysed: %+v", sa.Segment, s.Step, s)
			}
		}
	}
	if got := len(a.Segments[0].Steps); got != 2 {
		t.Errorf("%d steps analysed, want 2", got)
	}
	if a.RunState != rundir.StateInterrupted || a.StepsCompleted != 2 || a.StepsPlanned != 3 {
		t.Errorf("progress %q %d/%d", a.RunState, a.StepsCompleted, a.StepsPlanned)
	}
	if !strings.Contains(a.Answer, "the run was interrupted after 2 of 3 steps") ||
		strings.Contains(a.Answer, "no measured requests") || strings.Contains(a.Answer, "fail") {
		t.Errorf("answer %q", a.Answer)
	}
	want := "the run is interrupted after 2 of 3 steps; the unfinished step 3 (chat, concurrency 32) was left out"
	if !strings.Contains(strings.Join(a.WarningMessages(), "\n"), want) {
		t.Errorf("warnings %q lack %q", a.WarningMessages(), want)
	}
	if a.Errors.Errors != 0 {
		t.Errorf("the cut-off request counted as an error: %+v", a.Errors)
	}
}

// TestInterruptedInTheFirstStepIsNoSteps: nothing finished, nothing to analyse.
func TestInterruptedInTheFirstStepIsNoSteps(t *testing.T) {
	_, err := Analyze(interruptedRun(t, 0))
	if !errors.Is(err, ErrNoSteps) || !strings.Contains(err.Error(), "interrupted after 0 of 3 steps") {
		t.Fatalf("err %v", err)
	}
}
