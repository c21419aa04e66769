package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"

	"github.com/llmcap/llmcap/plan"
)

// TestCapacityThroughputFollowsLittlesLaw: at a closed-loop capacity the throughput is
// N / R with R the mean E2E interpolated at the capacity point, so X·R = N and the users
// with think time are N + X·Z (what the workbook's calculator computes).
func TestCapacityThroughputFollowsLittlesLaw(t *testing.T) {
	p := simPlan("little", queueLadder, plan.SLA{TTFTMs: map[string]float64{"p95": 3000}, ThinkTime: 10 * time.Second})
	a := analyzeSim(t, queueSim, p)
	sa := a.Segments[0]
	c := sa.Capacity
	if c.Method != MethodMeasured && c.Method != MethodInterpolated {
		t.Fatalf("method %s", c.Method)
	}
	var lo, hi *StepStats
	for i := range sa.Steps {
		s := &sa.Steps[i]
		near(t, fmt.Sprintf("load %v little throughput", s.Load), s.LittleThroughputRps, s.Load/(s.E2EMs.Mean/1000), 1e-9)
		if s.Load <= c.MaxConcurrencyWithinSLA {
			lo = s
		} else if hi == nil {
			hi = s
		}
	}
	f := (c.MaxConcurrencyWithinSLA - lo.Load) / (hi.Load - lo.Load)
	rS := (lo.E2EMs.Mean + f*(hi.E2EMs.Mean-lo.E2EMs.Mean)) / 1000
	lout := lo.OutputTokensMean + f*(hi.OutputTokensMean-lo.OutputTokensMean)
	t.Logf("capacity %.2f between loads %v and %v: R %.3f s, X %.3f req/s (AIPerf %.3f and %.3f)",
		c.MaxConcurrencyWithinSLA, lo.Load, hi.Load, rS, c.ThroughputAtCapacity, lo.RequestThroughput, hi.RequestThroughput)
	if c.Method == MethodMeasured {
		near(t, "X·R", c.ThroughputAtCapacity*rS, c.MaxConcurrencyWithinSLA, 1e-9)
		near(t, "output tokens/s", c.OutputTokensPerSAtCapacity, c.ThroughputAtCapacity*lout, 1e-9)
	} else {
		// Interpolated: X and R are the model's at the capacity (X·R = N holds inside
		// the model); X lies between the two steps' steady-state throughputs, ±3%.
		x0, x1 := math.Min(lo.LittleThroughputRps, hi.LittleThroughputRps), math.Max(lo.LittleThroughputRps, hi.LittleThroughputRps)
		if c.ThroughputAtCapacity < 0.97*x0 || c.ThroughputAtCapacity > 1.03*x1 {
			t.Errorf("interpolated X %.3f outside the steps' [%.3f, %.3f]", c.ThroughputAtCapacity, x0, x1)
		}
	}
	near(t, "N + X·Z", c.MaxConcurrencyWithinSLA+c.ThroughputAtCapacity*c.ThinkTimeS, c.UsersWithThinkTime, 1e-9)
	if c.ThinkTimeS != 10 || c.Users != int(math.Floor(c.UsersWithThinkTime)) || c.Users < 100 {
		t.Errorf("think %v users %d for %.2f", c.ThinkTimeS, c.Users, c.UsersWithThinkTime)
	}
	if want := fmt.Sprintf("keeps about %s users (who pause 10 s between requests) within the SLA", commaInt(float64(c.Users))); !strings.Contains(a.Answer, want) {
		t.Errorf("answer %q lacks %q", a.Answer, want)
	}
}

