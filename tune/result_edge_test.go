package tune

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// edgeSpace is a space like configs/tune-sim-grid.yaml's: a stepped int, a listed int,
// a stepped float and a categorical.
func edgeSpace(t *testing.T) *space {
	t.Helper()
	sp, err := newSpace(&plan.Tune{Space: []plan.TuneParam{
		{Name: "max_num_seqs", Type: plan.TuneInt, Min: 16, Max: 100, Step: 16}, // 16, 32, …, 96
		{Name: "max_num_batched_tokens", Type: plan.TuneInt, Values: []any{2048, 1024, 8192, 4096}},
		{Name: "gpu_memory_utilization", Type: plan.TuneFloat, Min: 0.25, Max: 0.9, Step: 0.05},
		{Name: "scheduler", Type: plan.TuneCategorical, Values: []any{"fcfs", "priority"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func edgeTrial(n int, users float64, pt nsga2.Point) rundir.Trial {
	return rundir.Trial{Trial: n, Status: rundir.TrialOK, Capacity: users, CapacityMethod: "measured",
		Point: pt, Objectives: map[string]float64{"users": users}}
}

// TestRecommendationAtTheSpaceEdgeIsNoted: a recommendation whose numeric parameters
// sit at an end of their ranges (a stepped range's last step, a listed set's smallest
// value, whatever the list's order) gets one note naming each and its range; one in
// the middle of every range, or at a categorical's last choice, gets none.
func TestRecommendationAtTheSpaceEdgeIsNoted(t *testing.T) {
	sp := edgeSpace(t)
	objs := []plan.TuneObjective{{Metric: "users", Direction: "maximize"}}
	// max_num_seqs 96 (the last step below 100), max_num_batched_tokens 1024 (index 1,
	// the smallest listed), gpu_memory_utilization 0.5, scheduler priority.
	trials := []rundir.Trial{edgeTrial(0, 40, nsga2.Point{32, 0, 0.5, 0}), edgeTrial(1, 102, nsga2.Point{96, 1, 0.5, 1})}
	r := Summarize(objs, trials, StopDone, sp)
	var note string
	for _, n := range r.Notes {
		if strings.Contains(n, "edge of the search space") {
			note = n
		}
	}
	for _, want := range []string{"max_num_seqs=96 is the largest value its range allows (16–96)",
		"max_num_batched_tokens=1024 is the smallest value its range allows (1024–8192)", "widen those ranges in tune.space"} {
		if !strings.Contains(note, want) {
			t.Errorf("edge note %q: want %q", note, want)
		}
	}
	if strings.Contains(note, "gpu_memory_utilization") || strings.Contains(note, "scheduler") {
		t.Errorf("edge note %q names a parameter inside its range, or a categorical", note)
	}

	trials[1].Point = nsga2.Point{64, 3, 0.9, 1} // only gpu_memory_utilization at its top
	r = Summarize(objs, trials, StopDone, sp)
	if got := strings.Join(r.Notes, " | "); !strings.Contains(got, "gpu_memory_utilization=0.9 is the largest value its range allows (0.25–0.9)") ||
		!strings.Contains(got, "widen that range") || strings.Contains(got, "max_num_seqs=") {
		t.Errorf("notes %q: want only gpu_memory_utilization at its top", got)
	}

	trials[1].Point = nsga2.Point{48, 0, 0.5, 1} // inside every range
	if r = Summarize(objs, trials, StopDone, sp); strings.Contains(strings.Join(r.Notes, " "), "edge") {
		t.Errorf("notes %q for a recommendation inside the space", r.Notes)
	}
}
