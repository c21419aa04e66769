package analysis

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/llmcap/llmcap/capsearch"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// runSim sweeps p on the embedded simulator and analyses its one segment; late reports
// a step where the simulator ran late (no evidence: the caller skips).
func runSim(t *testing.T, p *plan.Plan) (sa *SegmentAnalysis, late bool) {
	t.Helper()
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Probe: Probe}); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	sa = &a.Segments[0]
	for _, s := range sa.Steps {
		late = late || s.SimulatorLate
	}
	return sa, late
}

// denseCapacity is the largest load of a dense ladder below its first failing step.
func denseCapacity(steps []StepStats) float64 {
	c := 0.0
	for _, s := range steps {
		if !s.MeetsSLA {
			break
		}
		c = s.Load
	}
	return c
}

// TestSearchMatchesADenseLadderOffTheQueue: on the simulator in a decode-bound and a
// prefill-bound configuration (slots free, nothing waits), the capacity search over
// concurrency finds a capacity within ±10% of a dense ladder the test measures around
// it, with the right bottleneck.
func TestSearchMatchesADenseLadderOffTheQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the simulator through two searches and two dense ladders")
	}
	for _, tc := range []struct {
		name   string
		p      func() *plan.Plan
		dense  []int
		regime Regime
	}{
		{"decode", decodeBoundPlan, []int{32, 35, 38, 40, 42, 45, 48}, RegimeDecode},
		{"prefill", prefillBoundPlan, []int{8, 9, 10, 11, 12, 13, 14, 16}, RegimePrefill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p()
			p.Ladder.Concurrency = nil
			p.Ladder.Search = &plan.Search{Over: plan.SearchConcurrency, Start: 1, Max: 512, Tolerance: 0.05,
				MaxSteps: 8, Growth: 4}
			sa, late := runSim(t, p)
			d := tc.p()
			d.Ladder.Concurrency = tc.dense
			dense, lateDense := runSim(t, d)
			if late || lateDense {
				t.Skip("the simulator ran late in a step: the machine is too loaded to judge")
			}
			c, s := sa.Capacity, sa.Search
			truth := denseCapacity(dense.Steps)
			var path []string
			for _, pt := range s.Path {
				path = append(path, fmt.Sprintf("%g%s", pt.Load, map[bool]string{true: "✓", false: "✗"}[pt.Pass]))
			}
			t.Logf("%s: search %d steps %v (%s): capacity %g (%s) range %g–%g, %s; dense ladder %v: %g; doubling+bisection: %d steps",
				tc.name, s.Steps, path, s.Stop, c.MaxConcurrencyWithinSLA, c.Method, c.RangeLow, c.RangeHigh, c.Bottleneck,
				tc.dense, truth, doublingBisection(truth, 0.05))
			if truth == 0 || math.Abs(c.MaxConcurrencyWithinSLA-truth) > 0.1*truth {
				t.Errorf("search capacity %g vs dense %g: off by more than 10%%", c.MaxConcurrencyWithinSLA, truth)
			}
			if c.Bottleneck != tc.regime {
				t.Errorf("bottleneck %s (%s), want %s", c.Bottleneck, c.BottleneckEvidence, tc.regime)
			}
			if s.Stop != capsearch.StopAdjacent && s.Stop != capsearch.StopTolerance {
				t.Errorf("search stopped %q: want a narrow bracket", s.Stop)
			}
		})
	}
}

// doublingBisection is how many steps doubling from 1 then bisecting takes to bracket
// a capacity k within tol, given the same verdicts (pass iff load ≤ k).
func doublingBisection(k, tol float64) int {
	cfg := plan.Search{Over: plan.SearchConcurrency, Start: 1, Max: 512, Tolerance: tol, MaxSteps: 40, Growth: 2}
	var trials []capsearch.Trial
	for {
		d := capsearch.Next(cfg, trials, capsearch.Guide{})
		if d.Stop != capsearch.StopNone {
			return len(trials)
		}
		trials = append(trials, capsearch.Trial{Load: d.Load, Pass: d.Load <= k})
	}
}
