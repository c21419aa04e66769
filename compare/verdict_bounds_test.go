package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// Verdict fixtures: every load of open16's ladder meets the SLA (capacity at least
// 16, no limit found); limited's TTFT grows with the load and fails between 32 and 64
// (an exact capacity above 16); small's fails at 4 (an exact capacity below 16).
func openRun(t *testing.T, name string, loads ...int) string {
	return fixture{name: name, loads: loads, itlMs: 20, ttftMs: flat(60)}.write(t)
}

func limitedRun(t *testing.T) string {
	return fixture{name: "limited", loads: []int{1, 8, 16, 32, 64}, itlMs: 20,
		ttftMs: func(c int) float64 { return 40 + 10*float64(c) }}.write(t)
}

func smallRun(t *testing.T) string {
	return fixture{name: "small", loads: []int{1, 2, 4, 8}, itlMs: 20,
		ttftMs: func(c int) float64 { return 50 * float64(c*c) }}.write(t)
}

func compareOf(t *testing.T, in ...Input) *Comparison {
	t.Helper()
	c, err := Compare(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantWords(t *testing.T, v Verdict, kind VerdictKind, words ...string) {
	t.Helper()
	t.Log(v.Sentence)
	if v.Kind != kind {
		t.Errorf("verdict kind %s, want %s: %q", v.Kind, kind, v.Sentence)
	}
	for _, w := range words {
		if !strings.Contains(v.Sentence, w) {
			t.Errorf("verdict %q lacks %q", v.Sentence, w)
		}
	}
}

// (a) The better run's capacity is a lower bound and the other's is exact and
// smaller: "at least F×", the figure marked as a lower bound.
func TestVerdictLowerBoundAboveExactIsAtLeast(t *testing.T) {
	c := compareOf(t, inputOf(t, "small", smallRun(t)), inputOf(t, "open", openRun(t, "open", 1, 8, 16)))
	if c.Runs[1].Bound != BoundLadder || c.Runs[0].Bound != BoundNone || c.Runs[1].HighestLoad != 16 {
		t.Fatalf("bounds %q / %q, highest load %g: want none for small, no limit in ladder at 16 for open",
			c.Runs[0].Bound, c.Runs[1].Bound, c.Runs[1].HighestLoad)
	}
	wantWords(t, c.Verdict, VerdictBetter, "open serves at least ", "× the "+c.Verdict.Unit+" of small", "every load tested, up to 16 concurrent requests, met the SLA")
}

// (b) A lower bound ranked below a larger exact capacity: no winner, the bounded run's
// figure is "at least N" and the advice is to extend its ladder.
func TestVerdictLowerBoundBelowExactHasNoWinner(t *testing.T) {
	open := inputOf(t, "open", openRun(t, "open", 1, 8, 16))
	lim := inputOf(t, "limited", limitedRun(t))
	for _, in := range [][]Input{{open, lim}, {lim, open}} {
		c := compareOf(t, in...)
		v := c.Verdict
		wantWords(t, v, VerdictLowerBound, "No winner: open's capacity is only known to be at least ",
			"every load tested, up to 16 concurrent requests, met the SLA",
			"Extend open's ladder beyond 16 concurrent requests (a higher ladder.search.max, or more ladder.concurrency steps)")
		if v.Better != "" || v.Factor != 0 || strings.Contains(v.Sentence, "×") {
			t.Errorf("verdict names a winner (%q, factor %g): %q", v.Better, v.Factor, v.Sentence)
		}
	}
}

// (c) Both capacities lower bounds: no ratio, extend both ladders.
func TestVerdictBothLowerBoundsHasNoRatio(t *testing.T) {
	c := compareOf(t, inputOf(t, "a", openRun(t, "a", 1, 8, 16)), inputOf(t, "b", openRun(t, "b", 1, 8, 16, 32)))
	v := c.Verdict
	wantWords(t, v, VerdictBothLowerBounds, "No ratio: b and a both met the SLA at every load tested", "Extend both ladders")
	if v.Factor != 0 || strings.Contains(v.Sentence, "×") {
		t.Errorf("two lower bounds given a ratio %g: %q", v.Factor, v.Sentence)
	}
}

// A model projection capped at 2× the highest load tested (method model, open-ended)
// is a capped projection, not "no limit within the ladder"; an interrupted run's
// lower bound says it was interrupted.
func TestVerdictNamesCappedProjectionAndInterruption(t *testing.T) {
	lim := inputOf(t, "limited", limitedRun(t))

	capped := inputOf(t, "capped", openRun(t, "capped", 1, 8, 16))
	o := &capped.Analysis.Overall
	o.Method, o.OpenEnded, o.RangeKind = analysis.MethodModel, true, analysis.RangePrediction
	o.MaxConcurrencyWithinSLA, o.RangeLow, o.RangeHigh = 32, 20, 32
	c := compareOf(t, capped, lim)
	if c.Runs[0].Bound != BoundModelCap || c.Runs[0].Basis != BasisModelled {
		t.Fatalf("capped projection: bound %q basis %s", c.Runs[0].Bound, c.Runs[0].Basis)
	}
	if c.Runs[0].Capacity > c.Runs[1].Capacity {
		wantWords(t, c.Verdict, VerdictBetter, "capped at 2× the highest load tested of 16 concurrent requests")
	} else {
		wantWords(t, c.Verdict, VerdictLowerBound, "capped at 2× the highest load tested of 16 concurrent requests")
	}
	if strings.Contains(c.Verdict.Sentence, "no limit within") {
		t.Errorf("a capped projection called no limit within the ladder: %q", c.Verdict.Sentence)
	}

	intr := inputOf(t, "intr", openRun(t, "intr", 1, 8, 16))
	intr.Analysis.RunState, intr.Analysis.StepsCompleted, intr.Analysis.StepsPlanned = "interrupted", 3, 5
	c = compareOf(t, intr, lim)
	wantWords(t, c.Verdict, VerdictLowerBound, "the run was interrupted after 3 of 5 steps", "llmcap sweep --resume")
	if strings.Contains(c.Verdict.Sentence, "no limit within") {
		t.Errorf("an interrupted run called no limit within the ladder: %q", c.Verdict.Sentence)
	}
}

// (d) The factor is the ratio of exactly the two figures the sentence shows.
func TestVerdictFactorIsRatioOfShownFigures(t *testing.T) {
	runs := []RunSummary{
		{Label: "a", Schedule: plan.ScheduleConcurrency, Capacity: 2.58, RangeLow: 2, RangeHigh: 3, Basis: BasisModelled},
		{Label: "b", Schedule: plan.ScheduleConcurrency, Capacity: 16, RangeLow: 16, RangeHigh: 31, Basis: BasisMeasured},
	}
	v := verdictOf(runs)
	wantWords(t, v, VerdictBetter, "b serves 6.4× the concurrent requests of a within the SLA (16 against 2.5)")
	if v.Factor != 16/2.5 {
		t.Errorf("factor %g, want 16 / 2.5 (the figures shown)", v.Factor)
	}
}

// With think time the verdict counts users; the overlap clause names the unit of each
// range (the concurrency ladder's), never showing concurrency as users.
func TestVerdictOverlapRangesNameTheirUnit(t *testing.T) {
	runs := []RunSummary{
		{Label: "a", Schedule: plan.ScheduleConcurrency, Capacity: 12, RangeLow: 8, RangeHigh: 15, Basis: BasisModelled, UsersWithThinkTime: 120},
		{Label: "b", Schedule: plan.ScheduleConcurrency, Capacity: 14, RangeLow: 10, RangeHigh: 20, Basis: BasisModelled, UsersWithThinkTime: 140},
	}
	v := verdictOf(runs)
	wantWords(t, v, VerdictUncertain, "(140 against 120)", "(10–20 concurrent requests and 8–15 concurrent requests)")
}

// Runs on different schedules share no load axis: Compare refuses them, naming each
// run and its schedule.
func TestCompareRefusesDifferentSchedules(t *testing.T) {
	conc := inputOf(t, "conc", openRun(t, "conc", 1, 8))
	rate := inputOf(t, "rate", openRun(t, "rate", 1, 8))
	rate.Analysis.Schedule = plan.ScheduleRate
	_, err := Compare([]Input{conc, rate}, Options{})
	var se *ScheduleMismatchError
	if !errors.As(err, &se) {
		t.Fatalf("different schedules: err %v, want a *ScheduleMismatchError", err)
	}
	for _, w := range []string{"share no load axis", "conc (" + conc.Dir + ") is a concurrency ladder", "rate (" + rate.Dir + ") is a request-rate ladder"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	users := inputOf(t, "users", openRun(t, "users", 1, 8))
	users.Analysis.Schedule = plan.ScheduleUsers
	if _, err := Compare([]Input{conc, users}, Options{}); !errors.As(err, &se) || !strings.Contains(err.Error(), "a users ladder") {
		t.Errorf("concurrency against users: err %v, want refused naming the users ladder", err)
	}
	if _, err := Compare([]Input{conc, inputOf(t, "conc2", openRun(t, "conc2", 1, 8))}, Options{}); err != nil {
		t.Errorf("two concurrency ladders refused: %v", err)
	}
}

// A label given twice says how to fix it.
func TestRepeatedLabelSaysHowToFix(t *testing.T) {
	a := inputOf(t, "A", openRun(t, "a", 1, 8))
	_, err := Compare([]Input{a, a}, Options{})
	if err == nil || !strings.Contains(err.Error(), "--labels a,b") {
		t.Errorf("repeated label: err %v, want it to suggest --labels a,b", err)
	}
}

// Two equal exact capacities are still "no difference".
func TestVerdictEqualExactCapacitiesAreTheSame(t *testing.T) {
	r := RunSummary{Schedule: plan.ScheduleConcurrency, Capacity: 24, RangeLow: 16, RangeHigh: 31, Basis: BasisMeasured}
	a, b := r, r
	a.Label, b.Label = "a", "b"
	wantWords(t, verdictOf([]RunSummary{a, b}), VerdictSame, "no difference")
}
