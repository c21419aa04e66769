package sla

import "github.com/llmcap/llmcap/rundir"

// Sample is what the judge sees of one step: the measured requests (measure and grace
// phases; warm-up ones are never judged) without those cut off at the end of the grace
// period, and the latency summaries of the successful ones that returned tokens.
type Sample struct {
	// Requests counts the judged requests; Errors the failed ones among them.
	Requests, Errors int
	// CutOff counts the measured requests still in flight when the grace period ended
	// (cancelled by the step protocol, not failed by the server): outside Requests, the
	// error rate and the latencies, as AIPerf does.
	CutOff int
	// ITLEligible counts the successful judged requests with two output tokens or more
	// (ITL is defined for them only).
	ITLEligible int
	// TTFT, TTFO, ITL and E2E summarise the latencies (ms) of the successful judged
	// requests with at least one output token that define them.
	TTFT, TTFO, ITL, E2E Summary
}

// Of returns the sample's Summary of latency metric m (zero for ErrorRate).
func (s Sample) Of(m Metric) Summary {
	switch m {
	case TTFT:
		return s.TTFT
	case TTFO:
		return s.TTFO
	case ITL:
		return s.ITL
	case E2E:
		return s.E2E
	}
	return Summary{}
}

// ErrorRate is the failed fraction of the judged requests (0 when there are none).
func (s Sample) ErrorRate() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Errors) / float64(s.Requests)
}

// NotApplicable reports whether bounds on metric m cannot apply to the sample: ITL when
// some requests succeeded and none of them produced two output tokens (ITL is defined
// for OSL ≥ 2 only, as in vLLM's goodput and AIPerf). Missing data because requests
// failed is not this case.
func (s Sample) NotApplicable(m Metric) bool {
	return m == ITL && s.Requests > s.Errors && s.ITLEligible == 0
}

// Request is one measured request (measure or grace phase) as the judge counts it.
// Latencies are ms, nil when undefined.
type Request struct {
	// CutOff: still in flight when the grace period ended (a grace-phase request that
	// failed with the error class "cancelled").
	CutOff bool
	// OK: the request succeeded.
	OK bool
	// OutputTokens is the reply's length in tokens.
	OutputTokens int
	// TTFTMs, TTFOMs, ITLMs and E2EMs are the request's latencies.
	TTFTMs, TTFOMs, ITLMs, E2EMs *float64
}

// RecordRequest is what the judge sees of a run record: whether it was cut off (still in
// flight at the end of the grace period: a grace-phase record cancelled by the step
// protocol), its success, output tokens and latencies.
func RecordRequest(r *rundir.Record) Request {
	return Request{CutOff: r.Phase == rundir.PhaseGrace && !r.OK() && r.ErrorClass == rundir.ErrCancelled,
		OK: r.OK(), OutputTokens: r.OutputTokens, TTFTMs: r.TTFTMs, TTFOMs: r.TTFOMs, ITLMs: r.ITLMs, E2EMs: r.E2EMs}
}

// Collector builds a Sample from requests, one Add each, by the analysis' rules: a
// cut-off request counts in CutOff only; a failed one in Requests and Errors; a
// successful one with two output tokens or more is ITL-eligible; the latencies of a
// successful one with output tokens go into the summaries. The zero Collector is empty.
type Collector struct {
	s    Sample
	vals [4][]float64 // TTFT, TTFO, ITL, E2E
}

// Add counts one measured request.
func (c *Collector) Add(r Request) {
	if r.CutOff {
		c.s.CutOff++
		return
	}
	c.s.Requests++
	if !r.OK {
		c.s.Errors++
		return
	}
	if r.OutputTokens >= 2 {
		c.s.ITLEligible++
	}
	if r.OutputTokens <= 0 {
		return // token-less: no latency to speak of
	}
	for i, v := range [4]*float64{r.TTFTMs, r.TTFOMs, r.ITLMs, r.E2EMs} {
		if v != nil {
			c.vals[i] = append(c.vals[i], *v)
		}
	}
}

// Sample returns the sample of the requests added so far (summarising copies: the
// Collector stays usable).
func (c *Collector) Sample() Sample {
	s := c.s
	sum := func(i int) Summary { return Summarize(append([]float64(nil), c.vals[i]...)) }
	s.TTFT, s.TTFO, s.ITL, s.E2E = sum(0), sum(1), sum(2), sum(3)
	return s
}
