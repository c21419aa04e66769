package analysis

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// The seed scenarios (issue 13): two measurements of the seed articles the project was
// created from, re-enacted on the embedded simulator and judged by the real sweep and
// analysis.
//
// The analysis reports latencies on the wall clock: with the simulator's speed_up S a
// simulated duration d is measured as d / S (Analysis.SpeedUp records S; the reports warn
// about it). The plans therefore write durations and SLA thresholds as simulated time / S,
// and the tests multiply measured latencies by S to compare them with the articles.

// seedOneSlotSpeedUp compresses scenario (a): about 290 s of simulated time in about 15 s.
const seedOneSlotSpeedUp = 20

// simulated converts a simulated duration in ms to the wall-clock duration a plan at
// speed-up s must state.
func simulated(ms, s float64) time.Duration {
	return time.Duration(ms / s * float64(time.Millisecond))
}

// seedOneSlotPlan is seed article 000 on one slot: granite-350m on a device fitted to the
// article's single-user TTFT of 223 ms and ITL of 10.67 ms (testdata/seed000-catalog.yaml
// gives the arithmetic), max_num_seqs 1 (one request at a time, a single-slot Ollama-style
// server), a 256-token prompt and 103 output tokens (the article's 1,309 ms mean request
// latency = 223 ms + 102 × 10.67 ms). The ladder is the article's concurrency 1 and 50
// with 2 and 4 between them, so that the queueing model has three steady steps to fit.
// Every step has the article's 60 s window and a 30 s grace period (AIPerf's default),
// and no warm-up: the article's 41.7 s mean fits a window that opens on a fresh wave of
// 50 requests (AIPerf warms up in a phase of its own), whose TTFTs spread from 0.2 to
// 64 s, while llmcap's warm-up runs straight into the window, where every request would
// wait behind 49 others (≈ 64 s).
func seedOneSlotPlan(t *testing.T) *plan.Plan {
	t.Helper()
	cat, err := filepath.Abs(filepath.Join("testdata", "seed000-catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const s = seedOneSlotSpeedUp
	return &plan.Plan{
		Name: "seed-000-one-slot", Seed: 13,
		Target: plan.Target{URL: plan.TargetSimulator, API: "chat", Model: "granite-350m",
			ExtraBody: map[string]any{"ignore_eos": true},
			Simulator: plan.Simulator{GPU: "seed000-local", Model: "granite-350m", Catalog: cat, TensorParallel: 1,
				MaxNumSeqs: 1, MaxNumBatchedTokens: 8192, GPUMemoryUtilization: 0.9, BlockSize: 16, SpeedUp: s},
			MetricsInterval: 50 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1,
			PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 256},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 103}}},
		Ladder: plan.Ladder{Concurrency: []int{1, 2, 4, 50}, Duration: simulated(60000, s), Grace: simulated(30000, s)},
		// The article's goodput SLA, time_to_first_token ≤ 500 ms, on p95.
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 500.0 / s}, MaxErrorRate: 0.01},
		Report: plan.Report{TargetUsers: []int{10}},
	}
}

// runSeed runs p through the sweep and the analysis and returns the analysis, skipping
// the test when the host starved the simulator in some step (its latencies would measure
// the host, not the modelled engine).
func runSeed(t *testing.T, p *plan.Plan) *Analysis {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: sweep and analysis in %v", p.Name, time.Since(start).Round(100*time.Millisecond))
	if a.SpeedUp != p.Target.Simulator.SpeedUp {
		t.Errorf("analysis speed_up %v, want the plan's %v", a.SpeedUp, p.Target.Simulator.SpeedUp)
	}
	for _, sa := range a.Segments {
		for _, st := range sa.Steps {
			if st.SimulatorLate {
				t.Skipf("load %v: the simulator ran late (lateness p99 %.1f ms): machine too loaded for a real-time run",
					st.Load, st.Server.SimLatenessP99Ms)
			}
		}
	}
	return a
}

