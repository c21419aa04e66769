package sweep

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla/slatest"
)

// TestEarlyStopAgreesWithTheAnalysis: the early-stop decision (slaViolation) at factor
// 1 — "broken by more than 1×", i.e. the SLA itself — reaches sla.Judge's verdict on
// every step of the SLA agreement ladder (sla/slatest), as the analysis and the
// profiles' knee do (analysis/sla_agreement_test.go, profiles/knee_test.go): a TTFT p95
// exactly on the threshold passes, a linear p95 of 499 ms passes (nearest rank: 580),
// 525 ms fails (nearest rank: 500). With one violation enough, the ladder stops at the
// third step, the analysis' first failing one; at factor 2 it never stops.
func TestEarlyStopAgreesWithTheAnalysis(t *testing.T) {
	streak, stoppedAt := 0, -1
	for i, st := range slatest.Ladder() {
		recs := st.Records("agree", i, 0)
		results := make([]stepResult, len(recs))
		for k := range recs {
			results[k] = stepResult{rec: &recs[k]}
		}
		bad, why := slaViolation(slatest.SLA(), results, 1)
		if bad == st.Pass {
			t.Errorf("%s: violation %v (%q), want %v", st.Name, bad, why, !st.Pass)
		}
		if !st.Pass && why != "ttft p95 525 ms > 1 × 500 ms (1 censored)" {
			t.Errorf("%s: reason %q", st.Name, why)
		}
		if streak = nextStreak(streak, why); streak >= 1 && stoppedAt < 0 {
			stoppedAt = i
		}
		if bad, why := slaViolation(slatest.SLA(), results, 2); bad {
			t.Errorf("%s: broken by more than 2×: %q", st.Name, why)
		}
	}
	if stoppedAt != 2 {
		t.Errorf("early stop after step %d, want 2 (the first failing step)", stoppedAt)
	}
}

