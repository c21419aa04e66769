package analysis

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// bottleneckPlan is a short closed-loop ladder against the embedded simulator: prompts
// drawn from prompt, outputs drawn uniformly within ±25 % of output tokens
// (ignore_eos), the server scraped every 50 ms.
func bottleneckPlan(name string, sim plan.Simulator, prompt plan.Dist, output float64, loads []int, window time.Duration, spec plan.SLA) *plan.Plan {
	return &plan.Plan{
		Name: name, Seed: 13,
		Target: plan.Target{URL: plan.TargetSimulator, API: "chat", Model: sim.Model,
			ExtraBody: map[string]any{"ignore_eos": true}, Simulator: sim, MetricsInterval: 50 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1,
			PromptTokens: prompt,
			OutputTokens: plan.Dist{Kind: plan.DistUniform, Min: output * 3 / 4, Max: output * 5 / 4}}},
		Ladder: plan.Ladder{Concurrency: loads, Warmup: plan.Warmup{Duration: 300 * time.Millisecond},
			Duration: window, Grace: 10 * time.Second},
		SLA:    spec,
		Report: plan.Report{TargetUsers: []int{1000}, GPUHourUSD: 2.5},
	}
}

// decodeBoundPlan is a decode-bound simulator configuration: granite-350m on the
// synthetic cpu-slow device, whose decode turns compute-bound above a batch of about 15
// (ITL about 20 ms real time up to there, then 1.2 ms more per sequence), with
// max_num_seqs 256 (never full), 16-token prompts and 48–80-token outputs (prompts a
// quarter of the output), at speed_up 10. The ITL p50 bound of 6 ms (60 ms real time)
// breaks between 32 and 64 users while nothing waits: decode binds. Ladder 1, 8, 32, 64.
func decodeBoundPlan() *plan.Plan {
	sim := plan.Simulator{GPU: "cpu-slow", Model: "granite-350m", MaxNumSeqs: 256, SpeedUp: 10}
	return bottleneckPlan("decode-bound", sim, fixedTokens(16), 64, []int{1, 8, 32, 64}, 2*time.Second,
		plan.SLA{ITLMs: map[string]float64{"p50": 6}, MaxErrorRate: 0.01})
}

// prefillBoundPlan is a prefill-bound simulator configuration: llama-3.1-8b on an
// H100-SXM with max_num_seqs 256 (never full) and a prefill budget of 2,048 tokens per
// iteration (max_num_batched_tokens), prompts of 2,000–6,000 tokens (about 120 ms of
// prefill each, real time) and 12–20-token outputs, at speed_up 8. Prefill takes most of
// the server's time from 4 users on and TTFT grows with the prompt tokens in flight;
// the TTFT p95 bound of 100 ms (800 ms real time) breaks between 8 and 16 users with
// slots free. Ladder 1, 4, 8, 16.
func prefillBoundPlan() *plan.Plan {
	sim := plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", MaxNumSeqs: 256, MaxNumBatchedTokens: 2048, SpeedUp: 8}
	return bottleneckPlan("prefill-bound", sim, plan.Dist{Kind: plan.DistUniform, Min: 2000, Max: 6000}, 16,
		[]int{1, 4, 8, 16}, 1500*time.Millisecond, plan.SLA{TTFTMs: map[string]float64{"p95": 100}, MaxErrorRate: 0.01})
}

// queueBySlotsPlan: llama-3.1-8b on an H100-SXM with max_num_seqs 8, 200-token prompts
// and 48–80-token outputs at speed_up 4: past 8 users requests wait for a slot with the
// KV cache nearly empty. TTFT p95 ≤ 200 ms breaks between 16 and 24.
func queueBySlotsPlan() *plan.Plan {
	sim := plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", MaxNumSeqs: 8, SpeedUp: 4}
	return bottleneckPlan("queue-slots", sim, fixedTokens(200), 64, []int{2, 8, 16, 24}, 1500*time.Millisecond,
		plan.SLA{TTFTMs: map[string]float64{"p95": 200}, MaxErrorRate: 0.01})
}

