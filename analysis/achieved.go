package analysis

import (
	"math"
)

// achievedShortFrac: an open-loop step whose achieved completion rate is below this
// fraction of its send rate is saturated, and its steady-state throughput is the
// achieved rate, not the offered one.
const achievedShortFrac = 0.9

// achievedInnerMin is the smallest number of times for which achievedRate uses only
// the inner ranks (achievedInnerFrac each side trimmed); fewer use the whole span.
const (
	achievedInnerMin  = 10
	achievedInnerFrac = 0.1
)

// achievedRate estimates an open-loop step's completion rate in req/s while load was
// offered. The cohort is the requests the step sent in its measurement window (phase
// measure or grace: a measure request that ends after the window is recorded as
// grace, and counting only measure ones would drop the requests in flight at the
// window's end). sent is the cohort's send rate, (n − 1) / (last − first send).
//
// achieved is the departure rate of the cohort's successful requests relative to its
// arrival rate: the spacing of their sorted end times against the spacing of the sorted
// send times, each over its inner ranks (10th to 90th percentile, so the ramp in and
// the drain — a request's E2E at either edge — do not bias it), scaled by sent (and at most sent). A server
// that keeps up completes each request E2E after it was sent, so its departures are its
// arrivals shifted: achieved ≈ sent whatever E2E is relative to the window. A saturated
// server completes requests at its own service rate, below sent (as GuideLLM and
// vLLM's benchmark compare completed against offered requests per second). Both are 0
// when fewer than two requests were sent.
func achievedRate(st *store, idx []int32) (achieved, sent float64) {
	var sends, ends []int64
	for _, i := range idx {
		q := st.req(i)
		if (q.phase != phaseMeasure && q.phase != phaseGrace) || q.sentNs <= 0 {
			continue
		}
		sends = append(sends, q.sentNs)
		if q.ok && q.endNs > q.sentNs {
			ends = append(ends, q.endNs)
		}
	}
	if len(sends) < 2 {
		return 0, 0
	}
	sortInt64s(sends)
	sortInt64s(ends)
	span := float64(sends[len(sends)-1]-sends[0]) / 1e9
	if span <= 0 {
		return 0, 0
	}
	sent = float64(len(sends)-1) / span
	arr := innerRate(sends)
	if len(ends) < 2 || arr <= 0 {
		return float64(len(ends)) / span, sent
	}
	// Failed and cut-off requests leave the cohort without a departure, so their absence
	// already lowers the departure rate. Bunching can make the departures of a short
	// window denser than its arrivals: no server completes more than it was sent.
	return sent * math.Min(innerRate(ends)/arr, 1), sent
}

// innerRate is the rate (events per second) of sorted times ts over their inner ranks
// (achievedInnerFrac trimmed each side once there are achievedInnerMin of them): the
// number of intervals over the time they span; 0 when they span no time.
func innerRate(ts []int64) float64 {
	lo, hi := 0, len(ts)-1
	if len(ts) >= achievedInnerMin {
		lo = int(math.Floor(achievedInnerFrac * float64(len(ts)-1)))
		hi = int(math.Ceil((1 - achievedInnerFrac) * float64(len(ts)-1)))
	}
	d := float64(ts[hi]-ts[lo]) / 1e9
	if hi <= lo || d <= 0 {
		return 0
	}
	return float64(hi-lo) / d
}
