package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/rundir/rundirtest"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// The synthetic run: three segments and the mix, a closed-loop ladder of 8 steps, a
// queue-bound engine (TTFT flat up to the slot count, then rising linearly with
// concurrency at slope 1/X_max; ITL flat) and an SLA of TTFT p95 ≤ 500 ms.
var (
	fxLadder   = []int{1, 2, 4, 8, 16, 32, 64, 128}
	fxSLAms    = 500.0
	fxRunStart = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

// fxSegment is one synthetic segment's engine behaviour.
type fxSegment struct {
	name              string
	weight            float64
	baseTTFTms, itlMs float64
	isl, osl          int
	slots             float64
}

var fxSegments = []fxSegment{
	{"short-chat", 0.6, 60, 12, 256, 128, 48},
	{"rag-medium", 0.3, 180, 14, 2048, 256, 32},
	{"long-context", 0.1, 420, 18, 12000, 384, 16},
	{plan.MixSegment, 1, 120, 13, 1600, 180, 40},
}

// serviceS is one request's service time (s): prefill plus decode.
func (s fxSegment) serviceS() float64 { return (s.baseTTFTms + s.itlMs*float64(s.osl-1)) / 1000 }

// xMax is the saturated throughput (req/s).
func (s fxSegment) xMax() float64 { return s.slots / s.serviceS() }

// ttftMean is the model's mean TTFT (ms) at concurrency n: flat, then queueing.
func (s fxSegment) ttftMean(n float64) float64 {
	if n <= s.slots {
		return s.baseTTFTms
	}
	return s.baseTTFTms + 1000*(n-s.slots)/s.xMax()
}

// capacity is the concurrency where TTFT p95 (= 1.1·mean) reaches the SLA.
func (s fxSegment) capacity() float64 {
	return s.slots + (fxSLAms/1.1-s.baseTTFTms)*s.xMax()/1000
}

func fxSummary(mean float64) analysis.Summary {
	return analysis.Summary{N: 100, Mean: mean, P50: 0.95 * mean, P90: 1.05 * mean, P95: 1.1 * mean,
		P99: 1.25 * mean, Min: 0.7 * mean, Max: 1.4 * mean, StdDev: 0.1 * mean}
}

// fxSteps builds the 8 steps of segment si.
func fxSteps(si int, s fxSegment) []analysis.StepStats {
	var out []analysis.StepStats
	for j, n := range fxLadder {
		load := float64(n)
		ttft := s.ttftMean(load)
		e2e := ttft + s.itlMs*float64(s.osl-1)
		x := math.Min(load/s.serviceS(), s.xMax())
		p95 := 1.1 * ttft
		st := analysis.StepStats{
			Step: si*len(fxLadder) + j, Segment: s.name, Schedule: plan.ScheduleConcurrency,
			Concurrency: n, Load: load, Requests: 400, TTFTMs: fxSummary(ttft), TTFOMs: fxSummary(ttft),
			ITLMs: fxSummary(s.itlMs), E2EMs: fxSummary(e2e), DurationS: 400 / x,
			RequestThroughput: x, OutputTokenThroughput: x * float64(s.osl), TotalTokenThroughput: x * float64(s.osl+s.isl),
			PerUserOutputTokensPerS:  float64(s.osl) / (e2e / 1000),
			IntendedPromptTokensMean: float64(s.isl), PromptTokensMean: float64(s.isl),
			IntendedOutputTokensMean: float64(s.osl), OutputTokensMean: float64(s.osl),
			SteadyState: j != 0, SteadyStateReason: "ttft slope within 5%", MeetsSLA: p95 <= fxSLAms,
			Regime: analysis.RegimeNone, RegimeEvidence: "TTFT flat",
		}
		if load > s.slots {
			st.Regime, st.RegimeEvidence = analysis.RegimeQueue, "TTFT rises, ITL flat"
		}
		if st.MeetsSLA {
			st.Goodput, st.GoodFraction = x, 1
		} else {
			st.Goodput, st.GoodFraction = 0.1*x, 0.1
			st.SLAViolations = []string{fmt.Sprintf("ttft p95 %.0f ms > 500 ms", p95)}
		}
		if j == len(fxLadder)-1 {
			st.Errors, st.ErrorRate, st.ErrorClasses = 12, 0.03, map[string]int{rundir.ErrTimeoutFirstByte: 12}
		}
		st.Server = &analysis.ServerStats{RunningMean: math.Min(load, s.slots), WaitingMean: math.Max(0, load-s.slots),
			WaitingMax: math.Max(0, load-s.slots) + 2, KVCacheUsageMax: 0.8 * math.Min(load, s.slots) / s.slots}
		out = append(out, st)
	}
	return out
}

// fxFit builds the fitted model of a segment with a ±10% band.
func fxFit(s fxSegment) *analysis.Fit {
	f := &analysis.Fit{ServiceRate: s.xMax(), Slots: s.slots, SlotsIdentified: true, SlotsCILow: 0.95 * s.slots, SlotsCIHigh: 1.05 * s.slots,
		BaseTTFTMs: s.baseTTFTms, DecodeBaseMs: s.itlMs, DecodePerSeqMs: 0.01, PrefillMsPerKToken: 25, R2: 0.987}
	for range fxLadder {
		f.Residuals = append(f.Residuals, 3.5)
	}
	for i := 0; i <= 32; i++ {
		n := 1 + float64(i)*4
		p95 := 1.1 * s.ttftMean(n)
		f.Curve = append(f.Curve, analysis.CurvePoint{Load: n, TTFTp95Ms: p95, TTFTLowMs: 0.9 * p95, TTFTHigh: 1.1 * p95,
			ITLp50Ms: 0.95 * s.itlMs, Throughput: math.Min(n/s.serviceS(), s.xMax())})
	}
	return f
}

// fxCapacity is a segment's capacity answer.
func fxCapacity(s fxSegment) analysis.Capacity {
	c := s.capacity()
	x := s.xMax()
	return analysis.Capacity{MaxConcurrencyWithinSLA: c, RangeLow: 0.93 * c, RangeHigh: 1.06 * c, Method: "measured",
		Bottleneck: analysis.RegimeQueue, BottleneckEvidence: "TTFT rises linearly past " + num(s.slots, 0) + " in flight while ITL stays flat",
		LimitingConstraint: "TTFT p95 ≤ 500 ms", ThroughputAtCapacity: x, OutputTokensPerSAtCapacity: x * float64(s.osl),
		UsersWithThinkTime: c + x*5, ThinkTimeS: 5,
		Advice: "Add replicas or raise max_num_seqs (KV cache has room): the engine queues requests while ITL stays flat."}
}

// fxAnalysis builds the whole synthetic analysis.
func fxAnalysis() *analysis.Analysis {
	a := &analysis.Analysis{RunID: "20261130-090000-demo", ToolVersion: "test", Schedule: plan.ScheduleConcurrency,
		Constraints: []plan.Constraint{{Metric: "ttft", Stat: "p95", ThresholdMs: fxSLAms}, {Metric: "itl", Stat: "p95", ThresholdMs: 50}}}
	a.Plan = plan.Plan{Name: "demo", Description: "Synthetic queue-bound run", Seed: 1,
		Target: plan.Target{URL: plan.TargetSimulator, Model: "llama-3.1-8b",
			Simulator: plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", TensorParallel: 1, MaxNumSeqs: 48}},
		Ladder: plan.Ladder{Concurrency: fxLadder, Mix: true, Duration: time.Minute},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": fxSLAms}, ITLMs: map[string]float64{"p95": 50}, MaxErrorRate: 0.01, ThinkTime: 5 * time.Second},
		Report: plan.Report{GPUHourUSD: 2.5, TargetUsers: []int{1000, 5000}, Headroom: 0.2, GPUsPerReplica: 1}}
	for i, s := range fxSegments {
		sa := analysis.SegmentAnalysis{Segment: s.name, Weight: s.weight, Steps: fxSteps(i, s), Fit: fxFit(s), Capacity: fxCapacity(s)}
		if s.name == plan.MixSegment {
			a.Mix = &sa
			continue
		}
		a.Plan.Segments = append(a.Plan.Segments, plan.Segment{Name: s.name, Weight: s.weight,
			PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: float64(s.isl)}, OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: float64(s.osl)}})
		a.Segments = append(a.Segments, sa)
	}
	a.Overall, a.OverallSource = a.Mix.Capacity, plan.MixSegment
	users := a.Overall.UsersWithThinkTime
	for _, t := range []int{1000, 5000} {
		for _, g := range []struct {
			name      string
			projected bool
			scale     float64
		}{{"H100-SXM", false, 1}, {"A100-80G", true, 0.55}} {
			upr := users * g.scale
			rep := int(math.Ceil(float64(t) / (math.Floor(upr) * 0.8))) // whole users per replica
			a.WhatIf = append(a.WhatIf, analysis.WhatIf{GPU: g.name, Projected: g.projected, UsersPerReplica: upr, TargetUsers: t,
				Replicas: rep, GPUs: rep, CostPerMonthUSD: float64(rep) * 2.5 * hoursPerMonth, CostPerMOutputUSD: 0.42 / g.scale, GPUHourUSD: 2.5, SamePriceAssumed: g.projected})
		}
	}
	a.Kernels = []analysis.KernelSummary{{Step: 29, Segment: plan.MixSegment, Load: 64, Dir: "profiles/step-029",
		ClassShares: map[string]float64{"gemm": 0.55, "attention": 0.3, "other": 0.15},
		Top: []analysis.KernelRow{{Name: "sm90_xmma_gemm_bf16", Class: "gemm", TotalTimeNs: 812_000_000, Instances: 40000, Share: 0.41},
			{Name: "flash_fwd_splitkv_kernel", Class: "attention", TotalTimeNs: 402_000_000, Instances: 22000, Share: 0.2}}}}
	a.Answer = fmt.Sprintf("One H100-SXM serving llama-3.1-8b handles %s concurrent users within TTFT p95 ≤ 500 ms; "+
		"5,000 users need %d replicas, about %s/month.", auto(a.Overall.MaxConcurrencyWithinSLA), a.WhatIf[2].Replicas, usd(a.WhatIf[2].CostPerMonthUSD))
	a.Warnings = []analysis.Warning{{Kind: analysis.WarnNotSteady, Segment: "short-chat", Step: 0,
		Message: "Step short-chat @ 1 concurrency did not reach steady state."},
		// The analysis's notes on the headline: steps above the error bound, projected what-if rows.
		{Kind: analysis.WarnErrorRateAboveSLA, Step: -1, Message: "Error rate above 1.0% at 4 step(s): short-chat @ 128 concurrency (3.0%), " +
			"rag-medium @ 128 concurrency (3.0%), long-context @ 128 concurrency (3.0%), mix @ 128 concurrency (3.0%)."},
		{Kind: analysis.WarnWhatIfProjected, Step: -1,
			Message: "What-if rows marked 'projected' are roofline projections to other GPUs, not measurements."}}
	a.GroundTruth = map[string]any{"max_num_seqs": 48}
	return a
}

