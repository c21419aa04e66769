package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"

	"github.com/llmcap/llmcap/plan"
)

func TestRateLadder(t *testing.T) {
	p := plan.Plan{Name: "rate", Seed: 5, Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Rate: []float64{2, 4, 6, 7, 8, 10}, Duration: time.Minute},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 1000}}}
	var recs []rundir.Record
	for _, s := range p.Steps() {
		recs = append(recs, queueSim.stepOpen(s.Index, s.Segment, s.Rate)...)
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	sa := a.Segments[0]
	for _, s := range sa.Steps {
		t.Logf("rate %v: achieved %.2f little %.2f n=%d TTFT p95 %.0f X %.2f steady %v (%s) regime %s", s.Load, s.AchievedRateRps, s.LittleThroughputRps, s.Requests, s.TTFTMs.P95,
			s.RequestThroughput, s.SteadyState, s.SteadyStateReason, s.Regime)
	}
	c := sa.Capacity
	t.Logf("max rate %.2f req/s (%s, %s, range %.2f–%.2f), in flight %.1f; slots %.2f; %s", c.MaxRateWithinSLA, c.Method, c.LimitingConstraint, c.RangeLow, c.RangeHigh,
		c.MaxConcurrencyWithinSLA, sa.Fit.Slots, a.Answer)
	if a.Schedule != plan.ScheduleRate || (c.Method != MethodMeasured && c.Method != MethodInterpolated) {
		t.Fatalf("schedule %s method %s", a.Schedule, c.Method)
	}
	if c.RangeLow > c.MaxRateWithinSLA || c.RangeHigh < c.MaxRateWithinSLA || c.RangeLow < 8 || c.RangeHigh > 10 {
		t.Errorf("range [%.2f, %.2f] around %.2f: want it inside the bracket [8, 10)", c.RangeLow, c.RangeHigh, c.MaxRateWithinSLA)
	}
	// The server saturates at 8 slots / ~0.92 s ≈ 8.7 req/s: the capacity lies below it.
	if c.MaxRateWithinSLA < 4 || c.MaxRateWithinSLA > 8.7 {
		t.Errorf("max rate %.2f req/s outside (4, 8.7)", c.MaxRateWithinSLA)
	}
	if math.Abs(sa.Fit.Slots-8)/8 > 0.10 {
		t.Errorf("open-loop effective slots %.2f, want 8 ± 10%%", sa.Fit.Slots)
	}
	if last := sa.Steps[len(sa.Steps)-1]; last.SteadyState {
		t.Errorf("overloaded rate 10 judged steady: %s", last.SteadyStateReason)
	}
	if !strings.Contains(a.Answer, "requests/s") {
		t.Errorf("answer %q does not state a rate", a.Answer)
	}
}

// mixRun writes a run with two segments measured only inside a two-step mix, server
// metrics for each step and a kernels summary.
func mixRun(t *testing.T) (string, plan.Plan) {
	f := false
	p := plan.Plan{Name: "mix", Seed: 1,
		Segments: []plan.Segment{{Name: "short", Weight: 3}, {Name: "long", Weight: 1}},
		Ladder:   plan.Ladder{Concurrency: []int{2, 4}, PerSegment: &f, Mix: true},
		SLA:      plan.SLA{TTFTMs: map[string]float64{"p95": 250}},
		Report:   plan.Report{TargetUsers: []int{100}, GPUHourUSD: 2, GPU: "H100-SXM", WhatIfGPUs: []string{"A100-80GB", "nope"}}}
	const T = int64(1_700_000_000) * 1e9
	var recs []rundir.Record
	var steps []rundir.StepSummary
	var samples []rundir.MetricSample
	for _, st := range p.Steps() {
		base := T + int64(st.Index)*100e9
		for i := 0; i < 40; i++ {
			seg, ttft := "short", 100.0+float64(st.Concurrency)*10
			if i%4 == 3 {
				seg, ttft = "long", 200.0+float64(st.Concurrency)*20
			}
			sent := base + int64(i)*1e9
			recs = append(recs, rundir.Record{Segment: seg, StepSegment: plan.MixSegment, Step: st.Index,
				Schedule: plan.ScheduleConcurrency, Concurrency: st.Concurrency, Phase: rundir.PhaseMeasure,
				SentNs: sent, EndNs: sent + 2e9, TTFTMs: fp(ttft + float64(i%3)), ITLMs: fp(10), E2EMs: fp(2000),
				OutputTokens: 100, PromptTokens: 50, Status: rundir.StatusOK, ICLMs: []float64{9, 11}})
		}
		steps = append(steps, rundir.StepSummary{Step: st, MeasureStartNs: base, MeasureEndNs: base + 50e9,
			Captured: "profiles/step-" + string(rune('0'+st.Index))})
		for k := 0; k < 5; k++ {
			samples = append(samples, rundir.MetricSample{TimeNs: base + int64(k)*10e9, Step: st.Index, Values: map[string]float64{
				`vllm:num_requests_running{model_name="m"}`:  float64(st.Concurrency),
				`vllm:num_requests_waiting{model_name="m"}`:  float64(k),
				`vllm:kv_cache_usage_perc{model_name="m"}`:   0.1 * float64(k),
				`vllm:num_preemptions_total{model_name="m"}`: float64(3 * k)}})
		}
		samples = append(samples, rundir.MetricSample{TimeNs: base + 90e9, Step: st.Index, // outside the window
			Values: map[string]float64{`vllm:num_requests_waiting{model_name="m"}`: 1000}})
	}
	dir := writeRunDir(t, metaFor(p), recs, steps, samples)
	kd := filepath.Join(dir, rundir.DirProfiles, "step-1")
	if err := os.MkdirAll(kd, 0o755); err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, filepath.Join(kd, "kernels.json"), []KernelRow{
		{Name: "gemm", Class: "gemm", TotalTimeNs: 300}, {Name: "attn", Class: "attention", TotalTimeNs: 100}})
	return dir, p
}

