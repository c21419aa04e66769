package sla

// Goodness is one request's standing against an SLA's latency bounds: whether it
// counts in goodput (the requests per second that meet every bound, as vLLM's and
// AIPerf's goodput) and in the good fraction.
type Goodness uint8

const (
	// Good: a successful request whose every bounded latency is defined and at or under
	// its threshold (ITL exempt below two output tokens, where it is undefined).
	Good Goodness = iota
	// NotGood: a failed request, a successful one missing a bounded latency or over a
	// threshold, or an unfinished one already over a threshold for certain (a known
	// TTFT over it, or a wait past a TTFT, TTFO or E2E threshold that it bounds below).
	NotGood
	// Pending: an unfinished request whose wait and known latencies are still within
	// every threshold: never good, and its outcome unknown, so it is in neither goodput
	// nor the good fraction's denominator.
	Pending
)

// RequestGoodness judges request r on the latency bounds among bounds (ErrorRate bounds
// ignored): a request meets a metric's bounds when its value is at or under each of
// their thresholds, whatever their statistic (so the strictest one counts).
func RequestGoodness(bounds []Bound, r Request) Goodness {
	if r.Unfinished {
		return unfinishedGoodness(bounds, r)
	}
	if !r.OK {
		return NotGood
	}
	for _, b := range bounds {
		if b.Metric == ErrorRate || (b.Metric == ITL && r.OutputTokens < 2) {
			continue // ITL is defined for OSL ≥ 2 only
		}
		if v := r.latency(b.Metric); v == nil || *v > b.Threshold {
			return NotGood
		}
	}
	return Good
}

// unfinishedGoodness: NotGood when a known latency or the wait (a lower bound of E2E,
// and of TTFT/TTFO while those are unknown) is over a threshold, else Pending.
func unfinishedGoodness(bounds []Bound, r Request) Goodness {
	for _, b := range bounds {
		if b.Metric == ErrorRate || b.Metric == ITL {
			continue // ITL of an unfinished request is unknown
		}
		low := r.WaitedMs
		if v := r.latency(b.Metric); v != nil && b.Metric != E2E {
			low = *v
		}
		if low > b.Threshold {
			return NotGood
		}
	}
	return Pending
}

// latency is r's value of latency metric m (nil when undefined).
func (r Request) latency(m Metric) *float64 {
	switch m {
	case TTFT:
		return r.TTFTMs
	case TTFO:
		return r.TTFOMs
	case ITL:
		return r.ITLMs
	case E2E:
		return r.E2EMs
	}
	return nil
}
