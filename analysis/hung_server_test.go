package analysis

import (
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// rateStep is one rate step (4 req/s) of 40 requests answered in 500 ms (TTFT 100 ms),
// sent every 250 ms from T, and the given unfinished records.
func rateStep(extra ...rundir.Record) (plan.Plan, []rundir.Record) {
	p := plan.Plan{Name: "hung", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Rate: []float64{4}}, SLA: plan.SLA{TTFTMs: map[string]float64{"p50": 2000}, MaxErrorRate: 0.01}}
	const T = int64(1_700_000_000) * 1e9
	var recs []rundir.Record
	for i := range 40 {
		sent := T + int64(i)*250e6
		recs = append(recs, rundir.Record{RunID: "test", Segment: "chat", Step: 0, Schedule: plan.ScheduleRate, Rate: 4,
			Phase: rundir.PhaseMeasure, SentNs: sent, FirstTokenNs: sent + 100e6, EndNs: sent + 500e6,
			TTFTMs: fp(100), TTFOMs: fp(100), ITLMs: fp(4), E2EMs: fp(500), PromptTokens: 100, OutputTokens: 100,
			TokensSource: rundir.TokensUsage, Status: rundir.StatusOK})
	}
	for i := range extra {
		extra[i].Schedule, extra[i].Rate, extra[i].Concurrency = plan.ScheduleRate, 4, 0
		extra[i].SentNs += T
		if extra[i].TTFTMs != nil {
			extra[i].FirstTokenNs = extra[i].SentNs + int64(*extra[i].TTFTMs*1e6)
		}
	}
	return p, append(recs, extra...)
}

// TestHungRequestsFailTheStepAndSaySo: 2 of 42 requests of a rate step hung after
// their headers (sent at 1 s and 5 s, cut at 12 s: 11 s and 7 s without an answer,
// against 500 ms for every finished one). They are overdue: the error rate is 2/42
// (over 1%), the step fails, the advice and the answer say the server looks hung — not
// "relax the SLA" — and the unfinished warning (2 of 42, under 5%) is given, without
// "lengthen ladder.grace". The throughputs run over the span to the cut (12 s), not to
// the last finished response (10.25 s).
func TestHungRequestsFailTheStepAndSaySo(t *testing.T) {
	p, recs := rateStep(unfinishedRecord(1e9, 11000, nil), unfinishedRecord(5e9, 7000, nil))
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if s.MeetsSLA || s.Overdue != 2 || s.OverdueAfterMs != 1000 || s.OverdueMinWaitMs != 7000 {
		t.Fatalf("meets %v overdue %d after %v min %v (%q)", s.MeetsSLA, s.Overdue, s.OverdueAfterMs, s.OverdueMinWaitMs, s.SLAViolations)
	}
	near(t, "error rate", s.ErrorRate, 2.0/42, 1e-12)
	near(t, "duration", s.DurationS, 12, 1e-9)
	near(t, "request throughput", s.RequestThroughput, 40.0/12, 1e-9)
	near(t, "good fraction", s.GoodFraction, 40.0/42, 1e-12)
	er := s.SLAChecks[len(s.SLAChecks)-1]
	if er.Metric != "error_rate" || er.Outcome != "broken" || er.Overdue != 2 || er.ValueFraction == nil || *er.ValueFraction != 2.0/42 {
		t.Errorf("error-rate check %+v", er)
	}
	want := "error rate 4.8% > 1.0% (2 of 42 requests got no token for ≥ 7.0 s, over twice the longest finished request)"
	if len(s.SLAViolations) != 1 || s.SLAViolations[0] != want {
		t.Errorf("violations %q, want %q", s.SLAViolations, want)
	}
	hung := "2 requests got no token for ≥ 7 s, longer than every finished request: the server looks hung"
	if !strings.Contains(a.Segments[0].Capacity.Advice, hung) || !strings.Contains(a.Answer, hung) {
		t.Errorf("advice %q\nanswer %q", a.Segments[0].Capacity.Advice, a.Answer)
	}
	all := a.Answer + "\n" + a.Segments[0].Capacity.Advice + "\n" + strings.Join(a.WarningMessages(), "\n")
	for _, bad := range []string{"relax the SLA", "lengthen ladder.grace", "faster deployment"} {
		if strings.Contains(all, bad) {
			t.Errorf("output says %q:\n%s", bad, all)
		}
	}
	if !strings.Contains(strings.Join(a.WarningMessages(), "\n"), "2 of 42 measured requests were still in flight") {
		t.Errorf("no unfinished warning: %q", a.WarningMessages())
	}
}