// TestStepStopsEarlyOnErrors: a server answering every request 500 ends a 10 s window
// at concurrency 8 early: with the slots backing off (50 ms doubling), 50 requests
// have failed after about a second and the SLA's 1% bound is broken beyond doubt. The
// summary says why (stopped_early error_rate, after ≥ 50 requests, error rate 1),
// run.json warns, and the analysis reads the short step as measured and failing on
// its error rate.
func TestStepStopsEarlyOnErrors(t *testing.T) {
	f := newFaultServer(t, func(_ int, w http.ResponseWriter, _ int) { httpError(w, http.StatusInternalServerError, "") })
	p := rtPlan(f.url())
	p.Ladder = plan.Ladder{Concurrency: []int{8}, Duration: 10 * time.Second}
	dir, recs, sum, meta := runFault(t, p, nil)
	if sum.StoppedEarly != rundir.StopErrorRate || sum.StoppedAfter < errorStopMinRequests || sum.StoppedErrorRate != 1 {
		t.Errorf("stopped_early %q after %d at error rate %v, want error_rate after ≥ %d at 1",
			sum.StoppedEarly, sum.StoppedAfter, sum.StoppedErrorRate, errorStopMinRequests)
	}
	if w := windowS(sum); w > 5 {
		t.Errorf("window %.1f s, want well before the planned 10 s", w)
	}
	if len(recs) < errorStopMinRequests || sum.Errors != len(recs) {
		t.Errorf("%d records, %d errors: want ≥ %d, all failed", len(recs), sum.Errors, errorStopMinRequests)
	}
	warned := false
	for _, w := range meta.Warnings {
		warned = warned || (w.Kind == rundir.WarnStoppedEarly && w.Step == 0 && strings.Contains(w.Message, "error rate 100.0%"))
	}
	if !warned {
		t.Errorf("run.json warnings %+v, want a stopped-early warning on step 0", meta.Warnings)
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if s.MeetsSLA || s.ErrorRate != 1 || s.Requests != len(recs) {
		t.Errorf("analysis: meets SLA %v, error rate %v, requests %d: want a failing measured step of %d requests",
			s.MeetsSLA, s.ErrorRate, s.Requests, len(recs))
	}
}

// TestStepWithOneEarlyErrorRunsItsWindow: one 500 first among many fast OK answers
// does not stop the step: its 1.5 s window runs to the end.
func TestStepWithOneEarlyErrorRunsItsWindow(t *testing.T) {
	f := newFaultServer(t, func(n int, w http.ResponseWriter, maxTokens int) {
		if n == 0 {
			httpError(w, http.StatusInternalServerError, "")
			return
		}
		time.Sleep(2 * time.Millisecond)
		streamTokens(w, maxTokens)
	})
	p := rtPlan(f.url())
	p.Ladder = plan.Ladder{Concurrency: []int{4}, Duration: 1500 * time.Millisecond}
	_, recs, sum, _ := runFault(t, p, nil)
	if sum.StoppedEarly != "" || windowS(sum) < 1.45 {
		t.Errorf("stopped early %q, window %.2f s: want the whole 1.5 s", sum.StoppedEarly, windowS(sum))
	}
	if failed := sum.Errors - sum.Cancelled - sum.Unfinished; failed != 1 || len(recs) < 4*errorStopMinRequests {
		t.Errorf("%d errors (not counting those cut off at the window's end) of %d records, want 1 of ≥ %d",
			failed, len(recs), 4*errorStopMinRequests)
	}
}

// TestErrorRateSurelyAbove: the rule's decisions at a 1% bound: 1, 3 and 4 errors in
// 50 are within what a server failing 1% of requests shows (39%, 1.4% and 0.16% likely);
// 5 in 50 (0.015%) and 50 in 50 are not; 2% of 10,000 is not, 1.1% of 10,000 is.
func TestErrorRateSurelyAbove(t *testing.T) {
	cases := []struct {
		errors, n int
		want      bool
	}{
		{1, 50, false}, {3, 50, false}, {4, 50, false}, {5, 50, true}, {50, 50, true},
		{200, 10000, true}, {110, 10000, false}, {0, 0, false},
	}
	for _, tc := range cases {
		if got := errorRateSurelyAbove(tc.errors, tc.n, 0.01); got != tc.want {
			t.Errorf("%d of %d at 1%%: %v, want %v (tail %.2g)", tc.errors, tc.n, got, tc.want, binomialTail(tc.errors, tc.n, 0.01))
		}
	}
	if errorRateSurelyAbove(50, 50, 1) {
		t.Error("an SLA tolerating every error stopped")
	}
}

// TestStoppedEarlyWarningCountsStepsFromOne: the stopped-early warning and its log line
// name the step as the progress line and `llmcap plan` do, counting from 1 (the first
// step, Index 0, is "step 1"); the warning's stored Step field stays zero-based.
func TestStoppedEarlyWarningCountsStepsFromOne(t *testing.T) {
	var logged bytes.Buffer
	p := rtPlan("http://127.0.0.1:1")
	rn := &runner{plan: p, meta: &rundir.RunMeta{}, log: slog.New(slog.NewTextHandler(&logged, nil))}
	st := plan.Step{Index: 0, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: 8}
	rn.noteStoppedEarly(st, rundir.StepSummary{StoppedEarly: rundir.StopErrorRate, StoppedAfter: 50, StoppedErrorRate: 1})
	if len(rn.meta.Warnings) != 1 {
		t.Fatalf("warnings %+v, want one", rn.meta.Warnings)
	}
	w := rn.meta.Warnings[0]
	if !strings.HasPrefix(w.Message, "step 1 (chat c=8): stopped early after 50 measured requests") || w.Step != 0 {
		t.Errorf("warning step %d, message %q: want stored step 0, message naming step 1", w.Step, w.Message)
	}
	if !strings.Contains(logged.String(), " step=1 ") {
		t.Errorf("log line %q, want step=1", logged.String())
	}
}
