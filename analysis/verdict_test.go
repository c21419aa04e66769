package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// failRecord turns r into a failed request of class cls with message msg.
func failRecord(r *rundir.Record, cls, msg string) {
	r.Status, r.ErrorClass, r.Error = rundir.StatusError, cls, msg
	r.TTFTMs, r.TTFOMs, r.ITLMs, r.E2EMs = nil, nil, nil, nil
	r.OutputTokens, r.FirstTokenNs = 0, 0
}

func mustAnalyze(t *testing.T, meta rundir.RunMeta, recs []rundir.Record) *Analysis {
	t.Helper()
	a, err := Analyze(writeRunDir(t, meta, recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func summaryText(t *testing.T, a *Analysis) string {
	t.Helper()
	var b bytes.Buffer
	if err := PrintSummary(&b, a); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestAllRequestsFailedBindsTheErrorRate: a target that rejects every request fails on
// the error rate, not on a latency; the answer names the class and the first message.
func TestAllRequestsFailedBindsTheErrorRate(t *testing.T) {
	p := simPlan("fail", []int{1, 4}, plan.SLA{TTFTMs: map[string]float64{"p95": 500}})
	recs := decodeSim.ladder(p)
	measured := 0
	const msg = "The model `gpt-4` does not exist"
	for i := range recs {
		failRecord(&recs[i], "http_4xx", msg)
		if recs[i].Phase != rundir.PhaseWarmup {
			measured++
		}
	}
	a := mustAnalyze(t, metaFor(p), recs)
	c := a.Overall
	t.Logf("answer: %s\nadvice: %s", a.Answer, c.Advice)
	if c.LimitingConstraint != "error rate ≤ 1%" || c.Bottleneck != RegimeErrors || c.Method != MethodBelowFirstStep {
		t.Errorf("capacity %+v", c)
	}
	s0 := a.Segments[0].Steps[0]
	want := "100% of requests failed at load 1 (http_4xx ×" + commaInt(float64(s0.Errors)) + ": '" + msg + "')"
	if !strings.Contains(a.Answer, want) || !strings.Contains(a.Answer, "fix the target") {
		t.Errorf("answer %q lacks %q", a.Answer, want)
	}
	for _, bad := range []string{"TTFT", "queue", "add replicas", "unloaded latency"} {
		if strings.Contains(a.Answer, bad) || strings.Contains(c.Advice, bad) {
			t.Errorf("answer/advice mention %q: %q / %q", bad, a.Answer, c.Advice)
		}
	}
	if s0.ErrorSamples["http_4xx"] != msg || s0.TTFTMs.N != 0 || s0.Errors != s0.Requests || s0.Requests == 0 {
		t.Errorf("step 0: samples %v TTFT n %d errors %d of %d", s0.ErrorSamples, s0.TTFTMs.N, s0.Errors, s0.Requests)
	}
	if len(s0.SLAViolations) != 1 || s0.SLAViolations[0] != "error rate 100.0% > 1.0%" {
		t.Errorf("violations %q", s0.SLAViolations)
	}
	e := a.Errors
	if e.Errors != measured || e.Requests != measured || e.ErrorRate != 1 || e.Classes["http_4xx"] != measured || e.Samples["http_4xx"] != msg {
		t.Errorf("errors %+v, want %d", e, measured)
	}
	out := summaryText(t, a)
	if !strings.Contains(out, "–") || !strings.Contains(out, "Errors: "+commaInt(float64(measured))+" of ") || strings.Contains(out, "100000") {
		t.Errorf("summary:\n%s", out)
	}
}

// TestTenPercentFailuresAreTheVerdict: with 10% failures at every load the SLA fails on
// the error rate at the lowest load: the advice is to fix them, not to extend the ladder.
func TestTenPercentFailuresAreTheVerdict(t *testing.T) {
	p := simPlan("flaky", []int{1, 2, 4}, plan.SLA{TTFTMs: map[string]float64{"p95": 5000}})
	recs := decodeSim.ladder(p)
	for i := range recs {
		if i%10 == 0 {
			failRecord(&recs[i], "http_5xx", "HTTP 500: internal error")
		}
	}
	a := mustAnalyze(t, metaFor(p), recs)
	c := a.Overall
	t.Logf("answer: %s\nadvice: %s", a.Answer, c.Advice)
	if c.Bottleneck != RegimeErrors || c.LimitingConstraint != "error rate ≤ 1%" {
		t.Errorf("capacity %+v", c)
	}
	if strings.Contains(c.Advice, "extend the ladder") || strings.Contains(c.Advice, "No bottleneck") || !strings.Contains(c.Advice, "http_5xx") {
		t.Errorf("advice %q", c.Advice)
	}
	r := a.Segments[0].Steps[0].ErrorRate
	if r < 0.05 || r > 0.15 || !strings.Contains(a.Answer, pct(r)+" of requests failed at load 1 (http_5xx ×") {
		t.Errorf("error rate %.3f, answer %q", r, a.Answer)
	}
}

// TestEveryStepPassingIsAtLeastTheLastLoad: a ladder that never saturates answers "at
// least" the highest load tested, with an open band and unidentified slots (never the
// 100000 placeholder), not a 10× extrapolation.
func TestEveryStepPassingIsAtLeastTheLastLoad(t *testing.T) {
	p := simPlan("pass", []int{1, 2, 4}, plan.SLA{TTFTMs: map[string]float64{"p95": 5000}})
	a := mustAnalyze(t, metaFor(p), decodeSim.ladder(p))
	c := a.Overall
	t.Logf("answer: %s", a.Answer)
	if c.Method != MethodAtLeast || c.MaxConcurrencyWithinSLA != 4 || c.RangeLow != 4 || c.RangeHigh != 0 || !c.OpenEnded {
		t.Errorf("capacity %+v", c)
	}
	if !strings.Contains(a.Answer, "keeps at least 4 requests in flight within the SLA.") ||
		!strings.Contains(a.Answer, "1,000 users need at most ") {
		t.Errorf("answer %q", a.Answer)
	}
	if want := "At least 4 requests in flight: no load tested broke the SLA"; !strings.HasPrefix(a.Headline.Certainty, want) {
		t.Errorf("certainty %q, want it to start %q", a.Headline.Certainty, want)
	}
	f := a.Segments[0].Fit
	if f == nil || f.SlotsIdentified || f.Slots != 0 || f.SlotsCIHigh != 0 || f.ServiceRate != 0 {
		t.Fatalf("fit %+v", f)
	}
	b, _ := json.Marshal(a)
	out := summaryText(t, a)
	if bytes.Contains(b, []byte("100000")) || strings.Contains(out, "100000") || !strings.Contains(out, "slots not identified (no step saturated the server)") {
		t.Errorf("placeholder slots leak or no 'not identified':\n%s", out)
	}
}

// TestProjectionIsCappedAndLabelled: with saturated slots and a good fit the model may
// project beyond the last step, at most 2×, with its prediction interval inside
// [last, 2·last].
func TestProjectionIsCappedAndLabelled(t *testing.T) {
	p := simPlan("proj", []int{2, 4, 8, 12, 16}, plan.SLA{TTFTMs: map[string]float64{"p95": 3000}})
	a := mustAnalyze(t, metaFor(p), queueSim.ladder(p))
	c, f := a.Overall, a.Segments[0].Fit
	t.Logf("answer: %s; fit R² %.3f slots %.1f identified %v", a.Answer, f.R2, f.Slots, f.SlotsIdentified)
	if !f.SlotsIdentified || f.Slots < 7 || f.Slots > 9 {
		t.Fatalf("slots %.2f identified %v, want about 8", f.Slots, f.SlotsIdentified)
	}
	if f.R2 < projectMinR2 {
		t.Fatalf("R² %.3f: the test ladder should fit well", f.R2)
	}
	if c.Method != MethodModel || c.MaxConcurrencyWithinSLA <= 16 || c.MaxConcurrencyWithinSLA > 32 || c.RangeLow < 16 ||
		c.RangeHigh > 32 || c.RangeLow > c.MaxConcurrencyWithinSLA || c.RangeHigh < c.MaxConcurrencyWithinSLA || c.RangeKind != RangePrediction {
		t.Errorf("capacity %+v", c)
	}
	if !strings.Contains(a.Answer, "keeps about "+commaInt(c.MaxConcurrencyWithinSLA)+" requests in flight within the SLA.") {
		t.Errorf("answer %q", a.Answer)
	}
	if want := "Modelled beyond the measurements: every load tested met the SLA, up to 16 requests in flight; the queueing model projects about "; !strings.HasPrefix(a.Headline.Certainty, want) {
		t.Errorf("certainty %q, want it to start %q", a.Headline.Certainty, want)
	}
}

// TestSpeedUpIsWarned: a simulator run faster than real time is flagged in the warnings
// (first) and in the answer.
func TestSpeedUpIsWarned(t *testing.T) {
	p := simPlan("fast", []int{1, 2, 4}, plan.SLA{TTFTMs: map[string]float64{"p95": 5000}})
	meta := metaFor(p)
	meta.Target = rundir.TargetInfo{Simulator: true, Settings: map[string]any{"speed_up": 10.0}}
	a := mustAnalyze(t, meta, decodeSim.ladder(p))
	if a.SpeedUp != 10 || len(a.Warnings) == 0 || a.Warnings[0].Kind != WarnSpeedUp || !strings.Contains(a.Warnings[0].Message, "ran 10× faster than real time") ||
		!strings.Contains(a.Answer, "10× faster than real time") {
		t.Errorf("speed_up %v, warnings %q, answer %q", a.SpeedUp, a.WarningMessages(), a.Answer)
	}
	meta.Target.Settings["speed_up"] = 1.0
	if a := mustAnalyze(t, meta, decodeSim.ladder(p)); a.SpeedUp != 0 || strings.Contains(a.Answer, "faster") {
		t.Errorf("speed_up 1: %v %q", a.SpeedUp, a.Answer)
	}
}

// TestNoStepsIsAnError: a failed launch (no records) is an error, not a verdict.
func TestNoStepsIsAnError(t *testing.T) {
	p := simPlan("launch", []int{1}, plan.SLA{TTFTMs: map[string]float64{"p95": 500}})
	meta := metaFor(p)
	meta.State = rundir.StateFailed
	_, err := Analyze(writeRunDir(t, meta, []rundir.Record{}, nil, nil))
	if !errors.Is(err, ErrNoSteps) || !strings.Contains(err.Error(), "no step completed: nothing to analyse (run state: failed)") {
		t.Fatalf("err %v", err)
	}
}

// TestWarmupOnlyStepHasNoVerdict: a step whose requests all fell in the warm-up has no
// measured requests and no capacity verdict.
func TestWarmupOnlyStepHasNoVerdict(t *testing.T) {
	p := simPlan("warm", []int{2}, plan.SLA{TTFTMs: map[string]float64{"p95": 500}})
	recs := decodeSim.ladder(p)
	for i := range recs {
		recs[i].Phase = rundir.PhaseWarmup
	}
	a := mustAnalyze(t, metaFor(p), recs)
	c := a.Overall
	want := "no measured requests (all " + commaInt(float64(len(recs))) + " requests fell in the warm-up)"
	if c.Method != MethodNoData || c.Bottleneck != RegimeNone || !strings.Contains(a.Answer, want) {
		t.Errorf("capacity %+v answer %q", c, a.Answer)
	}
	for _, bad := range []string{"misses the SLA", "queue"} {
		if strings.Contains(a.Answer, bad) {
			t.Errorf("answer %q says %q", a.Answer, bad)
		}
	}
}

// TestWhatIfSkipsGPUsTheWeightsDoNotFit: llama-3.1-8b (16 GB of BF16 weights) does not
// fit a 12 GB RTX-3060; other projected GPUs reuse the measured $/GPU-hour, flagged.
func TestWhatIfSkipsGPUsTheWeightsDoNotFit(t *testing.T) {
	p := simPlan("whatif", queueLadder[:6], plan.SLA{TTFTMs: map[string]float64{"p95": 300}})
	p.Target.Model = "llama-3.1-8b"
	p.Report.WhatIfGPUs = []string{"RTX-3060", "A100-80GB"}
	a := mustAnalyze(t, metaFor(p), queueSim.ladder(p))
	var a100 int
	for _, w := range a.WhatIf {
		switch {
		case w.GPU == "RTX-3060":
			t.Errorf("RTX-3060 row: %+v", w)
		case w.GPU == "A100-80GB":
			a100++
			if !w.SamePriceAssumed || w.GPUHourUSD != 2 {
				t.Errorf("A100 row %+v", w)
			}
		case !w.Projected && (w.SamePriceAssumed || w.GPUHourUSD != 2):
			t.Errorf("measured row %+v", w)
		}
	}
	warned := false
	for _, w := range a.WarningMessages() {
		warned = warned || strings.Contains(w, "what-if GPU RTX-3060 skipped: llama-3.1-8b's weights (16.1 GB) do not fit")
	}
	if a100 != 1 || !warned {
		t.Errorf("A100 rows %d, warnings %q", a100, a.WarningMessages())
	}
}

// TestSaturatedOpenLoopStatesTheServedRate: an open-loop step offered more than the
// server completes (8 slots, about 8.6 req/s) is answered with the achieved rate, and
// the users follow from that same throughput.
func TestSaturatedOpenLoopStatesTheServedRate(t *testing.T) {
	p := plan.Plan{Name: "sat", Seed: 5, Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Rate: []float64{2, 4, 14}, Duration: time.Minute},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 1e7}, ThinkTime: 5 * time.Second}}
	var recs []rundir.Record
	for _, s := range p.Steps() {
		recs = append(recs, queueSim.stepOpen(s.Index, s.Segment, s.Rate)...)
	}
	a := mustAnalyze(t, metaFor(p), recs)
	sa := a.Segments[0]
	c := sa.Capacity
	last := sa.Steps[len(sa.Steps)-1]
	t.Logf("answer: %s; last step achieved %.2f of %.0f", a.Answer, last.AchievedRateRps, last.Rate)
	if last.AchievedRateRps < 7 || last.AchievedRateRps > 10 || last.LittleThroughputRps != last.AchievedRateRps {
		t.Fatalf("rate 14: achieved %.2f, little %.2f, want about 8.6", last.AchievedRateRps, last.LittleThroughputRps)
	}
	if first := sa.Steps[0]; first.LittleThroughputRps != first.Rate {
		t.Errorf("rate 2 kept up, little %.3f", first.LittleThroughputRps)
	}
	if c.Method != MethodAtLeast || c.OfferedRateRps != 14 || c.MaxRateWithinSLA != last.AchievedRateRps ||
		c.ThroughputAtCapacity != c.MaxRateWithinSLA {
		t.Errorf("capacity %+v", c)
	}
	rS := last.E2EMs.Mean / 1000
	near(t, "users", c.UsersWithThinkTime, c.MaxRateWithinSLA*(rS+5), 1e-9)
	near(t, "in flight", c.MaxConcurrencyWithinSLA, c.MaxRateWithinSLA*rS, 1e-9)
	if want := fmt.Sprintf("keeps at least %s users (who pause 5 s between requests) within the SLA — %s requests/s.",
		commaInt(float64(c.Users)), rateNum(c.MaxRateWithinSLA)); !strings.Contains(a.Answer, want) {
		t.Errorf("answer %q lacks %q", a.Answer, want)
	}
	if want := fmt.Sprintf("The server completed %s of the 14 requests/s offered.", rateNum(c.MaxRateWithinSLA)); !strings.Contains(a.Headline.Note, want) {
		t.Errorf("note %q lacks %q", a.Headline.Note, want)
	}
}

// TestFailuresAtHigherLoadBindTheErrorRate: requests that all fail at the top step bind
// the error rate there (not a latency that is missing because nothing succeeded).
func TestFailuresAtHigherLoadBindTheErrorRate(t *testing.T) {
	p := simPlan("oom", []int{1, 2, 4}, plan.SLA{TTFTMs: map[string]float64{"p95": 5000}})
	recs := decodeSim.ladder(p)
	steps := p.Steps()
	for i := range recs {
		if recs[i].Step == steps[2].Index {
			failRecord(&recs[i], "http_5xx", "CUDA out of memory")
		}
	}
	a := mustAnalyze(t, metaFor(p), recs)
	c := a.Overall
	t.Logf("answer: %s\nadvice: %s", a.Answer, c.Advice)
	if c.Method != MethodMeasured || c.LimitingConstraint != "error rate ≤ 1%" || c.Bottleneck != RegimeErrors {
		t.Fatalf("capacity %+v", c)
	}
	// The error rate goes 0 → 100% between loads 2 and 4: the last passing load is 2.
	near(t, "capacity", c.MaxConcurrencyWithinSLA, 2, 1e-9)
	if !strings.Contains(a.Answer, "keeps 2 requests in flight within the SLA.") || a.Headline.Limit != "Beyond this load too many requests fail." ||
		!strings.Contains(c.BottleneckEvidence, "100% of requests failed at load 4 (http_5xx ×") || !strings.Contains(c.Advice, "CUDA out of memory") {
		t.Errorf("answer %q advice %q", a.Answer, c.Advice)
	}
}