// TestOpenLoopCapacityThroughputIsTheRate: open loop, X is the capacity rate itself.
func TestOpenLoopCapacityThroughputIsTheRate(t *testing.T) {
	p := plan.Plan{Name: "rate", Seed: 5, Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Rate: []float64{2, 4, 6, 8, 10}, Duration: time.Minute},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 1000}, ThinkTime: 5 * time.Second}}
	var recs []rundir.Record
	for _, s := range p.Steps() {
		recs = append(recs, queueSim.stepOpen(s.Index, s.Segment, s.Rate)...)
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	c := a.Segments[0].Capacity
	for _, s := range a.Segments[0].Steps {
		want := s.Rate // kept up; a saturated step (rate 10 > about 8.7 req/s) served less
		if s.Rate >= 10 {
			want = s.AchievedRateRps
			if want < 7.5 || want > 9.5 {
				t.Errorf("rate %v: achieved %.2f, want about 8.7", s.Rate, want)
			}
		}
		near(t, fmt.Sprintf("rate %v: open-loop little throughput", s.Rate), s.LittleThroughputRps, want, 1e-12)
	}
	near(t, "X at capacity", c.ThroughputAtCapacity, c.MaxRateWithinSLA, 1e-12)
	near(t, "users", c.UsersWithThinkTime, c.MaxConcurrencyWithinSLA+c.MaxRateWithinSLA*5, 1e-9)
}

func stepWith(load, ttft, itl float64, waiting float64) StepStats {
	return StepStats{Load: load, Concurrency: int(load), Schedule: plan.ScheduleConcurrency,
		TTFTMs: Summary{N: 10, Mean: ttft}, ITLMs: Summary{N: 10, Mean: itl}, PromptTokensMean: 200, OutputTokensMean: 100,
		Server: &ServerStats{WaitingMean: waiting, RunningMean: math.Min(load, 16)}}
}

// TestQueueEvidenceUsesTheITLRatio: the queue verdict's ITL phrase follows the measured
// ratios against the lightest and the previous step.
func TestQueueEvidenceUsesTheITLRatio(t *testing.T) {
	cases := []struct {
		itl16, itl32 float64
		want         string
	}{
		{10.5, 10.8, "TTFT rising while ITL stays flat"},
		{20, 21, "ITL rose ×2.1 as the batch filled, then stayed flat once slots were full (×1.05 vs load 16)"},
		{15, 21, "TTFT rising and ITL still rising (×1.40 vs load 16)"},
		{24, 14, "TTFT rising while ITL fell (×0.58 vs load 16, ×1.40 vs load 1)"},
	}
	for _, c := range cases {
		steps := []StepStats{stepWith(1, 20, 10, 0), stepWith(16, 25, c.itl16, 0), stepWith(32, 900, c.itl32, 16)}
		classifySteps(steps, regimeContext{})
		s := steps[2]
		if s.Regime != RegimeQueue || !strings.Contains(s.RegimeEvidence, c.want) {
			t.Errorf("ITL 10 → %v → %v: regime %s, evidence %q lacks %q", c.itl16, c.itl32, s.Regime, s.RegimeEvidence, c.want)
		}
	}
}

// TestQueueAdviceUsesKVEvidence: room in the KV cache → raise max_num_seqs first; a full
// KV cache or preemptions → the KV cache is the limit.
func TestQueueAdviceUsesKVEvidence(t *testing.T) {
	ground := deploymentOf(rundir.RunMeta{Target: rundir.TargetInfo{Simulator: true, Settings: map[string]any{"max_num_seqs": float64(16)}}}, nil)
	seg := func(kv, pre float64) *SegmentAnalysis {
		steps := []StepStats{stepWith(1, 20, 10, 0), stepWith(32, 900, 10, 16)}
		steps[0].Server.KVCacheUsageMax = kv / 4
		steps[1].Server.KVCacheUsageMax, steps[1].Server.Preemptions = kv, pre
		return &SegmentAnalysis{Steps: steps, Fit: &Fit{Slots: 15.6}}
	}
	q := Capacity{Method: MethodMeasured, Bottleneck: RegimeQueue}
	got := adviceFor(q, seg(0.42, 0), ground, "")
	for _, want := range []string{"16 slots", "42%", "raising max_num_seqs above 16 is likely safe", "before buying more GPUs"} {
		if !strings.Contains(got, want) {
			t.Errorf("roomy KV advice %q lacks %q", got, want)
		}
	}
	if got := adviceFor(q, seg(0.42, 0), deployment{}, ""); !strings.Contains(got, "about 16 slots") {
		t.Errorf("advice without ground truth %q does not use the fitted 15.6 slots", got)
	}
	for _, kv := range [][2]float64{{0.97, 0}, {0.5, 3}} {
		got := adviceFor(q, seg(kv[0], kv[1]), ground, "")
		want := fmt.Sprintf("The KV cache is the limit (peak %.0f%% full, %.0f preemptions)", 100*kv[0], kv[1])
		if !strings.Contains(got, want) || strings.Contains(got, "likely safe") {
			t.Errorf("KV %v: advice %q lacks %q", kv, got, want)
		}
	}
}

