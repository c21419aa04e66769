package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/sla"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// oneTokenSim answers every request with a single output token: ITL is undefined.
var oneTokenSim = vsim{slots: 16, d0: 8, d1: 0.5, prefillPerTok: 0.02, prompt: 10, output: 1,
	warmupS: 1, windowS: 10, seed: 3}

// TestITLSLANotApplicableToOneTokenReplies: a segment whose replies have one token meets
// an SLA with an ITL limit when its TTFT is fine (ITL is defined for OSL ≥ 2 only), and
// the analysis says once that the ITL limit did not apply.
func TestITLSLANotApplicableToOneTokenReplies(t *testing.T) {
	p := simPlan("tiny", []int{1, 4, 8}, plan.SLA{TTFTMs: map[string]float64{"p95": 300},
		ITLMs: map[string]float64{"p95": 50}})
	a := analyzeSim(t, oneTokenSim, p)
	sa := a.Segments[0]
	for _, s := range sa.Steps {
		if !s.MeetsSLA || s.GoodFraction != 1 || s.ITLMs.N != 0 {
			t.Errorf("load %v: meets %v (%v), good %.2f, ITL n %d", s.Load, s.MeetsSLA, s.SLAViolations,
				s.GoodFraction, s.ITLMs.N)
		}
	}
	if c := sa.Capacity; c.Method != MethodAtLeast || c.MaxConcurrencyWithinSLA != 8 {
		t.Errorf("capacity %+v, want at_least 8", c)
	}
	n := 0
	for _, w := range a.WarningMessages() {
		if strings.Contains(w, "ITL SLA not applicable to segment chat") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d not-applicable warnings in %q", n, a.WarningMessages())
	}
}

// TestITLNoDataStillViolatesWhenRequestsFail: all requests failing is still an SLA
// failure (the error rate), and a step with two-token replies but no ITL values is
// "no data", not "not applicable".
func TestITLNoDataStillViolatesWhenRequestsFail(t *testing.T) {
	spec := plan.SLA{ITLMs: map[string]float64{"p95": 50}}
	good := func(q *request) bool { return sla.RequestGoodness(sla.Bounds(spec), judgeRequest(q)) == sla.Good }
	failed := StepStats{Requests: 10, Errors: 10, ErrorRate: 1}
	if ok, v := checkSLA(&failed, spec); ok {
		t.Errorf("all failed: meets SLA (%v)", v)
	}
	twoTok := StepStats{Requests: 10, itlEligible: 10}
	if ok, v := checkSLA(&twoTok, spec); ok || len(v) != 1 || !strings.Contains(v[0], "no data") {
		t.Errorf("two-token replies without ITL: ok %v, violations %v", ok, v)
	}
	oneTok := StepStats{Requests: 10}
	if ok, v := checkSLA(&oneTok, spec); !ok {
		t.Errorf("one-token replies: violations %v", v)
	}
	q := request{ok: true, output: 1, ttft: 5, itl: math.NaN(), e2e: 5}
	if !good(&q) {
		t.Error("a one-token reply is not good under an ITL limit")
	}
	q.output = 2
	if good(&q) {
		t.Error("a two-token reply without ITL is good")
	}
}

// cappedOpenLoop simulates open-loop steps whose client holds at most capN requests in
// flight: each request is sent at its scheduled time or when a slot frees, whichever is
// later; the server answers every request e2eMs after it is sent (it never saturates).
func cappedOpenLoop(p plan.Plan, capN int, e2eMs, windowS float64) []rundir.Record {
	const base = int64(1_700_000_000) * 1e9
	ns := func(ms float64) int64 { return base + int64(ms*1e6) }
	var recs []rundir.Record
	for _, st := range p.Steps() {
		free := make([]float64, capN) // when each client slot frees, ms
		for k := 0; float64(k)/st.Rate < windowS; k++ {
			sched := 1000 * float64(k) / st.Rate
			j := 0
			for i := range free {
				if free[i] < free[j] {
					j = i
				}
			}
			sent := math.Max(sched, free[j])
			end := sent + e2eMs
			free[j] = end
			phase := rundir.PhaseMeasure
			if end > 1000*windowS {
				phase = rundir.PhaseGrace
			}
			recs = append(recs, rundir.Record{RunID: "test", Segment: st.Segment, Step: st.Index,
				Schedule: plan.ScheduleRate, Rate: st.Rate, Phase: phase, ScheduledNs: ns(sched),
				SentNs: ns(sent), FirstTokenNs: ns(sent + 20), EndNs: ns(end), TTFTMs: fp(20), TTFOMs: fp(20),
				ITLMs: fp((e2eMs - 20) / 9), E2EMs: fp(e2eMs), ScheduleLagMs: fp(sent - sched),
				PromptTokens: 100, IntendedPromptTokens: 100, OutputTokens: 10, IntendedOutputTokens: 10,
				TokensSource: rundir.TokensUsage, Status: rundir.StatusOK})
		}
	}
	return recs
}

