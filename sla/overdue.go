package sla

import (
	"fmt"
	"math"
)

// Overdue requests. An unfinished request (still in flight when its step ended) is
// overdue when it had been silent — no content event since it was sent, or since its
// last token (Request.SilentMs) — for longer than OverdueAfterMs of the step:
// max(OverdueFactor × the longest E2E of the step's finished successful requests,
// OverdueFloor). A long reply still streaming when the step ended is not silent, so not
// overdue however long it has run (its E2E stays censored). A healthy step
// cut with C requests in flight has waits like its finished requests' E2E — each
// in-flight request started no earlier than the finished ones around it — so none is
// overdue; a request that has waited more than twice as long as anything that finished,
// and over a second, has no answer coming: it is lost to the user, as a failed request
// is. So the judge counts overdue requests as failed in the error share
// (Sample.ErrorRate: (errors + overdue) / (finished + overdue)) and never as good
// (StepGoodness); the other unfinished requests stay pending — out of the error share,
// in the latency censoring (censored.go). Overdue requests stay in the latency
// censoring too, as the lower bounds they are.

// OverdueFactor is how many times the longest finished successful request's E2E an
// unfinished request must have waited to be overdue: a healthy step's in-flight waits
// are at most about its finished requests' E2E, so twice that is far beyond a healthy
// wait while a hung request (a stall of minutes) exceeds it at once.
const OverdueFactor = 2.0

// OverdueFloor is the least wait (ms) that makes an unfinished request overdue: a step
// whose finished requests took a few milliseconds (or that has none) does not call a
// request lost after a short wait the client's scheduling or a GC pause explains.
const OverdueFloor = 1000.0

// OverdueAfterMs is the wait (ms) beyond which an unfinished request of a step is
// overdue: max(OverdueFactor × longestE2EMs, OverdueFloor), longestE2EMs the longest
// E2E (ms) of the step's finished successful requests (0 when none).
func OverdueAfterMs(longestE2EMs float64) float64 {
	return math.Max(OverdueFactor*longestE2EMs, OverdueFloor)
}

// Overdue is the overdue part of a sample (Sample.Overdue): how many of its unfinished
// requests are overdue, after what wait, and what the rule compared them with.
type Overdue struct {
	// N counts the overdue requests.
	N int
	// AfterMs is the wait (ms) beyond which a request is overdue (OverdueAfterMs).
	AfterMs float64
	// LongestFinishedMs is the longest E2E (ms) of the finished successful requests
	// (0 when none).
	LongestFinishedMs float64
	// MinWaitMs is the shortest silence (ms, Request.SilentMs) of an overdue request (0
	// when N is 0): each overdue request got no token for at least this long.
	MinWaitMs float64
}

// floored reports whether OverdueFloor, not OverdueFactor × the longest finished
// request, set the threshold.
func (o Overdue) floored() bool { return OverdueFactor*o.LongestFinishedMs < OverdueFloor }

// Explain is the overdue requests in words, as the error-rate check says them: "5 of
// 104 requests got no token for ≥ 2.1 s, over twice the longest finished request";
// judged is the error share's denominator (finished + overdue). Empty when N is 0.
func (o Overdue) Explain(judged int) string {
	if o.N == 0 {
		return ""
	}
	why := "over twice the longest finished request"
	if o.floored() {
		why = fmt.Sprintf("over %.0f s and twice the longest finished request", OverdueFloor/1000)
	}
	return fmt.Sprintf("%d of %d requests got no token for ≥ %.1f s, %s", o.N, judged, o.MinWaitMs/1000, why)
}

// overdueOf returns the overdue part of the unfinished requests' silences (ms) given the longest
// finished successful E2E (ms).
func overdueOf(waits []float64, longestE2EMs float64) Overdue {
	o := Overdue{AfterMs: OverdueAfterMs(longestE2EMs), LongestFinishedMs: longestE2EMs}
	for _, w := range waits {
		if w > o.AfterMs {
			if o.N == 0 || w < o.MinWaitMs {
				o.MinWaitMs = w
			}
			o.N++
		}
	}
	return o
}

// IsOverdue reports whether unfinished request r is overdue in sample s (its silence
// beyond s.Overdue.AfterMs); false for a finished request or a sample built from
// summaries only.
func (s Sample) IsOverdue(r Request) bool {
	return r.Unfinished && s.Overdue.AfterMs > 0 && r.SilentMs() > s.Overdue.AfterMs
}

// StepGoodness is request r's goodness within sample s, its step's sample:
// RequestGoodness, except that an overdue request is NotGood (lost to the user, never
// pending).
func StepGoodness(bounds []Bound, s Sample, r Request) Goodness {
	if s.IsOverdue(r) {
		return NotGood
	}
	return RequestGoodness(bounds, r)
}
