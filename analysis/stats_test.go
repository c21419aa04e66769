package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// TestSummarizeUsesTheSLAPercentile: the analysis' summaries are sla.Summarize's
// (numpy "linear" percentiles, tested in sla/percentile_test.go): numpy.percentile of
// [15 20 35 40 50] at 40, 90, 95 gives 29, 46, 48 (ranks 1.6, 3.6, 3.8).
func TestSummarizeUsesTheSLAPercentile(t *testing.T) {
	s := summarize([]float64{50, 15, 40, 20, 35})
	near(t, "p50", s.P50, 35, 1e-9)
	near(t, "p90", s.P90, 46, 1e-9)
	near(t, "p95", s.P95, 48, 1e-9)
	near(t, "mean", s.Mean, 32, 1e-9)
	if v, ok := statOf(s, "p95"); !ok || v != s.P95 {
		t.Errorf("statOf p95 = %v, %v", v, ok)
	}
	if _, ok := statOf(s, "p999"); ok {
		t.Error("statOf knows p999")
	}
	s = summarize([]float64{7})
	if s.P99 != 7 || s.StdDev != 0 || s.N != 1 {
		t.Errorf("single value summary %+v", s)
	}
}

// statsRecords builds one concurrency-2 step whose expected statistics are worked out
// by hand in TestStepStatisticsHandComputed.
func statsRecords() []rundir.Record {
	const T = int64(1_700_000_000) * 1e9
	s := func(x float64) int64 { return T + int64(x*1e9) }
	ok := func(phase string, sent, end float64, ttft float64, itl *float64, out int) rundir.Record {
		return rundir.Record{RunID: "test", Segment: "chat", Step: 0, Schedule: plan.ScheduleConcurrency,
			Concurrency: 2, Phase: phase, SentNs: s(sent), EndNs: s(end), TTFTMs: fp(ttft), TTFOMs: fp(ttft),
			ITLMs: itl, E2EMs: fp((end - sent) * 1000), PromptTokens: 100, IntendedPromptTokens: 110,
			OutputTokens: out, IntendedOutputTokens: 10, TokensSource: rundir.TokensUsage, Status: rundir.StatusOK}
	}
	fail := func(sent float64, cls string, ttft *float64) rundir.Record {
		return rundir.Record{RunID: "test", Segment: "chat", Step: 0, Schedule: plan.ScheduleConcurrency,
			Concurrency: 2, Phase: rundir.PhaseMeasure, SentNs: s(sent), TTFTMs: ttft, Status: rundir.StatusError,
			ErrorClass: cls}
	}
	tokenless := ok(rundir.PhaseMeasure, 3, 3.2, 7777, nil, 0)
	tokenless.TTFOMs, tokenless.E2EMs = nil, nil
	return []rundir.Record{
		ok(rundir.PhaseWarmup, 0, 5, 1000, fp(99), 10), // warm-up: never counted
		fail(0.8, rundir.ErrConnect, nil),              // first measured send
		ok(rundir.PhaseMeasure, 1, 2, 100, fp(10), 10),
		ok(rundir.PhaseMeasure, 1.5, 3, 200, fp(20), 10),
		ok(rundir.PhaseMeasure, 2, 4, 300, fp(25), 10), // ITL exactly at the bound: good (≤)
		ok(rundir.PhaseMeasure, 2.5, 5, 400, fp(40), 10),
		ok(rundir.PhaseMeasure, 2.6, 2.75, 150, nil, 1), // OSL 1: no ITL, the ITL limit does not apply: good
		fail(2.7, rundir.ErrStreamTruncated, fp(9999)),  // failed: its TTFT is excluded
		tokenless, // token-less: excluded from latencies
		ok(rundir.PhaseGrace, 4, 11, 500, fp(50), 20), // grace: counted; last response
	}
}

