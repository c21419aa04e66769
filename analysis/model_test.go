package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// queueSim: 8 slots; the ladder goes well past them, so TTFT queues while ITL stays flat.
var queueSim = vsim{slots: 8, d0: 8, d1: 0.1, prefillPerTok: 0.02, prompt: 200, output: 100, jitter: true,
	warmupS: 5, windowS: 60, seed: 1}

// decodeSim: 256 slots never fill; ITL rises with the batch (memory-bandwidth bound decode).
var decodeSim = vsim{slots: 256, d0: 8, d1: 0.5, prefillPerTok: 0.02, prompt: 200, output: 100, jitter: true,
	warmupS: 5, windowS: 60, seed: 2}

func simPlan(name string, loads []int, sla plan.SLA) plan.Plan {
	return plan.Plan{Name: name, Seed: 7, Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: loads, Duration: time.Minute}, SLA: sla,
		Report: plan.Report{TargetUsers: []int{1000}, GPUHourUSD: 2, GPU: "H100-SXM"}}
}

func analyzeSim(t *testing.T, v vsim, p plan.Plan) *Analysis {
	t.Helper()
	a, err := Analyze(writeRunDir(t, metaFor(p), v.ladder(p), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var queueLadder = []int{2, 4, 8, 12, 16, 24, 32, 40, 48, 64}

func TestModelRecoveryQueueBound(t *testing.T) {
	p := simPlan("queue", queueLadder, plan.SLA{TTFTMs: map[string]float64{"p95": 3000}})
	a := analyzeSim(t, queueSim, p)
	sa := a.Segments[0]
	if sa.Fit == nil {
		t.Fatal("no fit")
	}
	f := sa.Fit
	t.Logf("slots %.2f [%.2f, %.2f] (true 8), X_max %.2f req/s, R² %.3f, reps %d",
		f.Slots, f.SlotsCILow, f.SlotsCIHigh, f.ServiceRate, f.R2, f.BootstrapReps)
	if math.Abs(f.Slots-8)/8 > 0.10 {
		t.Errorf("effective slots %.2f, want 8 ± 10%%", f.Slots)
	}
	if !(f.SlotsCILow <= f.Slots && f.Slots <= f.SlotsCIHigh) {
		t.Errorf("slots CI [%.2f, %.2f] excludes %.2f", f.SlotsCILow, f.SlotsCIHigh, f.Slots)
	}
	for _, s := range sa.Steps {
		if s.Load >= 16 && s.Regime != RegimeQueue {
			t.Errorf("load %v: regime %s (%s), want queue", s.Load, s.Regime, s.RegimeEvidence)
		}
	}
	c := sa.Capacity
	t.Logf("capacity %.1f [%.1f, %.1f] %s, %s-bound by %s", c.MaxConcurrencyWithinSLA, c.RangeLow, c.RangeHigh,
		c.Method, c.Bottleneck, c.LimitingConstraint)
	if (c.Method != MethodMeasured && c.Method != MethodInterpolated) || c.Bottleneck != RegimeQueue {
		t.Errorf("capacity method %s bottleneck %s, want measured or interpolated, queue", c.Method, c.Bottleneck)
	}
	if !(c.RangeLow <= c.MaxConcurrencyWithinSLA && c.MaxConcurrencyWithinSLA <= c.RangeHigh) {
		t.Errorf("capacity CI [%.1f, %.1f] excludes %.1f", c.RangeLow, c.RangeHigh, c.MaxConcurrencyWithinSLA)
	}
}

func TestModelRecoveryDecodeBound(t *testing.T) {
	p := simPlan("decode", []int{1, 2, 4, 8, 16, 32, 48, 64}, plan.SLA{ITLMs: map[string]float64{"p50": 25}})
	a := analyzeSim(t, decodeSim, p)
	sa := a.Segments[0]
	for _, s := range sa.Steps {
		t.Logf("load %v: ITL p50 %.1f TTFT mean %.1f regime %s", s.Load, s.ITLMs.P50, s.TTFTMs.Mean, s.Regime)
		if s.Load >= 16 && s.Regime != RegimeDecode {
			t.Errorf("load %v: regime %s (%s), want decode", s.Load, s.Regime, s.RegimeEvidence)
		}
	}
	c := sa.Capacity
	t.Logf("capacity %.1f [%.1f, %.1f] %s, %s-bound by %s; decode %.2f + %.3f·batch ms",
		c.MaxConcurrencyWithinSLA, c.RangeLow, c.RangeHigh, c.Method, c.Bottleneck, c.LimitingConstraint,
		sa.Fit.DecodeBaseMs, sa.Fit.DecodePerSeqMs)
	if c.Bottleneck != RegimeDecode {
		t.Errorf("bottleneck %s, want decode", c.Bottleneck)
	}
	near(t, "decode ms per sequence", sa.Fit.DecodePerSeqMs, 0.5, 0.1)
}

func TestModelPredictsUpperHalf(t *testing.T) {
	sla := plan.SLA{TTFTMs: map[string]float64{"p95": 3000}}
	full := analyzeSim(t, queueSim, simPlan("full", queueLadder, sla)).Segments[0]
	lowerLoads := queueLadder[:len(queueLadder)/2]
	lower := analyzeSim(t, queueSim, simPlan("lower", lowerLoads, sla)).Segments[0]
	cons := constraintsOf(sla)
	sf := fitSteps(lower.Steps, cons, nil)
	if !sf.ok {
		t.Fatal("lower-half fit failed")
	}
	cal := sf.eval.cal[statKey("ttft", "p95")]
	worst := 0.0
	for _, s := range full.Steps[len(lowerLoads):] {
		pred := sf.eval.m.predict(cal, "ttft", s.Load, sf.eval.m.lout)
		rel := (pred - s.TTFTMs.P95) / s.TTFTMs.P95
		worst = math.Max(worst, math.Abs(rel))
		t.Logf("load %v: TTFT p95 measured %.0f ms, predicted from the lower half %.0f ms (%+.1f%%)",
			s.Load, s.TTFTMs.P95, pred, 100*rel)
		if math.Abs(rel) > 0.15 {
			t.Errorf("load %v: prediction off by %.1f%% (> 15%%)", s.Load, 100*rel)
		}
	}
	mc, pc := full.Capacity.MaxConcurrencyWithinSLA, lower.Capacity.MaxConcurrencyWithinSLA
	t.Logf("max concurrency within SLA: measured %.2f (%s), predicted from the lower half %.2f (%s): %+.1f%%; worst TTFT p95 error %.1f%%",
		mc, full.Capacity.Method, pc, lower.Capacity.Method, 100*(pc-mc)/mc, 100*worst)
	if lower.Capacity.Method != MethodModel || math.Abs(pc-mc)/mc > 0.10 {
		t.Errorf("predicted capacity %.2f (%s) vs measured %.2f: off by more than 10%%", pc, lower.Capacity.Method, mc)
	}
}

// prefillSim: long prompts (4,000 tokens at 0.05 ms per token) and short replies with
// 256 free slots: every admission stalls the batch, so TTFT grows with prompt tokens in
// flight and ITL is inflated.
var prefillSim = vsim{slots: 256, d0: 8, d1: 0.1, prefillPerTok: 0.05, prompt: 4000, output: 20, jitter: true,
	warmupS: 5, windowS: 60, seed: 3}

func TestRegimePrefillBound(t *testing.T) {
	// TTFT p95 450 ms breaks at load 32 (mean 523 ms), a prefill-bound step.
	p := simPlan("prefill", []int{1, 2, 4, 8, 16, 32}, plan.SLA{TTFTMs: map[string]float64{"p95": 450}})
	sa := analyzeSim(t, prefillSim, p).Segments[0]
	for _, s := range sa.Steps {
		t.Logf("load %v: TTFT mean %.0f ITL mean %.1f regime %s: %s", s.Load, s.TTFTMs.Mean, s.ITLMs.Mean, s.Regime, s.RegimeEvidence)
		if s.Load >= 8 && s.Regime != RegimePrefill {
			t.Errorf("load %v: regime %s, want prefill", s.Load, s.Regime)
		}
	}
	t.Logf("capacity %.1f %s %s-bound", sa.Capacity.MaxConcurrencyWithinSLA, sa.Capacity.Method, sa.Capacity.Bottleneck)
	if sa.Capacity.Method != MethodMeasured || sa.Capacity.Bottleneck != RegimePrefill {
		t.Errorf("bottleneck %s, want prefill", sa.Capacity.Bottleneck)
	}
}