func TestMixSegmentsServerKernelsAndRoundTrip(t *testing.T) {
	dir, _ := mixRun(t)
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Mix == nil || len(a.Mix.Steps) != 2 || a.OverallSource != plan.MixSegment {
		t.Fatalf("mix %+v source %q", a.Mix, a.OverallSource)
	}
	if a.Mix.Steps[0].Requests != 40 || len(a.Segments) != 2 {
		t.Fatalf("mix step requests %d, segments %d", a.Mix.Steps[0].Requests, len(a.Segments))
	}
	short, long := a.Segments[0], a.Segments[1]
	if short.Steps[0].Requests != 30 || long.Steps[0].Requests != 10 || short.Weight != 0.75 {
		t.Errorf("drawn-segment split: short %d long %d weight %v", short.Steps[0].Requests, long.Steps[0].Requests, short.Weight)
	}
	checkSummary(t, "icl", a.Mix.Steps[0].ICLMs, Summary{N: 80, Mean: 10, P50: 10, P90: 11, P95: 11, P99: 11, Min: 9, Max: 11, StdDev: 1})
	sv := a.Mix.Steps[1].Server
	if sv == nil {
		t.Fatal("no server stats")
	}
	// Window samples k = 0..4: waiting mean 2, max 4; KV max 0.4; preemptions 12 − 0.
	near(t, "waiting mean", sv.WaitingMean, 2, 1e-9)
	near(t, "waiting max", sv.WaitingMax, 4, 1e-9)
	near(t, "running mean", sv.RunningMean, 4, 1e-9)
	near(t, "kv max", sv.KVCacheUsageMax, 0.4, 1e-9)
	near(t, "preemptions", sv.Preemptions, 12, 1e-9)
	if len(a.Kernels) != 1 || a.Kernels[0].Step != 1 || math.Abs(a.Kernels[0].ClassShares["gemm"]-0.75) > 1e-9 {
		t.Errorf("kernels %+v", a.Kernels)
	}
	var projected int
	for _, w := range a.WhatIf {
		if w.Projected {
			projected++
			if w.GPU != "A100-80GB" || w.UsersPerReplica >= a.WhatIf[0].UsersPerReplica {
				t.Errorf("projection %+v vs measured %+v", w, a.WhatIf[0])
			}
		}
	}
	if projected != 1 || !strings.Contains(strings.Join(a.WarningMessages(), "\n"), `"nope" not in the catalog`) {
		t.Errorf("what-if rows %+v warnings %q", a.WhatIf, a.WarningMessages())
	}
	if err := WriteJSON(dir, a); err != nil {
		t.Fatal(err)
	}
	b, err := ReadJSON(dir)
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(a)
	j2, _ := json.Marshal(b)
	if !bytes.Equal(j1, j2) {
		t.Error("analysis.json does not round-trip")
	}
	var out bytes.Buffer
	if err := PrintSummary(&out, b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Segment short", "Segment mix", "Answer: ", "TTFT p95", "Capacity:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSizingAndAnswer(t *testing.T) {
	c := Capacity{MaxConcurrencyWithinSLA: 48, UsersWithThinkTime: 48, OutputTokensPerSAtCapacity: 2000,
		Bottleneck: RegimeQueue, Method: MethodMeasured, LimitingConstraint: "TTFT p95 ≤ 500 ms"}
	sz := sizing{gpu: "H100-SXM", model: "llama-3.1-8b", gpusPerReplica: 2, gpuHourUSD: 2.5, headroom: 0.2, targets: []int{5000}}
	rows, _ := whatIfRows(c, sz, nil)
	// usable users per replica 48 × 0.8 = 38.4 → ceil(5000 / 38.4) = 131 replicas, 262 GPUs.
	w := rows[0]
	if w.Replicas != 131 || w.GPUs != 262 {
		t.Fatalf("row %+v", w)
	}
	near(t, "cost per month", w.CostPerMonthUSD, 262*2.5*730, 1e-6)
	near(t, "cost per M output tokens", w.CostPerMOutputUSD, 2*2.5/(2000*0.8*3600)*1e6, 1e-9)
	a := &Analysis{Overall: c, WhatIf: rows, Schedule: plan.ScheduleConcurrency}
	got := answerSentence(a, sz)
	want := "One 2×H100-SXM replica serving llama-3.1-8b keeps 48 requests in flight within the SLA. 5,000 users need 131 replicas (262 GPUs), about $478,150 a month."
	if got != want {
		t.Errorf("answer\n got %q\nwant %q", got, want)
	}
	// A CPU server (Ollama) is sized in machines, not GPUs.
	sz.gpu, sz.gpusPerReplica = "2-core CPU", 1
	a.WhatIf, _ = whatIfRows(c, sz, nil)
	if got := answerSentence(a, sz); !strings.Contains(got, "5,000 users need 131 machines, about $239,075 a month.") {
		t.Errorf("CPU answer %q", got)
	}
}

// TestMeasuredCapacityIsTheLastPassingLoad: the measured capacity is the largest
// passing load (16), not a straight line towards the failing one; the binding
// constraint is the one whose interpolation crosses its threshold first.
func TestMeasuredCapacityIsTheLastPassingLoad(t *testing.T) {
	spec := plan.SLA{TTFTMs: map[string]float64{"p95": 500}, ITLMs: map[string]float64{"p50": 30}}
	step := func(load, ttftP95, itlP50 float64) ladderStep {
		s := StepStats{Load: load, Requests: 10, itlEligible: 10,
			TTFTMs: Summary{N: 10, P95: ttftP95}, ITLMs: Summary{N: 10, P50: itlP50}}
		return ladderFrom([]StepStats{s}, spec)[0]
	}
	steps := []ladderStep{
		step(8, 200, 20),
		step(16, 400, 25),
		// TTFT crosses 500 at 16 + 8·(100/400) = 18; ITL crosses 30 at 16 + 8·(5/10) = 20.
		step(24, 800, 35),
	}
	r := measuredCapacity(steps)
	if r.method != MethodMeasured || r.binding != "TTFT p95 ≤ 500 ms" || r.bound != (sla.Bound{Metric: sla.TTFT, Stat: sla.P95, Threshold: 500}) {
		t.Fatalf("%+v", r)
	}
	near(t, "capacity", r.value, 16, 1e-9)
	r = measuredCapacity(steps[2:])
	if r.method != MethodBelowFirstStep || r.binding != "TTFT p95 ≤ 500 ms" {
		t.Errorf("below first step: %+v", r)
	}
}

func TestBadInputs(t *testing.T) {
	if _, err := Analyze(t.TempDir()); err == nil {
		t.Error("empty directory analysed without error")
	}
	p := plan.Plan{Name: "bad", Segments: []plan.Segment{{Name: "chat", Weight: 1}}, Ladder: plan.Ladder{Concurrency: []int{1}}}
	dir := writeRunDir(t, metaFor(p), nil, nil, nil)
	f, _ := os.OpenFile(filepath.Join(dir, rundir.FileRecords), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"segment\":\"chat\",\"step\":0,\"phase\":\"measure\",\"status\":\"ok\",\"ttft_ms\":12.5,\"output_tokens\":3}\n{not json\n{\"segment\":\"ch\\u0061t\",\"step\":0,\"phase\":\"measure\",\"status\":\"ok\",\"ttft_ms\":null,\"error\":\"x \\\"q\\\"\"}\n{\"segment\":\"chat\",\"step\":0,\"ph")
	f.Close()
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := a.Segments[0].Steps[0].Requests; n != 2 {
		t.Errorf("requests %d, want 2 (escaped line decoded by the fallback)", n)
	}
	if w := strings.Join(a.WarningMessages(), "\n"); !strings.Contains(w, "records.jsonl: 1 corrupt line skipped (first: line 2") ||
		!strings.Contains(w, "a torn last line dropped") {
		t.Errorf("warnings %q", a.WarningMessages())
	}
	typed := false
	for _, w := range a.Warnings {
		typed = typed || w.Kind == WarnDamagedLines && w.Data != nil && w.Data.File == rundir.FileRecords &&
			w.Data.Count == 1 && w.Data.Line == 2 && w.Data.Torn
	}
	if !typed {
		t.Errorf("no damaged-lines warning with file, count, line and torn: %+v", a.Warnings)
	}
	if _, err := json.Marshal(a); err != nil {
		t.Errorf("analysis does not encode: %v", err)
	}
	// Nothing readable at all: the error says the records could not be read, not only
	// that no step completed.
	junk := writeRunDir(t, metaFor(p), nil, nil, nil)
	if err := os.WriteFile(filepath.Join(junk, rundir.FileRecords), []byte("x\ny\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Analyze(junk); !errors.Is(err, ErrNoSteps) || !strings.Contains(err.Error(), "no record of records.jsonl could be read") ||
		!strings.Contains(err.Error(), "3 corrupt lines") {
		t.Errorf("all-corrupt records: %v", err)
	}
}

// traceReplayAnalysis analyses a one-step Azure trace replay: 40 requests sent every
// 0.5 s, each with TTFT 100 ms, ITL 10 ms, E2E 1 s and 50 output tokens.
func traceReplayAnalysis(t *testing.T) *Analysis {
	t.Helper()
	p := plan.Plan{Name: "trace", Segments: []plan.Segment{{Name: "conv", Weight: 1, Trace: &plan.Trace{Format: plan.TraceAzure, File: "x.csv"}}},
		SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 500}}}
	const T = int64(1_700_000_000) * 1e9
	var recs []rundir.Record
	for i := 0; i < 40; i++ {
		sent := T + int64(i)*5e8
		recs = append(recs, rundir.Record{Segment: "conv", Step: 0, Schedule: plan.ScheduleTrace, Phase: rundir.PhaseMeasure,
			SentNs: sent, EndNs: sent + 1e9, TTFTMs: fp(100), ITLMs: fp(10), E2EMs: fp(1000), OutputTokens: 50, Status: rundir.StatusOK})
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestTraceReplayStep(t *testing.T) {
	a := traceReplayAnalysis(t)
	s := a.Segments[0].Steps[0]
	// 40 requests over 19.5 s + 1 s.
	near(t, "trace load", s.Load, 40/20.5, 1e-9)
	if a.Schedule != plan.ScheduleTrace || !strings.Contains(a.Answer, "meets the SLA on the replayed trace (1.95 requests/s)") {
		t.Errorf("schedule %s answer %q", a.Schedule, a.Answer)
	}
}

func TestErlangC(t *testing.T) {
	near(t, "M/M/1 at ρ 0.5", erlangC(1, 0.5), 0.5, 1e-12)
	near(t, "M/M/2 at 1 Erlang", erlangC(2, 1), 1.0/3, 1e-12)
	near(t, "interpolated 1.5 slots", erlangC(1.5, 0.5), 0.5*0.5+0.5*erlangC(2, 0.5), 1e-12)
	if v := erlangC(8, 8); v != 1 {
		t.Errorf("saturated queue waits with probability %v", v)
	}
	if v := erlangC(50000, 100); v != 0 {
		t.Errorf("huge slot count: %v", v)
	}
}

func TestSanitizeFloats(t *testing.T) {
	a := &Analysis{Overall: Capacity{RangeLow: math.NaN()}, Segments: []SegmentAnalysis{{Fit: &Fit{Residuals: []float64{1, math.Inf(1)}}}},
		GroundTruth: map[string]any{"x": 1.0}, Kernels: []KernelSummary{{ClassShares: map[string]float64{"gemm": math.NaN()}}}}
	if n := sanitizeFloats(a); n != 3 {
		t.Errorf("replaced %d values, want 3", n)
	}
	if _, err := json.Marshal(a); err != nil {
		t.Error(err)
	}
}
