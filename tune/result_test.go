package tune

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

func okTrial(n int, users, mem float64) rundir.Trial {
	return rundir.Trial{Trial: n, Status: rundir.TrialOK, Capacity: users, CapacityMethod: "measured",
		Params:     map[string]any{"max_num_seqs": float64(16 * (n + 1))},
		Objectives: map[string]float64{"users": users, "gpu_memory_mib": mem}}
}

// TestSummaryFrontAndRecommendation: the front holds the trials no other beats on both
// objectives, best capacity first; the recommendation is the most users, a tie broken
// by the lower memory; the gain is over the baseline; failed trials are counted and
// left out of the front.
func TestSummaryFrontAndRecommendation(t *testing.T) {
	objs := []plan.TuneObjective{{Metric: "users", Direction: "maximize"}, {Metric: "gpu_memory_mib", Direction: "minimize"}}
	trials := []rundir.Trial{
		okTrial(0, 100, 40000), // baseline
		okTrial(1, 150, 60000), // front
		okTrial(2, 150, 50000), // front, the recommendation (same users, less memory)
		okTrial(3, 90, 30000),  // front (least memory)
		okTrial(4, 80, 45000),  // dominated by 0
		{Trial: 5, Status: rundir.TrialFailed, FailClass: rundir.TrialFailExited, FailReason: "OOM"},
	}
	trials[0].Baseline = true
	r := Summarize(objs, trials, StopDone, nil)
	if r.Trials != 6 || r.OK != 5 || r.Recommended != 2 || r.Baseline != 0 {
		t.Fatalf("trials %d ok %d recommended %d baseline %d", r.Trials, r.OK, r.Recommended, r.Baseline)
	}
	if want := []int{2, 0, 3}; !slices.Equal(r.Front, want) {
		t.Errorf("front %v, want %v (best users first; trial 1 is beaten by 2)", r.Front, want)
	}
	if r.GainOverBaseline != 0.5 {
		t.Errorf("gain %g, want 0.5", r.GainOverBaseline)
	}
	if !strings.Contains(r.Answer, "keeps 150 users within the SLA, 50% more than the starting configuration (100 users)") ||
		!strings.Contains(r.Answer, "max_num_seqs=48") || !strings.Contains(r.Answer, "the best of 6 trials") {
		t.Errorf("answer %q", r.Answer)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "1 of 6 trials failed (1 exited)") {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestSummaryWithoutAMeasuredTrialSaysSo: all trials failed: no recommendation, and
// the answer says why instead of naming a setting.
func TestSummaryWithoutAMeasuredTrialSaysSo(t *testing.T) {
	objs := []plan.TuneObjective{{Metric: "users", Direction: "maximize"}}
	trials := []rundir.Trial{{Trial: 0, Status: rundir.TrialFailed, FailClass: rundir.TrialFailNotReady}}
	r := Summarize(objs, trials, StopDone, nil)
	if r.Recommended != -1 || len(r.Front) != 0 || !strings.Contains(r.Answer, "the one trial failed") {
		t.Errorf("recommended %d front %v answer %q", r.Recommended, r.Front, r.Answer)
	}
}