// TestSeedOneSlotQueueBehindSingleUserBenchmark re-enacts seed article 000: a server
// that looks production-ready for one user (TTFT ≈ 223 ms, ITL ≈ 10.5 ms) has one slot,
// so at 50 concurrent users requests wait for those ahead of them while ITL stays where
// it was. The analysis must say so: TTFT p50 at 1 ≈ 223 ms (±10 %, plus up to 2 ms of the
// host's wall time per request, ×20 simulated), TTFT at 50 in the
// tens of seconds (mean 25–60 s, p99 ≥ 55 s; article: 41.7 s mean, p99 above 64 s) with
// the median request's ITL ≈ 10.5 ms at both (±10 %) and flat (±15 %), one slot fitted
// and identified (0.8–1.3), a queue bottleneck, goodput ≈ 0 (≤ 5 %) for TTFT p95 ≤
// 500 ms at 50, and the 60 s window at 50 not steady (it completes about 65 requests,
// fewer than 3 per user).
func TestSeedOneSlotQueueBehindSingleUserBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the embedded simulator for about 15 s: skipped with -short")
	}
	a := runSeed(t, seedOneSlotPlan(t))
	const s = seedOneSlotSpeedUp // simulated ms = measured ms × s
	sa := a.Segments[0]
	for _, st := range sa.Steps {
		t.Logf("load %2.0f: n=%d TTFT mean %6.0f p50 %6.0f p99 %6.0f ms, ITL mean %5.2f p50 %5.2f ms, good %.2f, goodput %.3f req/s of %.3f, steady %v (%s), regime %s",
			st.Load, st.Requests, s*st.TTFTMs.Mean, s*st.TTFTMs.P50, s*st.TTFTMs.P99, s*st.ITLMs.Mean, s*st.ITLMs.P50, st.GoodFraction,
			st.Goodput/s, st.RequestThroughput/s, st.SteadyState, st.SteadyStateReason, st.Regime)
	}
	if len(sa.Steps) != 4 {
		t.Fatalf("%d steps, want 4", len(sa.Steps))
	}
	one, fifty := &sa.Steps[0], &sa.Steps[3]
	// Concurrency 1: the article's single-user figures (TTFT 223.11 ms, ITL 10.67 ms), on
	// the medians (a shared host's stalls reach the means: ±25 % there). ITL is each
	// request's mean gap, so its p50 is the median request's TPOT.
	// A TTFT also carries the host's own per-request cost (the client's write, the
	// simulator's wake-up, loopback): about 0.8 ms of wall time on an idle 2-core VM,
	// 16 ms once simulated (×20), and more beside other tests. Up to hostMs of it is
	// allowed above the TTFT's band (it is one-sided: the host never makes a TTFT
	// shorter).
	const hostMs = 2.0
	for _, v := range []struct {
		name           string
		got, want, tol float64
		host           float64 // simulated ms of host cost allowed above the band
	}{
		{"TTFT p50 at 1", s * one.TTFTMs.P50, 223, 0.10, s * hostMs}, {"TTFT mean at 1", s * one.TTFTMs.Mean, 223, 0.25, s * hostMs},
		{"ITL p50 at 1", s * one.ITLMs.P50, 10.5, 0.10, 0}, {"ITL p50 at 50", s * fifty.ITLMs.P50, 10.5, 0.10, 0},
		{"ITL mean at 1", s * one.ITLMs.Mean, 10.5, 0.25, 0},
	} {
		lo, hi := v.want*(1-v.tol), v.want*(1+v.tol)+v.host
		if v.got < lo || v.got > hi {
			t.Errorf("%s = %.2f ms (simulated), want %.1f–%.1f ms (%.1f ± %.0f%%, + %.0f ms of host cost)", v.name, v.got, lo, hi, v.want, 100*v.tol, v.host)
		}
	}
	// Concurrency 50: TTFT in the tens of seconds, p99 past a minute, ITL flat.
	if ttft := s * fifty.TTFTMs.Mean; ttft < 25000 || ttft > 60000 {
		t.Errorf("TTFT mean at 50 = %.0f ms (simulated), want tens of seconds (25–60 s; article 41.7 s)", ttft)
	}
	if p99 := s * fifty.TTFTMs.P99; p99 < 55000 {
		t.Errorf("TTFT p99 at 50 = %.0f ms (simulated), want ≥ 55 s (article: above 64 s)", p99)
	}
	if x := fifty.TTFTMs.Mean / one.TTFTMs.Mean; x < 100 {
		t.Errorf("TTFT mean at 50 is %.0f× that at 1, want ≥ 100× (article: 186×)", x)
	}
	if x := fifty.ITLMs.P50 / one.ITLMs.P50; x < 1/1.15 || x > 1.15 {
		t.Errorf("ITL p50 at 50 is %.2f× that at 1, want flat (within ±15%%)", x)
	}
	// Goodput for TTFT p95 ≤ 500 ms at 50: ≈ 0 (article: 0.01 of 0.91 req/s).
	if fifty.GoodFraction > 0.05 || fifty.Goodput > 0.05*fifty.RequestThroughput {
		t.Errorf("at 50: good fraction %.3f, goodput %.3f of %.3f req/s, want ≈ 0 (≤ 5%%)",
			fifty.GoodFraction, fifty.Goodput, fifty.RequestThroughput)
	}
	// The 60 s window at 50 is not steady, and says why.
	if fifty.SteadyState || fifty.SteadyStateReason == "" {
		t.Errorf("step 50 steady %v (%q), want not steady with a reason", fifty.SteadyState, fifty.SteadyStateReason)
	}
	for _, st := range sa.Steps[:3] {
		if !st.SteadyState {
			t.Skipf("load %v not steady (%s): machine too loaded for a real-time run", st.Load, st.SteadyStateReason)
		}
	}
	// One slot, identified from the steady steps 1, 2 and 4; the bottleneck is the queue.
	f, c := sa.Fit, sa.Capacity
	if f == nil {
		t.Fatal("no fit")
	}
	t.Logf("fit: slots %.2f [%.2f, %.2f], identified %v, R² %.3f over %d steps; capacity %.2f (%s), bottleneck %s: %s",
		f.Slots, f.SlotsCILow, f.SlotsCIHigh, f.SlotsIdentified, f.R2, f.FitSteps,
		c.MaxConcurrencyWithinSLA, c.Method, c.Bottleneck, c.BottleneckEvidence)
	if !f.SlotsIdentified || f.Slots < 0.8 || f.Slots > 1.3 {
		t.Errorf("fitted slots %.2f (identified %v), want 1 (0.8–1.3)", f.Slots, f.SlotsIdentified)
	}
	if c.Bottleneck != RegimeQueue {
		t.Errorf("bottleneck %s (%s), want queue", c.Bottleneck, c.BottleneckEvidence)
	}
}

