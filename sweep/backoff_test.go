package sweep

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// closeAtMeasure closes a server as the measurement window opens: every request from
// then on is refused (the preflight and the first requests got through).
type closeAtMeasure struct{ f *faultServer }

func (h closeAtMeasure) BeforeMeasure(context.Context, plan.Step, string) error {
	h.f.Close()
	return nil
}

func (closeAtMeasure) AfterMeasure(context.Context, plan.Step, string) (string, error) {
	return "", nil
}

// backoffPlan is a closed loop of c slots for a window of dur against url, with an SLA
// that tolerates any error rate (so the early stop never ends the window).
func backoffPlan(url string, c int, dur time.Duration) *plan.Plan {
	p := rtPlan(url)
	p.Ladder = plan.Ladder{Concurrency: []int{c}, Duration: dur}
	p.SLA.MaxErrorRate = 1
	return p
}

// failedLagged counts rs's failed records and those among them sent at least minLagMs
// after their slot was ready (schedule_lag_ms), and returns the largest lag.
func failedLagged(rs []rundir.Record, minLagMs float64) (failed, lagged int, maxLag float64) {
	for _, r := range rs {
		if r.OK() {
			continue
		}
		failed++
		if r.ScheduleLagMs != nil {
			maxLag = max(maxLag, *r.ScheduleLagMs)
			if *r.ScheduleLagMs >= minLagMs {
				lagged++
			}
		}
	}
	return failed, lagged, maxLag
}

// TestClosedLoopBacksOffWhenRefused: 8 slots against a port that refuses connections
// for a 2 s window. Each slot's k-th failure in a row waits at least half of
// 50 ms · 2^(k−1) (capped at 2 s): 25, 50, 100, 200, 400, 800 ms — 1,575 ms for the
// first 7 failures, 2,575 ms for 8 — so a slot fails at most 7 times in 2 s, 56 in all
// (without backoff: thousands). Every failure but each slot's first waited (≥ 25 ms) and
// its record shows it as schedule lag, never more than the 2 s cap.
func TestClosedLoopBacksOffWhenRefused(t *testing.T) {
	f := newFaultServer(t, func(_ int, w http.ResponseWriter, maxTokens int) { streamTokens(w, maxTokens) })
	_, recs, sum, _ := runFault(t, backoffPlan(f.url(), 8, 2*time.Second), closeAtMeasure{f})
	failed, lagged, maxLag := failedLagged(recs, 25)
	if failed < 16 || failed > 56 {
		t.Errorf("%d failed requests in a 2 s window at concurrency 8, want 16..56 (at most 7 a slot)", failed)
	}
	if lagged < failed-8 {
		t.Errorf("%d of %d failed requests show a schedule lag ≥ 25 ms, want all but each slot's first (≥ %d)", lagged, failed, failed-8)
	}
	if maxLag > 2100 {
		t.Errorf("largest schedule lag %.0f ms, want ≤ the 2 s backoff cap", maxLag)
	}
	for _, r := range recs {
		if !r.OK() && r.ErrorClass == rundir.ErrConnect && r.ScheduleLagMs != nil && r.ScheduledNs > r.SentNs {
			t.Errorf("%s: scheduled %d after sent %d", r.RequestID, r.ScheduledNs, r.SentNs)
		}
	}
	if w := windowS(sum); w < 1.9 || sum.StoppedEarly != "" {
		t.Errorf("window %.2f s, stopped early %q: want the whole 2 s (the SLA tolerates errors)", w, sum.StoppedEarly)
	}
}

