package analysis

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestClosedLoopFirstStepQueued: a concurrency ladder whose lowest step (32 in flight
// on a server with 4 slots) already queues misses the SLA because that load saturates
// the server, not because the SLA is tighter than the idle latency. Seen by eyesA
// (issue 15): `--concurrency 32,64 --set target.simulator.max_num_seqs=4` on the demo
// plan printed "the SLA is stricter than this deployment's response time even when it
// is nearly idle", "more replicas cannot help" and "serves no users" on page 1, while
// the step's own regime was queue (TTFT p50 4.7 s, ITL 8.5 ms flat).
func TestClosedLoopFirstStepQueued(t *testing.T) {
	first := StepStats{Step: 0, Schedule: plan.ScheduleConcurrency, Concurrency: 32, Load: 32, Regime: RegimeQueue}
	below := Capacity{Method: MethodBelowFirstStep, Bottleneck: RegimeNone, LimitingConstraint: "TTFT p95 ≤ 500 ms"}
	if !saturatedBelowFirst(below, []StepStats{first}) {
		t.Errorf("a closed-loop first step in the queue regime is not flagged as saturated")
	}
	sa := &SegmentAnalysis{Segment: "mix", Steps: []StepStats{first}}
	below.FirstStepSaturated = saturatedBelowFirst(below, sa.Steps)
	advice := adviceFor(below, sa, deployment{}, "H100-SXM")
	if strings.Contains(advice, "more replicas cannot help") {
		t.Errorf("advice for a queued first step says more replicas cannot help: %q", advice)
	}
	if w := limitWords(&Analysis{Schedule: plan.ScheduleConcurrency}, below, sa, deployment{}); strings.Contains(w, "nearly idle") {
		t.Errorf("what limits it, for a first step that queues 28 requests: %q", w)
	}
}