// fxWriteRunDir writes run.json, records.jsonl (perStep records per step, measured
// phase) and server-metrics.jsonl for a into a fresh directory (rundirtest) and returns it.
func fxWriteRunDir(tb testing.TB, a *analysis.Analysis, perStep int) string {
	tb.Helper()
	dir := tb.TempDir()
	rundirtest.Write(tb, dir, rundirtest.Run{
		Meta:    rundir.RunMeta{RunID: a.RunID, StartedAt: fxRunStart, State: rundir.StateComplete, Plan: a.Plan},
		Records: fxRecords(a, perStep), Metrics: fxMetrics(a)})
	return dir
}

// fxRecords are perStep measured records per step of a, sent one after another.
func fxRecords(a *analysis.Analysis, perStep int) []rundir.Record {
	var out []rundir.Record
	rng := rand.New(rand.NewPCG(7, 11))
	t := fxRunStart.UnixNano()
	for _, seg := range allSegments(a) {
		for _, st := range seg.Steps {
			for k := 0; k < perStep; k++ {
				r := fxRecord(a, seg.Segment, st, k, rng)
				r.SentNs = t
				if r.OK() {
					r.FirstTokenNs = t + int64(*r.TTFTMs*1e6)
					r.EndNs = t + int64(*r.E2EMs*1e6)
				}
				t += int64(1e9 / math.Max(st.RequestThroughput, 1))
				out = append(out, r)
			}
		}
	}
	return out
}