// TestRetryAfterHoldsTheSlot: a server answering every request 429 with Retry-After: 1
// over a 2.5 s window at concurrency 4: each slot waits the second the server asked for
// (more than its 50 ms backoff), so it sends at most 3 requests (at 0, ≥ 1 and ≥ 2 s),
// 12 in all; each record carries retry_after_ms 1000, and every one but each slot's
// first was sent ≥ 1 s after its slot was ready.
func TestRetryAfterHoldsTheSlot(t *testing.T) {
	f := newFaultServer(t, func(_ int, w http.ResponseWriter, _ int) { httpError(w, http.StatusTooManyRequests, "1") })
	_, recs, _, _ := runFault(t, backoffPlan(f.url(), 4, 2500*time.Millisecond), nil)
	if n := f.loads(); n < 4 || n > 12 {
		t.Errorf("the server saw %d requests in 2.5 s at concurrency 4 with Retry-After: 1, want 4..12", n)
	}
	failed, lagged, _ := failedLagged(recs, 1000)
	if failed != len(recs) || lagged < failed-4 {
		t.Errorf("%d records, %d failed, %d sent ≥ 1 s after their slot was ready: want all failed, all but 4 lagged", len(recs), failed, lagged)
	}
	for _, r := range recs {
		if r.ErrorClass == rundir.ErrCancelled {
			continue // in flight as the window closed (grace 0)
		}
		if r.ErrorClass != rundir.ErrHTTP429 || r.RetryAfterMs != 1000 {
			t.Errorf("%s: class %s, retry_after_ms %d, want http_429 and 1000", r.RequestID, r.ErrorClass, r.RetryAfterMs)
		}
	}
}

// TestUsersBackOff: 4 users thinking a constant 10 ms against a server answering every
// request 500 for 2 s: a user waits its backoff (≥ 25, 50, 100 … ms) when it outlasts
// its think, so it sends at most 7 requests (the closed loop's bound), 28 in all
// (without backoff: one every 10 ms, ~800); the excess over the think shows as lag.
func TestUsersBackOff(t *testing.T) {
	f := newFaultServer(t, func(_ int, w http.ResponseWriter, _ int) { httpError(w, http.StatusInternalServerError, "") })
	p := usersPlan(f.url(), 4, 10*time.Millisecond, 2*time.Second, plan.ThinkConstant)
	p.SLA.MaxErrorRate = 1
	_, recs, _, _ := runFault(t, p, nil)
	failed, lagged, _ := failedLagged(recs, 14)
	if failed < 8 || failed > 28 {
		t.Errorf("%d failed requests of 4 users in 2 s, want 8..28", failed)
	}
	if lagged < failed-4 {
		t.Errorf("%d of %d failed requests sent ≥ 14 ms after their think ended, want all but each user's first", lagged, failed)
	}
}

// TestBackoffSchedule: the n-th fast failure in a row waits within [d/2, d] for
// d = 50 ms · 2^(n−1) capped at 2 s, or the Retry-After when longer (capped at 60 s); a
// success resets it; timeouts and cancellations do not back off.
func TestBackoffSchedule(t *testing.T) {
	b := newBackoff(1, 0, 0)
	fail := &rundir.Record{Status: rundir.StatusError, ErrorClass: rundir.ErrConnect}
	for i, d := range []time.Duration{50, 100, 200, 400, 800, 1600, 2000, 2000, 2000} {
		d *= time.Millisecond
		if got := b.after(fail); got < d/2 || got > d {
			t.Errorf("failure %d: wait %v, want [%v, %v]", i+1, got, d/2, d)
		}
	}
	if got := b.after(&rundir.Record{Status: rundir.StatusOK}); got != 0 {
		t.Errorf("after a success: wait %v, want 0", got)
	}
	if got := b.after(fail); got > 50*time.Millisecond {
		t.Errorf("first failure after a success: wait %v, want ≤ 50 ms (reset)", got)
	}
	ra := &rundir.Record{Status: rundir.StatusError, ErrorClass: rundir.ErrHTTP429, RetryAfterMs: 3000}
	if got := b.after(ra); got != 3*time.Second {
		t.Errorf("Retry-After 3 s: wait %v", got)
	}
	ra.RetryAfterMs = 3_600_000
	if got := b.after(ra); got != maxRetryAfter {
		t.Errorf("Retry-After 1 h: wait %v, want the %v cap", got, maxRetryAfter)
	}
	for _, cls := range []string{rundir.ErrTimeoutFirstByte, rundir.ErrTimeoutIdle, rundir.ErrTimeoutRequest, rundir.ErrTimeoutConnect, rundir.ErrCancelled} {
		if got := b.after(&rundir.Record{Status: rundir.StatusError, ErrorClass: cls}); got != 0 {
			t.Errorf("%s: wait %v, want 0 (a slow failure)", cls, got)
		}
	}
}