// queueByKVCachePlan: llama-3.1-8b on an H100-SXM with gpu_memory_utilization 0.22 (a
// KV cache of 11,744 tokens, room for about 11 of these requests) and max_num_seqs 256,
// 1,000-token prompts and 48–80-token outputs at speed_up 4: past about 11 users
// requests wait for KV blocks (usage about 100 %) while slots are free. TTFT p95 ≤ 150
// ms breaks between 8 and 24.
func queueByKVCachePlan() *plan.Plan {
	sim := plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", MaxNumSeqs: 256, GPUMemoryUtilization: 0.22, SpeedUp: 4}
	return bottleneckPlan("queue-kv", sim, fixedTokens(1000), 64, []int{2, 8, 24}, 1500*time.Millisecond,
		plan.SLA{TTFTMs: map[string]float64{"p95": 150}, MaxErrorRate: 0.01})
}

// bracketed reports whether a capacity lies between a passing and a failing step:
// measured (the last passing load) or interpolated by the model between them.
func bracketed(c Capacity) bool { return c.Method == MethodMeasured || c.Method == MethodInterpolated }

// fixedTokens is a fixed length of n tokens.
func fixedTokens(n float64) plan.Dist { return plan.Dist{Kind: plan.DistFixed, Value: n} }

// runBottleneckPlan sweeps p against the embedded simulator and analyses it; it skips
// under -short and when a step ran late (a starved host is no evidence).
func runBottleneckPlan(t *testing.T, p *plan.Plan) *SegmentAnalysis {
	t.Helper()
	if testing.Short() {
		t.Skip("drives the embedded simulator for several seconds: skipped with -short")
	}
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	sa := &a.Segments[0]
	late := false
	for _, s := range sa.Steps {
		sv := ServerStats{}
		if s.Server != nil {
			sv = *s.Server
		}
		t.Logf("load %2.0f: TTFT mean %6.1f p95 %6.1f ITL p50 %5.2f X %6.1f meets %v regime %s/%s | waiting %.2f running %.1f KV %.2f preempted %.0f late %.1f ms",
			s.Load, s.TTFTMs.Mean, s.TTFTMs.P95, s.ITLMs.P50, s.LittleThroughputRps, s.MeetsSLA, s.Regime, s.QueueLimit,
			sv.WaitingMean, sv.RunningMean, sv.KVCacheUsageMax, sv.Preemptions, sv.SimLatenessP99Ms)
		late = late || s.SimulatorLate
	}
	c := sa.Capacity
	t.Logf("capacity %.1f (%s), %s/%s: %s\nadvice: %s", c.MaxConcurrencyWithinSLA, c.Method, c.Bottleneck, c.QueueLimit,
		c.BottleneckEvidence, c.Advice)
	if late {
		t.Skip("the simulator ran late in a step: the machine is too loaded to judge")
	}
	if a.Engine != EngineSimulator || a.RunningLimit != p.Target.Simulator.MaxNumSeqs {
		t.Errorf("engine %q, running limit %d (%s); want the simulator's max_num_seqs %d", a.Engine, a.RunningLimit,
			a.RunningLimitSource, p.Target.Simulator.MaxNumSeqs)
	}
	return sa
}

// TestDecodeBoundSimulator: the simulator in a decode-bound configuration (prompts a
// quarter of the output, max_num_seqs 256 never reached): the server reports every
// request running and no backlog, no step is called queue or prefill, the bottleneck is decode and the advice
// never mentions max_num_seqs.
func TestDecodeBoundSimulator(t *testing.T) {
	sa := runBottleneckPlan(t, decodeBoundPlan())
	for _, s := range sa.Steps {
		// Nothing queues: every request in the system runs (a request that arrives during
		// an iteration waits for its end, so the waiting gauge reads about 1 at 64 users).
		if s.Server == nil || backlogged(&s) || s.Server.WaitingMean > 2 || s.Server.RunningMean < 0.9*s.Load {
			t.Errorf("load %v: server %+v, want everything running and nothing queued", s.Load, s.Server)
		}
		if s.Regime == RegimeQueue || s.Regime == RegimePrefill {
			t.Errorf("load %v: regime %s (%s)", s.Load, s.Regime, s.RegimeEvidence)
		}
	}
	// The capacity lies in the bracket: interpolated strictly inside it (44 on an idle
	// host), or the passing load itself when the fit on a loaded host (CI runs packages
	// side by side) does not reproduce both verdicts and the measured 32 stands.
	c := sa.Capacity
	inside := c.Method == MethodInterpolated && c.MaxConcurrencyWithinSLA > 32 && c.MaxConcurrencyWithinSLA < 64
	passing := c.Method == MethodMeasured && c.MaxConcurrencyWithinSLA == 32
	if !(inside || passing) || c.Bottleneck != RegimeDecode {
		t.Errorf("capacity %.1f (%s), bottleneck %s; want decode, interpolated between 32 and 64 or measured 32", c.MaxConcurrencyWithinSLA, c.Method, c.Bottleneck)
	}
	if strings.Contains(c.Advice, "max_num_seqs") || !strings.HasPrefix(c.Advice, "Decode binds") {
		t.Errorf("advice %q", c.Advice)
	}
}