func fxRecord(a *analysis.Analysis, seg string, st analysis.StepStats, k int, rng *rand.Rand) rundir.Record {
	ptr := func(v float64) *float64 { return &v }
	ttft := st.TTFTMs.Mean * math.Exp(0.12*rng.NormFloat64())
	itl := st.ITLMs.Mean * math.Exp(0.05*rng.NormFloat64())
	osl := int(st.OutputTokensMean)
	r := rundir.Record{RunID: a.RunID, Segment: seg, StepSegment: seg, Step: st.Step, Schedule: st.Schedule,
		Concurrency: st.Concurrency, Phase: rundir.PhaseMeasure, RequestID: fmt.Sprintf("r-%d-%d", st.Step, k),
		SessionID: fmt.Sprintf("s-%d-%d", st.Step, k), Turn: 0, TTFTMs: ptr(ttft), TTFOMs: ptr(ttft), ITLMs: ptr(itl),
		E2EMs: ptr(ttft + itl*float64(osl-1)), IntendedPromptTokens: int(st.PromptTokensMean), IntendedOutputTokens: osl,
		PromptTokens: int(st.PromptTokensMean), OutputTokens: osl, TokensSource: rundir.TokensUsage, Chunks: osl,
		FinishReason: "length", Status: rundir.StatusOK}
	if k == 0 && st.ErrorRate > 0 {
		r.Status, r.ErrorClass, r.Error = rundir.StatusError, rundir.ErrTimeoutFirstByte, "no first byte within 30s"
		r.TTFTMs, r.TTFOMs, r.ITLMs, r.E2EMs, r.OutputTokens = nil, nil, nil, nil, 0
	}
	return r
}