func TestCIAroundContainsTheEstimate(t *testing.T) {
	xs := []float64{16.1, 16.3, 17, 18, 19.9, 16.2, 16.4, 16.8, 17.5, 19}
	lo, hi := ci95(xs)
	if lo <= 16 {
		t.Fatalf("test data: percentile low %.3f already contains 16", lo)
	}
	lo, hi = ciAround(xs, 16)
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	if p975 := sla.Percentile(sorted, 0.975); lo != 16 || hi != p975 {
		t.Errorf("ciAround = [%.3f, %.3f], want [16, %.3f]", lo, hi, p975)
	}
	if lo, hi := ciAround(nil, 7); lo != 7 || hi != 7 {
		t.Errorf("empty bootstrap: [%v, %v]", lo, hi)
	}
}

// TestR2AndResidualsCoverTheSameSteps recomputes R² from the reported residuals.
func TestR2AndResidualsCoverTheSameSteps(t *testing.T) {
	p := simPlan("r2", []int{2, 4, 8, 16, 24, 32}, plan.SLA{TTFTMs: map[string]float64{"p95": 100000}})
	sa := analyzeSim(t, queueSim, p).Segments[0]
	f := sa.Fit
	if f == nil || len(f.Residuals) != len(f.ResidualLoads) || len(f.Residuals) < 2 {
		t.Fatalf("fit %+v", f)
	}
	p95 := map[float64]float64{}
	steady := 0
	for _, s := range sa.Steps {
		p95[s.Load] = s.TTFTMs.P95
		if s.SteadyState {
			steady++
		}
	}
	if steady >= 2 && len(f.Residuals) != steady {
		t.Errorf("%d residuals for %d steady steps", len(f.Residuals), steady)
	}
	var ys []float64
	for _, l := range f.ResidualLoads {
		ys = append(ys, p95[l])
	}
	m := meanOf(ys)
	var ssRes, ssTot float64
	for i, r := range f.Residuals {
		ssRes += r * r
		ssTot += (ys[i] - m) * (ys[i] - m)
	}
	near(t, "R² from the residuals", f.R2, 1-ssRes/ssTot, 1e-9)
}

// TestSLABelowUnloadedLatency: an SLA that fails at load 1 is not a prefill bottleneck
// and gives no sizing rows.
func TestSLABelowUnloadedLatency(t *testing.T) {
	p := simPlan("tight", []int{1, 4, 16}, plan.SLA{TTFTMs: map[string]float64{"p95": 1}, ThinkTime: 10 * time.Second})
	a := analyzeSim(t, queueSim, p)
	c := a.Overall
	t.Logf("answer: %s\nadvice: %s", a.Answer, c.Advice)
	if c.Method != MethodBelowFirstStep || c.Bottleneck != RegimeNone ||
		!strings.Contains(c.BottleneckEvidence, "the SLA is below the unloaded latency (at load 1: ttft p95 ") {
		t.Errorf("method %s bottleneck %s evidence %q", c.Method, c.Bottleneck, c.BottleneckEvidence)
	}
	if strings.Contains(c.Advice, "prefill") || len(a.WhatIf) != 0 || c.Users != 0 {
		t.Errorf("advice %q, what-if %+v, users %d", c.Advice, a.WhatIf, c.Users)
	}
	if !strings.Contains(strings.Join(a.WarningMessages(), "\n"), "sizing not possible") ||
		!strings.Contains(a.Answer, "below the unloaded latency") {
		t.Errorf("warnings %q answer %q", a.WarningMessages(), a.Answer)
	}
}

