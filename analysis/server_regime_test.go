package analysis

import (
	"strings"
	"testing"
)

// TestRunningPlateauStandsInForTheLimit: with no configured running limit, two
// backlogged steps whose running batch stayed at 8 while the load doubled show the
// plateau: both are queues for slots (judged against 8), and the advice names the
// plateau instead of a fitted slot count.
func TestRunningPlateauStandsInForTheLimit(t *testing.T) {
	steps := []StepStats{stepWith(2, 20, 10, 0), stepWith(8, 22, 10, 0.1), stepWith(16, 300, 10, 8), stepWith(32, 900, 10, 24)}
	for i := range steps {
		steps[i].Server.RunningMean = min(steps[i].Load, 8)
		steps[i].Server.KVCacheUsageMax = 0.2
	}
	classifySteps(steps, regimeContext{dep: deployment{speedUp: 1}})
	for _, s := range steps[2:] {
		if s.Regime != RegimeQueue || s.QueueLimit != QueueBySlots || !strings.Contains(s.RegimeEvidence, "the running plateau of 8.0") {
			t.Errorf("load %v: %s/%q (%s), want a queue for slots at the plateau", s.Load, s.Regime, s.QueueLimit, s.RegimeEvidence)
		}
	}
	if s := steps[1]; s.Regime == RegimeQueue {
		t.Errorf("load 8 (waiting 0.1): %s (%s)", s.Regime, s.RegimeEvidence)
	}
	a := adviceFor(Capacity{Method: MethodMeasured, Bottleneck: RegimeQueue, QueueLimit: QueueBySlots},
		&SegmentAnalysis{Steps: steps, Fit: &Fit{Slots: 7.6}}, deployment{}, "H100-SXM")
	if !strings.Contains(a, "the about 8 requests the server ran at once at most (its running plateau") {
		t.Errorf("advice %q", a)
	}
}

// TestPrefillBacklogIsNotASlotQueue: requests waiting for the prefill budget (6.5
// waiting, 9.5 running, the KV cache at 10 %, prompts 4,000 tokens taking nearly all
// the server's time) are not a queue for slots, with or without a configured limit:
// the step is prefill-bound.
func TestPrefillBacklogIsNotASlotQueue(t *testing.T) {
	for _, dep := range []deployment{{speedUp: 8}, {speedUp: 8, runLimit: 256, runLimitSetting: "max_num_seqs", runLimitFrom: "run.json"}} {
		steps := []StepStats{stepWith(1, 16, 1.1, 0), stepWith(8, 35, 6.4, 0.7), stepWith(16, 119, 7.8, 6.5)}
		for i := range steps {
			s := &steps[i]
			s.PromptTokensMean, s.OutputTokensMean = 4000, 16
			s.LittleThroughputRps = map[float64]float64{1: 30, 8: 61, 16: 70}[s.Load]
			s.Server.RunningMean, s.Server.KVCacheUsageMax = map[float64]float64{1: 1, 8: 7.2, 16: 9.5}[s.Load], 0.1
		}
		classifySteps(steps, regimeContext{dep: dep})
		for _, s := range steps[1:] {
			if s.Regime != RegimePrefill {
				t.Errorf("limit %d, load %v: %s/%q (%s), want prefill", dep.runLimit, s.Load, s.Regime, s.QueueLimit, s.RegimeEvidence)
			}
		}
	}
}

// TestKVCacheQueueBelowTheSlotLimit: requests waiting with the KV cache full and 11 of
// 256 slots running are a queue for the KV cache; the same backlog with the cache at
// 30 % and the slots full is a queue for slots.
func TestKVCacheQueueBelowTheSlotLimit(t *testing.T) {
	dep := deployment{speedUp: 1, runLimit: 256, runLimitSetting: "max_num_seqs", runLimitFrom: "run.json"}
	for _, c := range []struct {
		running, kv float64
		want        QueueLimit
	}{{11, 0.99, QueueByKVCache}, {256, 0.3, QueueBySlots}} {
		steps := []StepStats{stepWith(2, 10, 2.2, 0), stepWith(300, 260, 3, 40)}
		steps[1].Server.RunningMean, steps[1].Server.KVCacheUsageMax = c.running, c.kv
		classifySteps(steps, regimeContext{dep: dep})
		if s := steps[1]; s.Regime != RegimeQueue || s.QueueLimit != c.want {
			t.Errorf("running %v, KV %v: %s/%q (%s), want queue/%s", c.running, c.kv, s.Regime, s.QueueLimit, s.RegimeEvidence, c.want)
		}
	}
}

// TestQueueAdviceWithoutKVGauge: a server whose scrapes have queue gauges but no KV
// cache usage (TGI) gets no claim about the KV cache's peak, only the advice to check
// it first.
func TestQueueAdviceWithoutKVGauge(t *testing.T) {
	sa := &SegmentAnalysis{Steps: []StepStats{stepWith(1, 20, 10, 0), stepWith(32, 900, 10, 16)}}
	a := adviceFor(Capacity{Method: MethodMeasured, Bottleneck: RegimeQueue, QueueLimit: QueueBySlots}, sa,
		deployment{engine: EngineTGI, runLimit: 16, runLimitSetting: "--max-batch-size", runLimitFrom: "target.launch.command"}, "H100-SXM")
	if !strings.Contains(a, "The server's metrics have no KV-cache usage") || strings.Contains(a, "peaked") ||
		!strings.Contains(a, "the 16 slots the server runs at once (--max-batch-size, from target.launch.command)") {
		t.Errorf("advice %q", a)
	}
}
