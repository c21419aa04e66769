package capsearch

import (
	"math"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

func cfg(over string) plan.Search {
	s := plan.Search{Over: over, Tolerance: 0.01}
	(&s).Start, s.Max, s.MaxSteps, s.Growth = 1, 4096, 12, 4
	return s
}

// run drives Next against a server that passes every load ≤ k, with a guide that
// predicts guess(trials) (nil: no model), and returns the trials and the final decision.
func run(t *testing.T, c plan.Search, k float64, guess func([]Trial) (float64, bool)) ([]Trial, Decision) {
	t.Helper()
	var trials []Trial
	for range 50 {
		g := Guide{}
		if guess != nil {
			g.Capacity, g.OK = guess(trials)
		}
		d := Next(c, trials, g)
		if d.Stop != StopNone {
			return trials, d
		}
		tr := Trial{Load: d.Load, Pass: d.Load <= k, Guided: d.Guided}
		if d.Guided {
			tr.Predicted = g.Capacity
		}
		trials = append(trials, tr)
	}
	t.Fatalf("search did not stop: %+v", trials)
	return nil, Decision{}
}

func TestSearchWithoutModelBracketsByGrowthThenBisection(t *testing.T) {
	c := cfg(plan.SearchConcurrency)
	c.MaxSteps, c.Tolerance = 40, 0
	for _, k := range []float64{1, 2, 7, 37, 100, 1000} {
		trials, d := run(t, c, k, nil)
		if d.Pass != k || d.Fail != k+1 || d.Stop != StopAdjacent {
			t.Errorf("K=%g: bracket [%g, %g) stop %s after %d steps, want [%g, %g) adjacent", k, d.Pass, d.Fail, d.Stop, len(trials), k, k+1)
		}
	}
}

func TestSearchGuidedByAnExactModelNeedsFewSteps(t *testing.T) {
	for _, k := range []float64{3, 7, 37, 100, 1000} {
		exact := func(tr []Trial) (float64, bool) { return k + 0.4, len(tr) >= 2 }
		trials, d := run(t, cfg(plan.SearchConcurrency), k, exact)
		if d.Pass != k || d.Fail != k+1 {
			t.Fatalf("K=%g: bracket [%g, %g)", k, d.Pass, d.Fail)
		}
		blind := cfg(plan.SearchConcurrency)
		blind.MaxSteps = 40
		blindTrials, _ := run(t, blind, k, nil)
		if len(trials) > 7 || len(trials) >= len(blindTrials) {
			t.Errorf("K=%g: %d guided steps (%v), %d blind", k, len(trials), trials, len(blindTrials))
		}
	}
}

func TestSearchSurvivesAWrongModel(t *testing.T) {
	// A model that is always 3× too optimistic must not stop the search from
	// converging: after two mispredictions it bisects.
	k := 50.0
	wrong := func(tr []Trial) (float64, bool) { return 3 * k, len(tr) >= 1 }
	_, d := run(t, cfg(plan.SearchConcurrency), k, wrong)
	if d.Pass != k || d.Fail != k+1 {
		t.Errorf("bracket [%g, %g), want [50, 51)", d.Pass, d.Fail)
	}
}

func TestSearchStopsAtMaxAndBelowMin(t *testing.T) {
	c := cfg(plan.SearchConcurrency)
	c.Max = 64
	_, d := run(t, c, 1e6, nil)
	if d.Stop != StopMaxLoad || d.Pass != 64 {
		t.Errorf("all passing: stop %s pass %g, want max_load at 64", d.Stop, d.Pass)
	}
	c = cfg(plan.SearchConcurrency)
	c.Start = 16
	trials, d := run(t, c, 0, nil)
	if d.Stop != StopBelowStart || trials[len(trials)-1].Load != 1 {
		t.Errorf("all failing: stop %s after %v, want below_min after measuring 1", d.Stop, trials)
	}
}

func TestSearchRateStopsWithinTolerance(t *testing.T) {
	c := cfg(plan.SearchRate)
	c.Tolerance = 0.05
	c.Max = 1000
	_, d := run(t, c, 13.7, nil)
	if d.Stop != StopTolerance || d.Pass > 13.7 || d.Fail <= 13.7 || (d.Fail-d.Pass)/d.Fail > 0.05 {
		t.Errorf("rate bracket [%g, %g) stop %s", d.Pass, d.Fail, d.Stop)
	}
}

func TestSearchStopsAtMaxSteps(t *testing.T) {
	c := cfg(plan.SearchConcurrency)
	c.MaxSteps = 3
	trials, d := run(t, c, 1000, nil)
	if d.Stop != StopMaxSteps || len(trials) != 3 {
		t.Errorf("stop %s after %d steps, want max_steps after 3", d.Stop, len(trials))
	}
}

func TestUnreliableTrialsAreNoEvidence(t *testing.T) {
	c := cfg(plan.SearchConcurrency)
	tr := []Trial{{Load: 1, Pass: true}, {Load: 4, Unreliable: true}}
	if p, f := Bracket(tr); p != 1 || f != 0 {
		t.Errorf("bracket [%g, %g), want [1, none)", p, f)
	}
	if d := Next(c, tr, Guide{}); d.Load != 4 || d.Stop != StopNone {
		t.Errorf("next after an unreliable step at 4: %g (stop %q), want 4 again", d.Load, d.Stop)
	}
}

// TestSearchDoesNotCrawlBehindAnUnderestimatingModel: a model that always puts the
// capacity at the last passing load (it underestimates) must not make the search crawl
// one load at a time: it reaches the bracket in at most one step more than blind
// bisection (the step that found it out).
func TestSearchDoesNotCrawlBehindAnUnderestimatingModel(t *testing.T) {
	c := cfg(plan.SearchUsers)
	c.Start, c.Growth, c.MaxSteps = 25, 4, 30
	k := 317.0
	lagging := func(tr []Trial) (float64, bool) {
		pass, _ := Bracket(tr)
		return pass + 0.5, len(tr) >= 2
	}
	trials, d := run(t, c, k, lagging)
	blindTrials, _ := run(t, c, k, nil)
	if d.Pass > k || d.Fail <= k || len(trials) > len(blindTrials)+1 {
		t.Errorf("bracket [%g, %g) after %d steps %v; blind bisection took %d", d.Pass, d.Fail, len(trials), trials, len(blindTrials))
	}
}

// TestSecantBeatsBisectionOnASmoothMetric: without a model, a bracket on a metric that
// grows smoothly with the load is narrowed by the secant of the measured ratios in
// fewer steps than bisection would take.
func TestSecantBeatsBisectionOnASmoothMetric(t *testing.T) {
	c := cfg(plan.SearchUsers)
	c.Start, c.MaxSteps, c.Tolerance = 25, 30, 0.02
	k := 333.0
	ratio := func(load float64) float64 { return math.Exp(2 * (load - k) / k) } // 1 at K
	steps := func(withRatio bool) int {
		var trials []Trial
		for {
			d := Next(c, trials, Guide{})
			if d.Stop != StopNone {
				if d.Pass > k || d.Fail <= k {
					t.Fatalf("bracket [%g, %g) misses %g", d.Pass, d.Fail, k)
				}
				return len(trials)
			}
			tr := Trial{Load: d.Load, Pass: d.Load <= k}
			if withRatio {
				tr.Ratio = ratio(d.Load)
			}
			trials = append(trials, tr)
		}
	}
	sec, bis := steps(true), steps(false)
	t.Logf("secant %d steps, bisection %d", sec, bis)
	if sec >= bis {
		t.Errorf("secant %d steps, bisection %d: want fewer", sec, bis)
	}
}

// TestSecantDoesNotStallOnTheFailingSide: on a metric that explodes towards saturation
// (convex), regula falsi alone keeps landing just below the failing load; after two
// failures in a row the search halves the bracket, so it converges within the budget.
func TestSecantDoesNotStallOnTheFailingSide(t *testing.T) {
	c := cfg(plan.SearchRate)
	c.Start, c.Max, c.MaxSteps, c.Tolerance = 5, 1000, 10, 0.05
	const sat = 180.0                                                         // the saturation rate
	ratio := func(x float64) float64 { return 0.3 / math.Max(1-x/sat, 0.01) } // ∞ at saturation
	k := 0.7 * sat                                                            // where the ratio is 1
	var trials []Trial
	for {
		d := Next(c, trials, Guide{})
		if d.Stop != StopNone {
			if d.Stop == StopMaxSteps || d.Pass > k || d.Fail <= k {
				t.Errorf("stop %s with bracket [%g, %g) after %v", d.Stop, d.Pass, d.Fail, trials)
			}
			return
		}
		trials = append(trials, Trial{Load: d.Load, Pass: ratio(d.Load) <= 1, Ratio: ratio(d.Load)})
	}
}