// TestMixDrawnSegmentsSteadyRuleAndThroughput: segments measured only inside the mix
// scale the steady-state rule by their share and report their share of the throughput.
func TestMixDrawnSegmentsSteadyRuleAndThroughput(t *testing.T) {
	dir, _ := mixRun(t)
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	long := a.Segments[1]
	if long.Segment != "long" || !long.FromMix || a.Mix.FromMix {
		t.Fatalf("segment %s from mix %v, mix %v", long.Segment, long.FromMix, a.Mix.FromMix)
	}
	for i, s := range long.Steps {
		// 10 of 40 requests, concurrency 2 and 4: need ⌈3 × c × 0.25⌉ ≤ 3 completions.
		near(t, "share", s.MixShare, 0.25, 1e-12)
		if !s.SteadyState || !strings.Contains(s.SteadyStateReason, "× mix share 0.25") {
			t.Errorf("load %v: steady %v (%s)", s.Load, s.SteadyState, s.SteadyStateReason)
		}
		// The mix: c users over a 2,000 ms E2E → c/2 req/s, a quarter of it from long.
		near(t, "long little throughput", s.LittleThroughputRps, 0.25*s.Load/2, 1e-9)
		near(t, "mix little throughput", a.Mix.Steps[i].LittleThroughputRps, s.Load/2, 1e-9)
	}
	if w := strings.Join(a.WarningMessages(), "\n"); strings.Contains(w, "segment long, step") {
		t.Errorf("bogus steady-state warnings:\n%s", w)
	}
}

// TestMixDrawnSegmentSkipsStepsWithoutItsRequests: a mix step where a segment was drawn
// only during warm-up is not one of that segment's steps (it would fail the SLA with no
// measured requests and make the capacity "below the first step").
func TestMixDrawnSegmentSkipsStepsWithoutItsRequests(t *testing.T) {
	f := false
	p := plan.Plan{Name: "mix", Seed: 1, Segments: []plan.Segment{{Name: "short", Weight: 9}, {Name: "long", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{1, 4}, PerSegment: &f, Mix: true},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 250}}}
	const T = int64(1_700_000_000) * 1e9
	var recs []rundir.Record
	for _, st := range p.Steps() {
		for i := 0; i < 30; i++ {
			seg, phase := "short", rundir.PhaseMeasure
			if i == 0 {
				seg, phase = "long", rundir.PhaseWarmup // step 1: long only in warm-up
			} else if st.Concurrency == 4 && i%5 == 0 {
				seg = "long"
			}
			sent := T + int64(st.Index)*100e9 + int64(i)*1e9
			recs = append(recs, rundir.Record{Segment: seg, StepSegment: plan.MixSegment, Step: st.Index,
				Schedule: plan.ScheduleConcurrency, Concurrency: st.Concurrency, Phase: phase, SentNs: sent, EndNs: sent + 1e9,
				TTFTMs: fp(100), ITLMs: fp(10), E2EMs: fp(1000), OutputTokens: 50, PromptTokens: 50, Status: rundir.StatusOK})
		}
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	long := a.Segments[1]
	if len(long.Steps) != 1 || long.Steps[0].Load != 4 || long.Capacity.Method == MethodBelowFirstStep {
		t.Errorf("long steps %d (first load %v), capacity method %s", len(long.Steps), long.Steps[0].Load, long.Capacity.Method)
	}
	near(t, "long share at load 4", long.Steps[0].MixShare, 5.0/29, 1e-12)
}
