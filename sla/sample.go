package sla

import "github.com/llmcap/llmcap/rundir"

// Sample is what the judge sees of one step: the measured requests (measure and grace
// phases; warm-up ones are never judged, except unfinished ones, which the sweep records
// as grace), the latency summaries of the successful ones that returned tokens, and the
// unfinished ones as censored observations (censored.go).
type Sample struct {
	// Requests counts the finished judged requests; Errors the failed ones among them.
	Requests, Errors int
	// CutOff counts the unfinished requests: still in flight when the step ended, not
	// failed by the server, so outside Requests and the error rate (except the overdue
	// ones, Overdue), but in the TTFT,
	// TTFO and E2E summaries as censored values (lower bounds; Summary.Censored).
	CutOff int
	// Overdue is the unfinished requests that waited past the step's overdue threshold
	// (overdue.go): counted as failed in ErrorRate. Zero in a sample built from
	// summaries only.
	Overdue Overdue
	// ITLEligible counts the successful judged requests with two output tokens or more
	// (ITL is defined for them only).
	ITLEligible int
	// TTFT, TTFO, ITL and E2E summarise the latencies (ms) of the successful judged
	// requests with at least one output token that define them, and the censored lower
	// bounds of the unfinished ones (TTFT and TTFO when that token had not come; E2E
	// always): with Censored > 0 each statistic is a lower bound of the truth.
	TTFT, TTFO, ITL, E2E Summary
	// obs holds the values behind TTFT, TTFO and E2E when a Collector built the sample
	// (for the censored judgement); nil in a sample built from summaries only.
	obs *[4]observations
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

// ErrorRate is the failed share of the judged requests: (Errors + Overdue.N) /
// (Requests + Overdue.N), the overdue unfinished requests counted as failed (0 when
// there are none).
func (s Sample) ErrorRate() float64 {
	if n := s.ErrorJudged(); n > 0 {
		return float64(s.Errors+s.Overdue.N) / float64(n)
	}
	return 0
}

// ErrorJudged is the error share's denominator: the finished requests and the overdue
// unfinished ones.
func (s Sample) ErrorJudged() int { return s.Requests + s.Overdue.N }

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
	// Unfinished: still in flight when the step ended (censored); WaitedMs is its wait
	// so far, a lower bound of its E2E (and of TTFT/TTFO when those are nil).
	Unfinished bool
	WaitedMs   float64
	// LastTokenMs is an unfinished request's time (ms) from sent to its last content
	// event, 0 when none came: WaitedMs − LastTokenMs is how long it had been silent
	// when the step ended (SilentMs), what the overdue rule judges.
	LastTokenMs float64
	// OK: the request succeeded.
	OK bool
	// OutputTokens is the reply's length in tokens.
	OutputTokens int
	// TTFTMs, TTFOMs, ITLMs and E2EMs are the request's latencies.
	TTFTMs, TTFOMs, ITLMs, E2EMs *float64
}

// RecordRequest is what the judge sees of a run record: whether it is unfinished
// (Unfinished), its success, output tokens and latencies.
func RecordRequest(r *rundir.Record) Request {
	q := Request{OK: r.OK(), OutputTokens: r.OutputTokens, TTFTMs: r.TTFTMs, TTFOMs: r.TTFOMs, ITLMs: r.ITLMs, E2EMs: r.E2EMs}
	q.Unfinished, q.WaitedMs = Unfinished(r)
	if q.Unfinished && r.ErrorClass == rundir.ErrUnfinished && r.WaitedMs != nil && r.SentNs > 0 && r.EndNs > r.SentNs {
		q.LastTokenMs = float64(r.EndNs-r.SentNs) / 1e6
	}
	return q
}

// SilentMs is how long (ms) unfinished request r had gone without a content event when
// its step ended: its wait since the last token, or since it was sent when none came.
// A reply still streaming slowly is not silent; a hung one (before or mid-stream) is.
func (r Request) SilentMs() float64 { return max(r.WaitedMs-r.LastTokenMs, 0) }

// Unfinished reports whether record r was still in flight when its step ended, and how
// long it had waited (ms): error class unfinished with waited_ms; or, in runs written
// before that class existed, a grace-phase record cancelled at the end of the grace
// period, its wait then end_ns − sent_ns when both are set (else 0).
func Unfinished(r *rundir.Record) (bool, float64) {
	if r.OK() {
		return false, 0
	}
	switch {
	case r.ErrorClass == rundir.ErrUnfinished && r.WaitedMs != nil:
		return true, *r.WaitedMs
	case r.ErrorClass == rundir.ErrUnfinished || (r.Phase == rundir.PhaseGrace && r.ErrorClass == rundir.ErrCancelled):
		if r.SentNs > 0 && r.EndNs > r.SentNs {
			return true, float64(r.EndNs-r.SentNs) / 1e6
		}
		return true, 0
	}
	return false, 0
}

// Collector builds a Sample from requests, one Add each, by the analysis' rules: an
// unfinished request counts in CutOff and as censored TTFT, TTFO (each when nil) and E2E
// values at its wait, and in Overdue when its wait is past the step's overdue threshold
// (overdue.go); a failed one in Requests and Errors; a successful one with two
// output tokens or more is ITL-eligible; the latencies of a successful one with output
// tokens go into the summaries. The zero Collector is empty.
type Collector struct {
	s    Sample
	vals [4][]float64 // TTFT, TTFO, ITL, E2E
	cens [4][]float64 // censored lower bounds of TTFT, TTFO, (ITL: none), E2E
	// waits are the unfinished requests' silences (ms, Request.SilentMs); longestE2E the longest E2E (ms)
	// of a finished successful request: for the overdue rule (overdue.go).
	waits      []float64
	longestE2E float64
}

// Add counts one measured request.
func (c *Collector) Add(r Request) {
	if r.Unfinished {
		c.s.CutOff++
		c.waits = append(c.waits, r.SilentMs())
		for i, v := range [4]*float64{r.TTFTMs, r.TTFOMs, nil, nil} {
			if v != nil {
				c.vals[i] = append(c.vals[i], *v) // the token came: its latency is known
			} else if i != 2 {
				c.cens[i] = append(c.cens[i], r.WaitedMs)
			}
		}
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
	if r.E2EMs != nil {
		c.longestE2E = max(c.longestE2E, *r.E2EMs)
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
	obs := new([4]observations)
	sum := func(i int) Summary {
		obs[i] = observations{exact: append([]float64(nil), c.vals[i]...), censored: append([]float64(nil), c.cens[i]...)}
		x := Summarize(append(append([]float64(nil), c.vals[i]...), c.cens[i]...))
		x.Censored = len(c.cens[i])
		return x
	}
	s.TTFT, s.TTFO, s.ITL, s.E2E = sum(0), sum(1), sum(2), sum(3)
	s.obs = obs
	s.Overdue = overdueOf(c.waits, c.longestE2E)
	return s
}

// censored returns metric m's observations when the sample holds censored values of it
// (and a Collector built it).
func (s Sample) censored(m Metric) (observations, bool) {
	i := map[Metric]int{TTFT: 0, TTFO: 1, E2E: 3}
	k, ok := i[m]
	if !ok || s.obs == nil || len(s.obs[k].censored) == 0 {
		return observations{}, false
	}
	return s.obs[k], true
}
