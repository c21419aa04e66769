package analysis

import (
	"strings"
	"testing"
)

// TestQueueWordsOnACPUWithAnEmptyCache: a CPU server whose scraped KV cache stayed
// empty is told to raise its slots before buying more machines (not GPUs), and its
// cache "stayed under 1% full", never "peaked at only 0%".
func TestQueueWordsOnACPUWithAnEmptyCache(t *testing.T) {
	steps := []StepStats{stepWith(1, 20, 10, 0), stepWith(8, 900, 10, 4)}
	for i := range steps {
		steps[i].Server.KVCacheUsageMax, steps[i].Server.kvSeen = 0, true
	}
	sa := &SegmentAnalysis{Steps: steps}
	dep := deployment{runLimit: 4, runLimitSetting: "max_num_seqs", runLimitFrom: "run.json"}
	c := Capacity{Method: MethodInterpolated, Bottleneck: RegimeQueue}
	advice := adviceFor(c, sa, dep, "2-core CPU")
	if !strings.Contains(advice, "The KV cache stayed under 1% full with no preemptions") || !strings.Contains(advice, "before buying more machines") ||
		strings.Contains(advice, "GPUs") {
		t.Errorf("CPU advice %q", advice)
	}
	action := regimeAction(RegimeQueue, QueueBySlots, sa, dep, true)
	if !strings.Contains(action, "its memory for conversations stayed under 1% full, so there is room") || strings.Contains(action, " 0%") {
		t.Errorf("CPU action %q", action)
	}
	if got := adviceFor(c, sa, dep, "H100-SXM"); !strings.Contains(got, "before buying more GPUs") {
		t.Errorf("GPU advice %q", got)
	}
}