// seedMaxNumSeqsSpeedUp compresses each arm of scenario (b): about 40 s of simulated
// time in about 4 s.
const seedMaxNumSeqsSpeedUp = 10

// seedMaxNumSeqsPlan is the stress arm of seed article 001 at one max_num_seqs: vLLM on
// one RTX 3060 with llm-jp-3-1.8b (bf16), 64 concurrent requests, 256 output tokens
// (ignore_eos) and short prompts (16 tokens; the article gives no length). A 6 s warm-up
// (the first wave of requests) precedes a 20 s window; the 12 s grace period lets the
// requests in flight finish (up to two waves of 256 × ~20 ms).
func seedMaxNumSeqsPlan(maxNumSeqs int) *plan.Plan {
	const s = seedMaxNumSeqsSpeedUp
	return &plan.Plan{
		Name: "seed-001-max-num-seqs", Seed: 1,
		Target: plan.Target{URL: plan.TargetSimulator, API: "completions", Model: "llm-jp-3-1.8b",
			ExtraBody: map[string]any{"ignore_eos": true},
			Simulator: plan.Simulator{GPU: "RTX-3060", Model: "llm-jp-3-1.8b", TensorParallel: 1,
				MaxNumSeqs: maxNumSeqs, MaxNumBatchedTokens: 8192, GPUMemoryUtilization: 0.9, BlockSize: 16, SpeedUp: s},
			MetricsInterval: 50 * time.Millisecond},
		Segments: []plan.Segment{{Name: "stress", Weight: 1,
			PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 16},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 256}}},
		Ladder: plan.Ladder{Concurrency: []int{64}, Warmup: plan.Warmup{Duration: simulated(6000, s)},
			Duration: simulated(20000, s), Grace: simulated(12000, s)},
		SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 500.0 / s}, MaxErrorRate: 0.01},
	}
}

