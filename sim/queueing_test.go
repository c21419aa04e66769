package sim

import (
	"math"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestQueueingSlotsExhausted: with max_num_seqs 4, concurrency 4 runs without a queue and
// gives the service time S (E2E); at concurrency 8 every request waits for a slot, so
// TTFT p50 ≈ S (±20%) while ITL stays flat (±10% of the concurrency-4 ITL).
func TestQueueingSlotsExhausted(t *testing.T) {
	cfg := plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", MaxNumSeqs: 4}
	base := closedLoop(t, testEngine(t, cfg).sched, 4, 128, 128, 6)
	load := closedLoop(t, testEngine(t, cfg).sched, 8, 128, 128, 6)
	service := base.p50(base.e2e)
	ttft4, ttft8 := base.p50(base.ttft), load.p50(load.ttft)
	itl4, itl8 := base.p50(base.itl), load.p50(load.itl)
	t.Logf("service %.1f ms; TTFT p50 %.1f → %.1f ms; ITL p50 %.2f → %.2f ms", service, ttft4, ttft8, itl4, itl8)
	if ttft4 > 0.1*service {
		t.Errorf("concurrency 4: TTFT p50 %.1f ms should be ≪ service time %.1f ms", ttft4, service)
	}
	if math.Abs(ttft8-service) > 0.2*service {
		t.Errorf("concurrency 8: TTFT p50 %.1f ms, want service time %.1f ms ±20%%", ttft8, service)
	}
	if math.Abs(itl8-itl4) > 0.1*itl4 {
		t.Errorf("ITL p50 %.2f → %.2f ms: want flat (±10%%)", itl4, itl8)
	}
}

// TestQueueingSeed001Shape reproduces the shape of seed article 001 (vLLM, 64 concurrent
// requests, 256 output tokens: max_num_seqs 32 → TTFT p50 8.3 s; 128 → 0.43 s, 19×; TPOT
// 16–28 ms in both) on an L40S with Llama-3.1-8B (BF16) and 100-token prompts, whose
// decode step lands in the article's TPOT range. Tolerances: TTFT p50 at 32 within ±35%
// of 8.3 s; at 128 within 0.5×–2× of 0.43 s; the ratio ≥ 10×; ITL p50 in [14.4, 30.8] ms
// (16–28 ms ±10%) for both and not more than 25% apart.
func TestQueueingSeed001Shape(t *testing.T) {
	run := func(seqs int) loadResult {
		cfg := plan.Simulator{GPU: "L40S", Model: "llama-3.1-8b", MaxNumSeqs: seqs}
		return closedLoop(t, testEngine(t, cfg).sched, 64, 100, 256, 6)
	}
	r32, r128 := run(32), run(128)
	ttft32, ttft128 := r32.p50(r32.ttft)/1000, r128.p50(r128.ttft)/1000
	itl32, itl128 := r32.p50(r32.itl), r128.p50(r128.itl)
	t.Logf("max_num_seqs 32: TTFT p50 %.2f s, ITL p50 %.1f ms; 128: TTFT p50 %.3f s, ITL p50 %.1f ms; ratio %.1f×",
		ttft32, itl32, ttft128, itl128, ttft32/ttft128)
	if ttft32 < 8.3*0.65 || ttft32 > 8.3*1.35 {
		t.Errorf("max_num_seqs 32: TTFT p50 %.2f s, want 8.3 s ±35%%", ttft32)
	}
	if ttft128 < 0.43*0.5 || ttft128 > 0.43*2 {
		t.Errorf("max_num_seqs 128: TTFT p50 %.3f s, want 0.43 s within 0.5×–2×", ttft128)
	}
	if ttft32/ttft128 < 10 {
		t.Errorf("TTFT ratio %.1f×, want ≥ 10× (article: 19×)", ttft32/ttft128)
	}
	for _, itl := range []float64{itl32, itl128} {
		if itl < 14.4 || itl > 30.8 {
			t.Errorf("ITL p50 %.1f ms outside [14.4, 30.8] ms", itl)
		}
	}
	if itl128/itl32 > 1.25 {
		t.Errorf("ITL grew %.2f× from 32 to 128 slots: queueing, not decode, must explain the TTFT gap", itl128/itl32)
	}
}

// TestQueueingKVBound: when the KV cache (not max_num_seqs) is the limit, the engine
// preempts or queues and TTFT grows while the running batch stays below max_num_seqs.
func TestQueueingKVBound(t *testing.T) {
	// 8B on an A100-40GB at 50% memory: ~4 GB of KV cache ≈ 30k tokens, for 64 × 1,280.
	cfg := plan.Simulator{GPU: "A100-40GB", Model: "llama-3.1-8b", MaxNumSeqs: 256, GPUMemoryUtilization: 0.5}
	e := testEngine(t, cfg)
	r := closedLoop(t, e.sched, 64, 1024, 256, 3)
	blocks := e.settings["kv_cache_blocks"].(int)
	t.Logf("KV blocks %d; TTFT p50 %.0f ms; preemptions %d", blocks, r.p50(r.ttft), r.preemptions)
	if r.preemptions == 0 {
		t.Error("want preemptions when 64 × 1,280 tokens exceed the KV cache")
	}
	if r.p50(r.ttft) < 1000 {
		t.Errorf("TTFT p50 %.0f ms: want queueing (> 1 s) when KV-bound", r.p50(r.ttft))
	}
}
