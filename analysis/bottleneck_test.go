package analysis

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
)

// TestBottleneckFollowsBindingMetric: without a model fit, the bottleneck follows the
// metric of the typed bound that binds (ITL → decode, TTFT or TTFO → queue), whatever
// the binding constraint's text says; no bound (the model's saturation bound) names no
// bottleneck.
func TestBottleneckFollowsBindingMetric(t *testing.T) {
	itl := sla.Bound{Metric: sla.ITL, Stat: sla.P95, Threshold: 50}
	ttft := sla.Bound{Metric: sla.TTFT, Stat: sla.P95, Threshold: 500}
	ttfo := sla.Bound{Metric: sla.TTFO, Stat: sla.P99, Threshold: 800}
	steps := []StepStats{{Step: 0, Load: 1, Regime: RegimeNone}, {Step: 1, Load: 4, Regime: RegimeNone}}
	for _, c := range []struct {
		binding string
		bound   sla.Bound
		want    Regime
		ev      string
	}{
		{constraintName(itl.Constraint()), itl, RegimeDecode, "ITL constraint binds"},
		{constraintName(ttft.Constraint()), ttft, RegimeQueue, "TTFT constraint binds"},
		{constraintName(ttfo.Constraint()), ttfo, RegimeQueue, "TTFT constraint binds"},
		// The text names ITL, the bound is TTFT: the typed bound decides.
		{constraintName(itl.Constraint()), ttft, RegimeQueue, "TTFT constraint binds"},
		{saturatedName, sla.Bound{}, RegimeNone, "no bottleneck reached"},
	} {
		r := capResult{method: MethodMeasured, binding: c.binding, bound: c.bound, value: 2, pass: 0, fail: 1}
		b := bottleneckOf(r, steps, regimeContext{})
		got, ev := b.regime, b.evidence
		if got != c.want || ev != c.ev {
			t.Errorf("binding %q bound %v: bottleneck %s (%q), want %s (%q)", c.binding, c.bound, got, ev, c.want, c.ev)
		}
	}
}

// TestSaturatedFirstStepIsTyped: the advice and the answer for an SLA missed at the
// lowest load follow Capacity.FirstStepSaturated, not the wording of the evidence: the
// same evidence text gives the "test lower rates" verdict only with the flag set, and
// the flag gives it whatever the evidence says.
func TestSaturatedFirstStepIsTyped(t *testing.T) {
	sa := &SegmentAnalysis{Segment: "chat", Steps: []StepStats{{Step: 0, Load: 2, Schedule: plan.ScheduleRate, Rate: 2}}}
	p := &plan.Plan{Ladder: plan.Ladder{Rate: []float64{2}}}
	for _, c := range []struct {
		saturated bool
		evidence  string
	}{
		{true, "reworded: the replica is swamped at 2 req/s"},
		{false, saturatedFirstStep + " (it completed 1.00 of 2.00 requests/s offered)"},
	} {
		capa := Capacity{Method: MethodBelowFirstStep, Bottleneck: RegimeNone, FirstStepSaturated: c.saturated,
			BottleneckEvidence: c.evidence, LimitingConstraint: "TTFT p95 ≤ 500 ms"}
		advice := adviceFor(capa, sa, deployment{}, "H100-SXM")
		capa.Advice = advice
		a := &Analysis{Schedule: plan.ScheduleRate, Plan: *p, Overall: capa, Segments: []SegmentAnalysis{*sa}}
		answer := answerSentence(a, sizingOf(p))
		lower := strings.Contains(advice, "cannot keep up even with the lowest rate tested") &&
			strings.Contains(answer, "test lower rates to find what one replica serves")
		tighter := strings.Contains(advice, "more replicas cannot help") && strings.Contains(answer, "no number of replicas meets it")
		if c.saturated != lower || c.saturated == tighter {
			t.Errorf("saturated %v, evidence %q:\nadvice %q\nanswer %q", c.saturated, c.evidence, advice, answer)
		}
	}
}

// TestSaturatedBelowFirst: FirstStepSaturated is set for an SLA missed at the lowest
// load of an open loop the server could not keep up with, and only then.
func TestSaturatedBelowFirst(t *testing.T) {
	sat := StepStats{Schedule: plan.ScheduleRate, Rate: 4, AchievedRateRps: 2.5, LittleThroughputRps: 2.5}
	kept := StepStats{Schedule: plan.ScheduleRate, Rate: 4, AchievedRateRps: 4, LittleThroughputRps: 4}
	closed := StepStats{Schedule: plan.ScheduleConcurrency, Concurrency: 1, Load: 1}
	below := Capacity{Method: MethodBelowFirstStep, Bottleneck: RegimeNone}
	for _, c := range []struct {
		c     Capacity
		first StepStats
		want  bool
	}{
		{below, sat, true},
		{below, kept, false},
		{below, closed, false},
		{Capacity{Method: MethodBelowFirstStep, Bottleneck: RegimeErrors}, sat, false},
		{Capacity{Method: MethodMeasured, Bottleneck: RegimeQueue}, sat, false},
	} {
		if got := saturatedBelowFirst(c.c, []StepStats{c.first}); got != c.want {
			t.Errorf("%s/%s, first step %+v: %v, want %v", c.c.Method, c.c.Bottleneck, c.first, got, c.want)
		}
	}
	if saturatedBelowFirst(below, nil) {
		t.Error("no steps: not saturated")
	}
}