// TestPrefillBoundSimulator: the simulator with 4,000-token prompts and short outputs,
// slots free: the TTFT bound breaks with nothing waiting for a slot, and the loaded
// steps and the bottleneck are prefill.
func TestPrefillBoundSimulator(t *testing.T) {
	sa := runBottleneckPlan(t, prefillBoundPlan())
	for _, s := range sa.Steps {
		if s.Server == nil || s.Server.RunningMean > 0.5*float64(256) {
			t.Errorf("load %v: server %+v, want slots free", s.Load, s.Server)
		}
		if s.Load >= 4 && s.Regime != RegimePrefill {
			t.Errorf("load %v: regime %s (%s), want prefill", s.Load, s.Regime, s.RegimeEvidence)
		}
	}
	c := sa.Capacity
	if !bracketed(c) || c.Bottleneck != RegimePrefill || c.MaxConcurrencyWithinSLA <= 4 || c.MaxConcurrencyWithinSLA >= 16 {
		t.Errorf("capacity %.1f (%s), bottleneck %s; want a bracketed capacity between 4 and 16, prefill", c.MaxConcurrencyWithinSLA, c.Method, c.Bottleneck)
	}
	if strings.Contains(c.Advice, "max_num_seqs above") || !strings.Contains(c.Advice, "max_num_batched_tokens") {
		t.Errorf("advice %q", c.Advice)
	}
}

// TestQueueBySlotsSimulator: max_num_seqs 8 driven to 24 users: the server reports
// requests waiting with 8 running, the bottleneck is a queue for slots and the advice
// raises max_num_seqs (the KV cache has room).
func TestQueueBySlotsSimulator(t *testing.T) {
	sa := runBottleneckPlan(t, queueBySlotsPlan())
	for _, s := range sa.Steps {
		if s.Load >= 16 && (s.Regime != RegimeQueue || s.QueueLimit != QueueBySlots || s.Server.WaitingMean < 4) {
			t.Errorf("load %v: regime %s/%q (%s), want queue for slots", s.Load, s.Regime, s.QueueLimit, s.RegimeEvidence)
		}
	}
	c := sa.Capacity
	if c.Bottleneck != RegimeQueue || c.QueueLimit != QueueBySlots {
		t.Errorf("bottleneck %s/%q, want queue by slots", c.Bottleneck, c.QueueLimit)
	}
	if !strings.Contains(c.Advice, "raising max_num_seqs above 8 is likely safe") {
		t.Errorf("advice %q", c.Advice)
	}
}

// TestQueueByKVCacheSimulator: a KV cache with room for about 11 requests and
// max_num_seqs 256: at 24 users requests wait while the cache is full (and preempts)
// with slots free; the bottleneck is a queue for the KV cache and the advice says more
// slots would not help and names the KV cache's settings.
func TestQueueByKVCacheSimulator(t *testing.T) {
	sa := runBottleneckPlan(t, queueByKVCachePlan())
	top := sa.Steps[len(sa.Steps)-1]
	if top.Regime != RegimeQueue || top.QueueLimit != QueueByKVCache || top.Server.KVCacheUsageMax < kvFullFrac ||
		top.Server.RunningMean > 16 {
		t.Errorf("load %v: regime %s/%q, server %+v; want a queue for the KV cache", top.Load, top.Regime, top.QueueLimit, top.Server)
	}
	c := sa.Capacity
	if !bracketed(c) || c.Bottleneck != RegimeQueue || c.QueueLimit != QueueByKVCache {
		t.Errorf("bottleneck %s/%q, want queue by KV cache", c.Bottleneck, c.QueueLimit)
	}
	for _, want := range []string{"would not help", "gpu_memory_utilization"} {
		if !strings.Contains(c.Advice, want) {
			t.Errorf("advice %q lacks %q", c.Advice, want)
		}
	}
	if strings.Contains(c.Advice, "is likely safe") {
		t.Errorf("advice %q raises the slots", c.Advice)
	}
}
