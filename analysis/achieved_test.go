package analysis

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// longSim: 500-token replies at about 8 ms per token, so E2E ≈ 4 s, a third of a 12 s
// window, with no warm-up: many requests are still in flight when the window closes.
var longSim = vsim{slots: 64, d0: 8, d1: 0.01, prompt: 200, output: 500, windowS: 12, seed: 11}

// openRun simulates an open-loop ladder of one segment and analyses it.
func openRun(t *testing.T, v vsim, rates []float64) *Analysis {
	t.Helper()
	return openRunSLA(t, v, rates, 1e7)
}

// openRunSLA is openRun with a TTFT p95 bound of ttftMs.
func openRunSLA(t *testing.T, v vsim, rates []float64, ttftMs float64) *Analysis {
	t.Helper()
	p := plan.Plan{Name: "open", Seed: 3, Segments: []plan.Segment{{Name: "longout", Weight: 1}},
		Ladder: plan.Ladder{Rate: rates, Duration: time.Duration(v.windowS * float64(time.Second))},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": ttftMs}, ThinkTime: 10 * time.Second},
		Report: plan.Report{TargetUsers: []int{1000}}}
	var recs []rundir.Record
	for _, s := range p.Steps() {
		recs = append(recs, v.stepOpen(s.Index, s.Segment, s.Rate)...)
	}
	return mustAnalyze(t, metaFor(p), recs)
}

// TestAchievedRateKeepsUpWithLongE2E: a server that keeps up achieves its offered rate
// even when E2E is a large share of the window (the old estimator counted only the
// completions before the last send that ended in the window: about 0.5 of 2 req/s).
func TestAchievedRateKeepsUpWithLongE2E(t *testing.T) {
	for _, windowS := range []float64{12, 20} {
		v := longSim
		v.windowS = windowS
		a := openRun(t, v, []float64{1, 2})
		sa := a.Segments[0]
		for _, s := range sa.Steps {
			t.Logf("window %v s, rate %v: sent %.2f achieved %.2f, E2E %.0f ms", windowS, s.Rate, s.sentRateRps,
				s.AchievedRateRps, s.E2EMs.Mean)
			if s.E2EMs.Mean < 3500 {
				t.Fatalf("E2E %.0f ms: not the long-E2E case", s.E2EMs.Mean)
			}
			if s.AchievedRateRps < achievedShortFrac*s.sentRateRps || s.LittleThroughputRps != s.Rate {
				t.Errorf("window %v s, rate %v kept up: achieved %.3f of %.3f sent, throughput %.3f",
					windowS, s.Rate, s.AchievedRateRps, s.sentRateRps, s.LittleThroughputRps)
			}
		}
		c := sa.Capacity
		if c.MaxRateWithinSLA != 2 || c.OfferedRateRps != 0 {
			t.Errorf("window %v s: capacity %.3f req/s (offered %.3f), want 2", windowS, c.MaxRateWithinSLA, c.OfferedRateRps)
		}
	}
}

// TestAchievedRateFindsTheServiceRate: with 4 slots a 4 s request leaves about
// 4/4.05 ≈ 1 req/s of service; offered 2 and 3 req/s, the server falls behind, and the
// achieved rate is its service rate whatever the window.
func TestAchievedRateFindsTheServiceRate(t *testing.T) {
	for _, windowS := range []float64{12, 60} {
		v := longSim
		v.slots, v.windowS = 4, windowS
		a := openRun(t, v, []float64{2, 3})
		for _, s := range a.Segments[0].Steps {
			t.Logf("window %v s, rate %v: sent %.2f achieved %.2f", windowS, s.Rate, s.sentRateRps, s.AchievedRateRps)
			name := fmt.Sprintf("window %v s, rate %v: achieved", windowS, s.Rate)
			near(t, name, s.AchievedRateRps, 4/4.05, 0.15)
			near(t, name+" = throughput", s.LittleThroughputRps, s.AchievedRateRps, 0)
		}
	}
}

// TestSaturatedFirstRateIsNotCalledUnloaded: a server that cannot keep up with the
// lowest rate tested misses the SLA because it is saturated; the answer says so and
// asks for lower rates (it said "the SLA is below the unloaded latency … no number of
// replicas meets it").
func TestSaturatedFirstRateIsNotCalledUnloaded(t *testing.T) {
	v := longSim
	v.slots, v.windowS = 4, 30
	a := openRunSLA(t, v, []float64{2, 3}, 500)
	c := a.Overall
	t.Logf("answer: %s\nadvice: %s", a.Answer, c.Advice)
	if c.Method != MethodBelowFirstStep || !c.FirstStepSaturated || !strings.Contains(c.BottleneckEvidence, saturatedFirstStep) || !strings.Contains(a.Answer, "cannot keep up") ||
		!strings.Contains(a.Answer, "test lower rates") || strings.Contains(a.Answer, "unloaded") ||
		strings.Contains(a.Answer, "no number of replicas") || strings.Contains(c.Advice, "cannot help") {
		t.Errorf("capacity %+v\nanswer %q", c, a.Answer)
	}
}