func TestStepStatisticsHandComputed(t *testing.T) {
	p := plan.Plan{Name: "stats", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{2}},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 300}, ITLMs: map[string]float64{"p50": 25}, MaxErrorRate: 0.05}}
	dir := writeRunDir(t, metaFor(p), statsRecords(), nil, nil)
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Segments) != 1 || len(a.Segments[0].Steps) != 1 {
		t.Fatalf("segments %+v", a.Segments)
	}
	s := a.Segments[0].Steps[0]
	// 9 measured requests (8 measure + 1 grace); the warm-up one is excluded.
	if s.Requests != 9 || s.Errors != 2 {
		t.Fatalf("requests %d errors %d, want 9 and 2", s.Requests, s.Errors)
	}
	near(t, "error rate", s.ErrorRate, 2.0/9, 1e-12)
	if s.ErrorClasses[rundir.ErrConnect] != 1 || s.ErrorClasses[rundir.ErrStreamTruncated] != 1 {
		t.Errorf("error classes %v", s.ErrorClasses)
	}
	// TTFT over {100, 150, 200, 300, 400, 500}: failed (9999), token-less (7777) and
	// warm-up (1000) values excluded, grace (500) included.
	want := Summary{N: 6, Mean: 275, P50: 250, P90: 450, P95: 475, P99: 495, Min: 100, Max: 500,
		StdDev: math.Sqrt(118750.0 / 6)}
	checkSummary(t, "ttft", s.TTFTMs, want)
	// ITL over {10, 20, 25, 40, 50}.
	checkSummary(t, "itl", s.ITLMs, Summary{N: 5, Mean: 29, P50: 25, P90: 46, P95: 48, P99: 49.6, Min: 10, Max: 50,
		StdDev: math.Sqrt((19*19 + 9*9 + 4*4 + 11*11 + 21*21) / 5.0)})
	// AIPerf duration: first measured send (0.8 s, a failed request) → last response (11 s).
	near(t, "duration", s.DurationS, 10.2, 1e-9)
	near(t, "request throughput", s.RequestThroughput, 7/10.2, 1e-9)
	near(t, "output token throughput", s.OutputTokenThroughput, 61/10.2, 1e-9)
	near(t, "total token throughput", s.TotalTokenThroughput, (61+700)/10.2, 1e-9)
	// Little's law: 2 users / mean E2E of the 6 successful requests with output tokens
	// (1000, 1500, 2000, 2500, 150 and 7000 ms).
	near(t, "little throughput", s.LittleThroughputRps, 2/(14150.0/6/1000), 1e-9)
	// Good: TTFT ≤ 300 and ITL ≤ 25 → the 100, 200 and 300 ms requests, and the 150 ms
	// one-token reply (ITL is defined for OSL ≥ 2 only, as in vLLM's goodput and AIPerf).
	near(t, "goodput", s.Goodput, 4/10.2, 1e-9)
	near(t, "good fraction", s.GoodFraction, 4.0/9, 1e-12)
	near(t, "prompt mean", s.PromptTokensMean, 100, 1e-9)
	near(t, "intended prompt mean", s.IntendedPromptTokensMean, 110, 1e-9)
	near(t, "output mean", s.OutputTokensMean, 61.0/7, 1e-9)
	if s.MeetsSLA || len(s.SLAViolations) != 2 {
		t.Errorf("SLA verdict %v %v, want TTFT p95 and error-rate violations", s.MeetsSLA, s.SLAViolations)
	}
	if !s.SteadyState {
		t.Errorf("steady state %v: %s", s.SteadyState, s.SteadyStateReason)
	}
}

func checkSummary(t *testing.T, name string, got, want Summary) {
	t.Helper()
	if got.N != want.N {
		t.Errorf("%s n = %d, want %d", name, got.N, want.N)
	}
	for _, c := range []struct {
		f    string
		g, w float64
	}{{"mean", got.Mean, want.Mean}, {"p50", got.P50, want.P50}, {"p90", got.P90, want.P90},
		{"p95", got.P95, want.P95}, {"p99", got.P99, want.P99}, {"min", got.Min, want.Min},
		{"max", got.Max, want.Max}, {"stddev", got.StdDev, want.StdDev}} {
		near(t, name+" "+c.f, c.g, c.w, 1e-9)
	}
}