// TestClientCapLimitsOpenLoop: with ladder.max_concurrency 4 and a 500 ms E2E the client
// lets through at most 8 req/s; rates 20 and 60 measure the cap, not the server. The
// analysis flags those steps, reports their schedule lag, states a capacity no lower than
// a passing step served, and does not tell the user to extend the ladder.
func TestClientCapLimitsOpenLoop(t *testing.T) {
	p := plan.Plan{Name: "cap", Seed: 1, Segments: []plan.Segment{{Name: "s", Weight: 1}},
		Ladder: plan.Ladder{Rate: []float64{2, 20, 60}, MaxConcurrency: 4, Duration: 10 * time.Second},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 500}, ThinkTime: 10 * time.Second}}
	a, err := Analyze(writeRunDir(t, metaFor(p), cappedOpenLoop(p, 4, 500, 10), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	sa := a.Segments[0]
	best := 0.0
	for _, s := range sa.Steps {
		limited := s.Rate > 8
		if s.ClientLimited != limited || s.ScheduleLagMs.N == 0 {
			t.Errorf("rate %v: client-limited %v (want %v), lag %+v", s.Rate, s.ClientLimited, limited, s.ScheduleLagMs)
		}
		if limited && (s.LittleThroughputRps > 8.1 || s.ScheduleLagMs.P95 < 1000) {
			t.Errorf("rate %v: steady throughput %.2f (cap lets 8 through), lag p95 %.0f ms", s.Rate,
				s.LittleThroughputRps, s.ScheduleLagMs.P95)
		}
		if s.MeetsSLA {
			best = math.Max(best, math.Min(s.Rate, s.LittleThroughputRps))
		}
	}
	c := sa.Capacity
	if !c.ClientLimited || c.MaxRateWithinSLA < best-1e-9 || c.MaxRateWithinSLA > 8.1 {
		t.Errorf("capacity %+v: want client-limited, ≥ %.2f (a passing step) and ≤ 8", c, best)
	}
	all := strings.Join(a.WarningMessages(), "\n") + "\n" + c.Advice
	if strings.Contains(all, "extend the ladder") || !strings.Contains(all, "max_concurrency cap (4 in flight) limited the offered load") {
		t.Errorf("warnings and advice:\n%s", all)
	}
	if !strings.Contains(a.Answer, "not the server's limit") {
		t.Errorf("answer %q", a.Answer)
	}
	var b strings.Builder
	if err := PrintSummary(&b, a); err != nil || !strings.Contains(b.String(), "lag p95") {
		t.Errorf("summary lacks the schedule lag column (%v):\n%s", err, b.String())
	}
}

// TestCutOffRequestsCountInLittlesLaw: in a closed loop whose longest reply is cut off at
// the end of the grace period, R counts that request for its time in flight, so N / R is
// not inflated by leaving the longest request out.
func TestCutOffRequestsCountInLittlesLaw(t *testing.T) {
	// The long reply waited 11 × the longest finished one: overdue (sla.OverdueAfterMs),
	// failed in the error share (1 of 12); a 10% error bound keeps the step passing, so
	// the capacity is the step's Little throughput.
	p := plan.Plan{Name: "cut", Segments: []plan.Segment{{Name: "s", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{2}, Duration: 3 * time.Second}, SLA: plan.SLA{MaxErrorRate: 0.1}}
	const base = int64(1_700_000_000) * 1e9
	at := func(s float64) int64 { return base + int64(s*1e9) }
	var recs []rundir.Record
	for k := 0; k < 11; k++ { // user 0: back-to-back 500 ms replies
		sent := 0.5 * float64(k)
		recs = append(recs, rundir.Record{RunID: "test", Segment: "s", Step: 0, Schedule: plan.ScheduleConcurrency,
			Concurrency: 2, Phase: rundir.PhaseMeasure, SentNs: at(sent), FirstTokenNs: at(sent + 0.01),
			EndNs: at(sent + 0.5), TTFTMs: fp(10), TTFOMs: fp(10), ITLMs: fp(10), E2EMs: fp(500),
			PromptTokens: 10, IntendedPromptTokens: 10, OutputTokens: 50, IntendedOutputTokens: 50,
			TokensSource: rundir.TokensUsage, Status: rundir.StatusOK})
	}
	// user 1: one long reply, still streaming when the grace period ended at 5.5 s
	recs = append(recs, rundir.Record{RunID: "test", Segment: "s", Step: 0, Schedule: plan.ScheduleConcurrency,
		Concurrency: 2, Phase: rundir.PhaseGrace, SentNs: at(0), FirstTokenNs: at(0.01), EndNs: at(5.5),
		TTFTMs: fp(10), TTFOMs: fp(10), OutputTokens: 600, IntendedOutputTokens: 800,
		TokensSource: rundir.TokensCounted, Status: rundir.StatusError, ErrorClass: rundir.ErrCancelled})
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	want := 2 / ((11*0.5 + 5.5) / 12) // N / R with R = (11 × 0.5 s + 5.5 s) / 12 = 0.917 s
	near(t, "little throughput", s.LittleThroughputRps, want, 1e-6)
	near(t, "throughput at capacity", a.Segments[0].Capacity.ThroughputAtCapacity, want, 1e-6)
	if s.Unfinished != 1 || s.LittleThroughputRps > 1.2*s.RequestThroughput {
		t.Errorf("cancelled %d; N / R %.2f req/s against %.2f measured", s.Unfinished, s.LittleThroughputRps, s.RequestThroughput)
	}
}

// TestTwoStepFitIsNotPresentedAsFact: a model fitted to two steps has more parameters
// than points: the analysis marks it underdetermined, reports no slots or maximum
// throughput, and says so instead of printing an R² of 1.
func TestTwoStepFitIsNotPresentedAsFact(t *testing.T) {
	a := analyzeSim(t, queueSim, simPlan("two", []int{8, 48}, plan.SLA{TTFTMs: map[string]float64{"p95": 3000}}))
	f := a.Segments[0].Fit
	if f == nil || !f.Underdetermined || f.FitSteps != 2 || f.SlotsIdentified || f.ServiceRate != 0 {
		t.Fatalf("fit %+v: want underdetermined from 2 steps, no slots", f)
	}
	if !strings.Contains(strings.Join(a.WarningMessages(), "\n"), "model fit from 2 steps: not enough to identify the model") {
		t.Errorf("warnings %q", a.WarningMessages())
	}
	var b strings.Builder
	if err := PrintSummary(&b, a); err != nil || strings.Contains(b.String(), "bootstrap reps") ||
		!strings.Contains(b.String(), "Model: fit from 2 steps: not enough to identify the model") {
		t.Errorf("summary (%v):\n%s", err, b.String())
	}
	if a3 := analyzeSim(t, queueSim, simPlan("three", []int{8, 24, 48}, plan.SLA{TTFTMs: map[string]float64{"p95": 3000}})); a3.Segments[0].Fit.Underdetermined {
		t.Errorf("a 3-step fit is marked underdetermined")
	}
}

// TestTraceStepsLabelledAsTraceRate: a trace replay's table labels its load as the
// trace's request rate (not concurrency), prints no users with think time, and a failed
// replay's errors name the replay rather than "load 0".
func TestTraceStepsLabelledAsTraceRate(t *testing.T) {
	a := traceReplayAnalysis(t)
	var b strings.Builder
	if err := PrintSummary(&b, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "trace req/s") || strings.Contains(out, "conc") || strings.Contains(out, "think time") {
		t.Errorf("trace summary:\n%s", out)
	}
	failed := StepStats{Schedule: plan.ScheduleTrace, Requests: 5, Errors: 5, ErrorRate: 1,
		ErrorClasses: map[string]int{rundir.ErrHTTP5xx: 5}}
	if e := errorEvidence(&failed); !strings.Contains(e, "failed in the trace replay") {
		t.Errorf("trace error evidence %q", e)
	}
}