// TestUndeterminedStepSaysLengthenTheWindow: 4 requests still waited 900 ms for their
// first token when the step ended, longer than every finished request (500 ms) but not
// overdue (under 1 s): the TTFT p95 ≤ 2000 ms lies in their tail, undetermined, so the
// step fails — and the advice and the answer say so and that a longer ladder.duration
// or ladder.grace is the fix, not a looser SLA.
func TestUndeterminedStepSaysLengthenTheWindow(t *testing.T) {
	var extra []rundir.Record
	for i := range 4 {
		extra = append(extra, unfinishedRecord(int64(9e9)+int64(i)*1e8, 900, nil))
	}
	p, recs := rateStep(extra...)
	p.SLA = plan.SLA{TTFTMs: map[string]float64{"p95": 2000}, MaxErrorRate: 0.01}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if s.MeetsSLA || s.Overdue != 0 || len(s.SLAChecks) == 0 || s.SLAChecks[0].Outcome != "undetermined" || s.SLAChecks[0].Censored != 4 {
		t.Fatalf("meets %v overdue %d checks %+v", s.MeetsSLA, s.Overdue, s.SLAChecks)
	}
	for name, text := range map[string]string{"advice": a.Segments[0].Capacity.Advice, "answer": a.Answer} {
		if !strings.Contains(text, "is undetermined") || !strings.Contains(text, "lengthen ladder.duration or ladder.grace") ||
			strings.Contains(text, "relax the SLA") {
			t.Errorf("%s %q", name, text)
		}
	}
	// The warnings call the lowest load undetermined, not a failure the SLA explains.
	var seg, head string
	for _, w := range a.Warnings {
		switch w.Kind {
		case WarnCapacityBelowFirstStep:
			seg = w.Message
		case WarnHeadlineBelowFirstStep:
			head = w.Message
		}
	}
	if !strings.Contains(seg, "the lowest load is undetermined, not a measured failure") || strings.Contains(seg, "fails already") {
		t.Errorf("segment warning %q", seg)
	}
	if !strings.HasPrefix(head, "The lowest load measured is undetermined, not failed") || !strings.Contains(head, "ladder.grace") {
		t.Errorf("headline warning %q", head)
	}
	var out strings.Builder
	if err := PrintSummary(&out, a); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "UNDET") {
		t.Errorf("summary table does not mark the step undetermined:\n%s", out.String())
	}
}

// TestLimitSaysHungNotLoaded: a capacity that ends where requests start to hang says
// so in the headline's limit, not that the load made them fail.
func TestLimitSaysHungNotLoaded(t *testing.T) {
	a := &Analysis{Schedule: plan.ScheduleConcurrency}
	c := Capacity{Bottleneck: RegimeErrors, Method: MethodMeasured, BottleneckEvidence: "4.8% of requests failed", cause: causeHung}
	if got := limitWords(a, c, &SegmentAnalysis{}, deployment{}); got != "Beyond this load requests hang: the server looks stuck, not busy." {
		t.Errorf("hung: %q", got)
	}
	c.cause = causeSLA
	if got := limitWords(a, c, &SegmentAnalysis{}, deployment{}); got != "Beyond this load too many requests fail." {
		t.Errorf("errors: %q", got)
	}
}
