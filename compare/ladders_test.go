package compare

import (
	"slices"
	"testing"
)

// Runs with different ladders are compared at the loads both measured, and the plan
// diff shows the ladders (and the engine setting) side by side.
func TestDifferentLaddersCompareAtCommonLoadsOnly(t *testing.T) {
	a := fixture{name: "x", loads: []int{1, 8, 16}, itlMs: 20, ttftMs: flat(60),
		set: map[string]any{"target.simulator.max_num_seqs": 32}}.write(t)
	b := fixture{name: "x", loads: []int{1, 4, 16, 32}, itlMs: 20, ttftMs: flat(60),
		set: map[string]any{"target.simulator.max_num_seqs": 128}}.write(t)
	c, err := Compare([]Input{inputOf(t, "a", a), inputOf(t, "b", b)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Loads) != 1 || !slices.Equal(c.Loads[0].Loads, []float64{1, 16}) {
		t.Fatalf("common loads %+v, want default at 1 and 16", c.Loads)
	}
	var loads []float64
	for _, d := range c.Deltas {
		loads = append(loads, d.Load)
	}
	if !slices.Equal(loads, []float64{1, 16}) {
		t.Errorf("delta rows at %v, want 1 and 16 only", loads)
	}
	want := map[string][]string{"ladder.concurrency": {"[1, 8, 16]", "[1, 4, 16, 32]"},
		"target.simulator.max_num_seqs": {"32", "128"}}
	for _, f := range c.PlanDiff {
		if w, ok := want[f.Path]; ok {
			if !slices.Equal(f.Values, w) {
				t.Errorf("plan diff %s = %v, want %v", f.Path, f.Values, w)
			}
			delete(want, f.Path)
		} else {
			t.Errorf("plan diff lists %s = %v, which is not what differs", f.Path, f.Values)
		}
	}
	for k := range want {
		t.Errorf("plan diff lacks %s: %+v", k, c.PlanDiff)
	}
	if c.Runs[0].Capacity != 16 || c.Runs[1].Capacity != 32 {
		t.Errorf("capacities %g and %g, want each run's own top load (16, 32)", c.Runs[0].Capacity, c.Runs[1].Capacity)
	}
}
