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
func edgeSpace(t *testing.T, seqs plan.TuneParam) *space {
	t.Helper()
	sp, err := newSpace(&plan.Tune{Space: []plan.TuneParam{
		seqs,
		{Name: "max_num_batched_tokens", Type: plan.TuneInt, Values: []any{2048, 1024, 8192, 4096}},
		{Name: "gpu_memory_utilization", Type: plan.TuneFloat, Min: 0.25, Max: 0.9, Step: 0.05},
		{Name: "scheduler", Type: plan.TuneCategorical, Values: []any{"fcfs", "priority"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// seqsParam is max_num_seqs 16, 32, …, 96 (the last step below 100).
var seqsParam = plan.TuneParam{Name: "max_num_seqs", Type: plan.TuneInt, Min: 16, Max: 100, Step: 16}

func edgeTrial(n int, users float64, pt nsga2.Point) rundir.Trial {
	return rundir.Trial{Trial: n, Status: rundir.TrialOK, Capacity: users, CapacityMethod: "measured",
		Point: pt, Objectives: map[string]float64{"users": users, "ttft_p95_ms": 20}}
}

var edgeObjs = []plan.TuneObjective{{Metric: "users", Direction: "maximize"}, {Metric: "ttft_p95_ms", Direction: "minimize"}}

// edgeNoteOf is the result's note on the space's edge, or "".
func edgeNoteOf(r *rundir.TuneResult) string {
	for _, n := range r.Notes {
		if strings.Contains(n, "edge of the search space") {
			return n
		}
	}
	return ""
}

// TestRecommendationAtTheSpaceEdgeIsNoted: a recommendation whose numeric parameters
// sit at an end of what the space allows (a stepped range's last step, a listed set's
// smallest value, whatever the list's order) gets one note naming each with its range
// or values and what to change; one inside every range, or at a categorical's last
// choice, gets none.
func TestRecommendationAtTheSpaceEdgeIsNoted(t *testing.T) {
	sp := edgeSpace(t, seqsParam)
	// max_num_seqs 96, max_num_batched_tokens 1024 (index 1, the smallest listed),
	// gpu_memory_utilization 0.5, scheduler priority.
	trials := []rundir.Trial{edgeTrial(0, 40, nsga2.Point{32, 0, 0.5, 0}), edgeTrial(1, 102, nsga2.Point{96, 1, 0.5, 1})}
	note := edgeNoteOf(Summarize(edgeObjs, trials, StopDone, sp))
	for _, want := range []string{
		"max_num_seqs=96 is the largest value its range allows (16 to 96 in steps of 16)",
		"max_num_batched_tokens=1024 is the smallest of its listed values (1024, 2048, 4096, 8192)",
		"raise max_num_seqs's max; add a smaller value to max_num_batched_tokens's values",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("edge note %q: want %q", note, want)
		}
	}
	if strings.Contains(note, "gpu_memory_utilization") || strings.Contains(note, "scheduler") {
		t.Errorf("edge note %q names a parameter inside its range, or a categorical", note)
	}

	trials[1].Point = nsga2.Point{64, 3, 0.9, 1} // only gpu_memory_utilization at its top
	got := edgeNoteOf(Summarize(edgeObjs, trials, StopDone, sp))
	if !strings.Contains(got, "gpu_memory_utilization=0.9 is the largest value its range allows (0.25 to 0.9 in steps of 0.05)") ||
		!strings.Contains(got, "raise gpu_memory_utilization's max") || strings.Contains(got, "max_num_seqs=") {
		t.Errorf("edge note %q: want only gpu_memory_utilization at its top", got)
	}

	trials[1].Point = nsga2.Point{48, 0, 0.5, 1} // inside every range
	if r := Summarize(edgeObjs, trials, StopDone, sp); edgeNoteOf(r) != "" {
		t.Errorf("notes %q for a recommendation inside the space", r.Notes)
	}

	// A trial of an older tune without coordinates: its parameters place it.
	trials[1].Point, trials[1].Params = nil, map[string]any{"max_num_seqs": float64(96),
		"max_num_batched_tokens": float64(4096), "gpu_memory_utilization": 0.5, "scheduler": "fcfs"}
	if got := edgeNoteOf(Summarize(edgeObjs, trials, StopDone, sp)); !strings.Contains(got, "max_num_seqs=96 is the largest") {
		t.Errorf("edge note %q for a trial with parameters only", got)
	}
}

// TestEdgeOfALogScaledGridIsItsLastStep: Log changes how the search samples, not the
// grid, so a log-scaled stepped range ends at its last step too.
func TestEdgeOfALogScaledGridIsItsLastStep(t *testing.T) {
	p := seqsParam
	p.Log = true
	sp := edgeSpace(t, p)
	trials := []rundir.Trial{edgeTrial(0, 40, nsga2.Point{32, 0, 0.5, 0}), edgeTrial(1, 102, nsga2.Point{96, 3, 0.5, 1})}
	if got := edgeNoteOf(Summarize(edgeObjs, trials, StopDone, sp)); !strings.Contains(got, "max_num_seqs=96 is the largest value its range allows (16 to 96 in steps of 16)") {
		t.Errorf("edge note %q: want max_num_seqs=96 at its top", got)
	}
}

// TestEdgeWonOnALaterObjectiveIsNotNoted: the grid's case, where at max_num_seqs 96 and
// max_num_batched_tokens 1024 both gpu_memory_utilization 0.5 and 0.9 keep 102 users
// and 0.9 wins on TTFT: the main objective does not rise toward 0.9's end, so only
// the other two parameters are named.
func TestEdgeWonOnALaterObjectiveIsNotNoted(t *testing.T) {
	sp := edgeSpace(t, seqsParam)
	inner := edgeTrial(0, 102, nsga2.Point{96, 1, 0.5, 0})
	inner.Objectives["ttft_p95_ms"] = 18.27
	top := edgeTrial(1, 102, nsga2.Point{96, 1, 0.9, 0})
	top.Objectives["ttft_p95_ms"] = 18.13
	r := Summarize(edgeObjs, []rundir.Trial{inner, top}, StopDone, sp)
	note := edgeNoteOf(r)
	if r.Recommended != 1 || strings.Contains(note, "gpu_memory_utilization") ||
		!strings.Contains(note, "max_num_seqs=96") || !strings.Contains(note, "max_num_batched_tokens=1024") {
		t.Errorf("recommended %d, edge note %q: want trial 1, without gpu_memory_utilization", r.Recommended, note)
	}
	inner.Capacity, inner.Objectives["users"] = 98, 98 // now the end does serve more
	if note := edgeNoteOf(Summarize(edgeObjs, []rundir.Trial{inner, top}, StopDone, sp)); !strings.Contains(note, "gpu_memory_utilization=0.9") {
		t.Errorf("edge note %q: want gpu_memory_utilization named once 0.5 keeps fewer users", note)
	}
}