// fxMetrics are vLLM-named scrapes of a's first segment: six per step, the last between
// steps.
func fxMetrics(a *analysis.Analysis) []rundir.MetricSample {
	var out []rundir.MetricSample
	t := fxRunStart.UnixNano()
	seg := a.Segments[0]
	slots := fxSegments[0].slots
	for _, st := range seg.Steps {
		for k := 0; k < 6; k++ {
			step := st.Step
			if k == 5 {
				step = -1
			}
			running := math.Min(st.Load, slots)
			s := rundir.MetricSample{TimeNs: t, Step: step, URL: "http://127.0.0.1:8000/metrics", Values: map[string]float64{
				`vllm:num_requests_running{model_name="m"}`:  running,
				`vllm:num_requests_waiting{model_name="m"}`:  math.Max(0, st.Load-slots),
				`vllm:kv_cache_usage_perc{model_name="m"}`:   0.8 * running / slots,
				`vllm:num_preemptions_total{model_name="m"}`: 0,
			}}
			out = append(out, s)
			t += int64(time.Second)
		}
	}
	return out
}

// inputRecords are in's requests as the report streams them (eachRequest: file order,
// a request's repeated lines once).
func inputRecords(t testing.TB, in *input) []rundir.Record {
	t.Helper()
	var out []rundir.Record
	if err := in.eachRequest(func(r *rundir.Record) error { out = append(out, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}