func TestSteadyStateWarningShortWindow(t *testing.T) {
	// The source article's case: 60 s at 50 users where about one request per user completed.
	p := plan.Plan{Name: "short", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{50}, Duration: 60 * time.Second},
		SLA:    plan.SLA{TTFTMs: map[string]float64{"p95": 1e9}}}
	const T = int64(1_700_000_000) * 1e9
	var recs []rundir.Record
	for i := 0; i < 50; i++ {
		sent := T + int64(i)*1e8
		recs = append(recs, rundir.Record{Segment: "chat", Step: 0, Schedule: "concurrency", Concurrency: 50,
			Phase: rundir.PhaseMeasure, SentNs: sent, EndNs: sent + 55e9, TTFTMs: fp(3000), ITLMs: fp(50),
			E2EMs: fp(55000), OutputTokens: 1000, Status: rundir.StatusOK})
	}
	a, err := Analyze(writeRunDir(t, metaFor(p), recs, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if s.SteadyState || !strings.Contains(s.SteadyStateReason, "only 50 requests completed") {
		t.Errorf("steady %v reason %q", s.SteadyState, s.SteadyStateReason)
	}
	found := false
	for _, w := range a.WarningMessages() {
		found = found || strings.Contains(w, "not in steady state")
	}
	if !found {
		t.Errorf("no steady-state warning in %q", a.WarningMessages())
	}
}

func TestSteadyStateTrend(t *testing.T) {
	s := &StepStats{Schedule: "concurrency", Concurrency: 2, Requests: 60}
	sm := &stepSamples{}
	for i := 0; i < 60; i++ {
		sm.ttftBySent = append(sm.ttftBySent, 100+float64(i)*10+float64(i%3))
	}
	if ok, why := steadyState(s, sm); ok || !strings.Contains(why, "rising") {
		t.Errorf("rising TTFT judged steady: %v %q", ok, why)
	}
	for i := range sm.ttftBySent {
		sm.ttftBySent[i] = 100 + float64(i%5)
	}
	if ok, why := steadyState(s, sm); !ok {
		t.Errorf("flat TTFT judged unsteady: %q", why)
	}
}

// TestCancelledAfterGraceIsNotAnError: requests the step protocol cut off after the grace
// period are counted apart, so they neither inflate the error rate nor enter latencies.
func TestCancelledAfterGraceIsNotAnError(t *testing.T) {
	p := plan.Plan{Name: "cancel", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{2}}, SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 300}}}
	recs := statsRecords()
	cut := rundir.Record{RunID: "test", Segment: "chat", Step: 0, Schedule: plan.ScheduleConcurrency,
		Concurrency: 2, Phase: rundir.PhaseGrace, SentNs: recs[1].SentNs + 5e9, TTFTMs: fp(50),
		Status: rundir.StatusError, ErrorClass: rundir.ErrCancelled}
	dir := writeRunDir(t, metaFor(p), append(recs, cut, cut), nil, nil)
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if s.Requests != 9 || s.Errors != 2 || s.Unfinished != 2 {
		t.Fatalf("requests %d errors %d cancelled %d, want 9, 2 and 2", s.Requests, s.Errors, s.Unfinished)
	}
	near(t, "error rate", s.ErrorRate, 2.0/9, 1e-12)
	if s.ErrorClasses[rundir.ErrCancelled] != 0 {
		t.Errorf("cancelled counted as an error class: %v", s.ErrorClasses)
	}
	found := false
	for _, w := range a.WarningMessages() {
		found = found || strings.Contains(w, "2 of 11 measured requests were still in flight")
	}
	if !found {
		t.Errorf("no cancellation warning in %q", a.WarningMessages())
	}
}

// TestSweepWarningsCarriedOver: the sweep's warnings in run.json (e.g. a server that
// ignores stream: true) reach the analysis, so every report shows them.
func TestSweepWarningsCarriedOver(t *testing.T) {
	p := plan.Plan{Name: "warn", Segments: []plan.Segment{{Name: "chat", Weight: 1}},
		Ladder: plan.Ladder{Concurrency: []int{2}}, SLA: plan.SLA{TTFTMs: map[string]float64{"p95": 300}}}
	meta := metaFor(p)
	meta.Warnings = []rundir.Warning{{Kind: rundir.WarnNotStreaming, Step: rundir.RunWide,
		Message: "server does not stream: TTFT = E2E and ITL are meaningless"}}
	a, err := Analyze(writeRunDir(t, meta, statsRecords(), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Warning{Kind: rundir.WarnNotStreaming, Step: rundir.RunWide,
		Message: "sweep: server does not stream: TTFT = E2E and ITL are meaningless"}
	if len(a.Warnings) == 0 || a.Warnings[0] != want {
		t.Errorf("warnings %q", a.WarningMessages())
	}
}