// TestSeedMaxNumSeqsCliffUnderStress re-enacts seed article 001's stress arm: at 64
// concurrent requests, max_num_seqs 32 makes half of them wait for a whole service time
// (256 decode steps) while 128 admits them all, so TTFT p50 differs by ≥ 10× (article:
// 8.3 s vs 0.43 s, 19×) while TPOT stays flat (mean ITL within 0.77–1.3×; article:
// 16–28 ms in both, here 18–23 ms). The server's own metrics agree: at 32 about 32
// requests wait, at 128 almost none.
//
// The model is llm-jp-3-1.8b, the article's other model, because on an RTX 3060 the
// article's Swallow-8B AWQ cannot keep TPOT flat from a batch of 32 to 64: its INT4
// weights (5.73 GB) take 19.9 ms to read, while each sequence adds 1.05 ms of tensor-core
// work at 25.4 TFLOPS × 0.6 (FP32 accumulate, as vLLM's kernels run), so decode is
// compute-bound above batch ~19 and TPOT doubles from 36 to 70 ms (sim's
// TestRooflineAWQOnRTX3060 pins this).
func TestSeedMaxNumSeqsCliffUnderStress(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the embedded simulator for about 10 s: skipped with -short")
	}
	const s = seedMaxNumSeqsSpeedUp
	arm := func(seqs int) StepStats {
		a := runSeed(t, seedMaxNumSeqsPlan(seqs))
		st := a.Segments[0].Steps[0]
		srv := ServerStats{}
		if st.Server != nil {
			srv = *st.Server
		}
		t.Logf("max_num_seqs %3d: n=%d TTFT p50 %6.0f p95 %6.0f ms, ITL mean %5.2f p50 %5.2f ms, running %.1f, waiting %.1f, lateness p99 %.2f ms",
			seqs, st.Requests, s*st.TTFTMs.P50, s*st.TTFTMs.P95, s*st.ITLMs.Mean, s*st.ITLMs.P50, srv.RunningMean, srv.WaitingMean, srv.SimLatenessP99Ms)
		if st.Requests < 64 || st.Errors > 0 {
			t.Fatalf("max_num_seqs %d: %d measured requests, %d errors: want ≥ 64 and none", seqs, st.Requests, st.Errors)
		}
		return st
	}
	r32, r128 := arm(32), arm(128)
	ratio := r32.TTFTMs.P50 / r128.TTFTMs.P50
	tpot := r128.ITLMs.P50 / r32.ITLMs.P50
	t.Logf("TTFT p50 ratio %.1f× (article 19×), TPOT p50 ratio %.2f", ratio, tpot)
	if ratio < 10 {
		t.Errorf("TTFT p50 %.0f ms (32) vs %.0f ms (128): ratio %.1f×, want ≥ 10×", s*r32.TTFTMs.P50, s*r128.TTFTMs.P50, ratio)
	}
	if tpot < 0.77 || tpot > 1.3 {
		t.Errorf("TPOT p50 %.2f ms (128) vs %.2f ms (32): ratio %.2f, want within 0.77–1.3", s*r128.ITLMs.P50, s*r32.ITLMs.P50, tpot)
	}
	for _, st := range []StepStats{r32, r128} {
		if itl := s * st.ITLMs.P50; itl < 16*0.9 || itl > 28*1.1 {
			t.Errorf("TPOT p50 %.2f ms, want the article's 16–28 ms (±10 %%)", itl)
		}
	}
	if r32.Server == nil || r128.Server == nil {
		t.Fatal("no server metrics scraped")
	}
	if r32.Server.WaitingMean < 16 || r128.Server.WaitingMean > 4 {
		t.Errorf("waiting mean %.1f (32) and %.1f (128): want ≈ 32 queued with 32 slots and ≈ 0 with 128",
			r32.Server.WaitingMean, r128.Server.WaitingMean)
	}
}
