package analysis

import (
	"fmt"
	"math"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
)

// stepSamples are the per-request values of one step's successful measured requests,
// kept for the bootstrap and the steady-state check.
type stepSamples struct {
	ttft, ttfo, itl, e2e []float64
	sentNs               []int64   // sent time of each ttft value, same order
	ttftBySent           []float64 // ttft values ordered as sentNs
}

// stepInput is one step to summarise: its identity and its records.
type stepInput struct {
	step        int
	segment     string // the analysis' segment name ("mix" for the mix)
	schedule    string
	concurrency int
	rate        float64
	users       int
	idx         []int32
	icl         []float64
	// share and mixE2EMs: for a segment drawn from a mix step, its share of the step's
	// records and the mix step's mean E2E (ms); 0 for a step of its own.
	share    float64
	mixE2EMs float64
	grp      *group // the step's records, for error samples (nil in tests)
	// cutBound is the wall-time bound that ended the step (steps.jsonl
	// cut_by_step_timeout); 0 when the step ended on its own.
	cutBound time.Duration
}

// stepAcc accumulates one step's counts and sums over its measured records.
type stepAcc struct {
	firstSent, lastEnd      int64
	outSum, promptSum, good int
	perUserN                int
	perUser, ipSum, ioSum   float64
	judged                  sla.Collector // what the SLA judge sees (censored values included)
	bounds                  []sla.Bound   // the SLA's bounds, for each request's goodness
	// unfinishedBad counts the unfinished requests that already broke a latency bound
	// (sla.NotGood): in the good fraction's denominator, never good.
	unfinishedBad int
	// pending are the other unfinished requests: those overdue (sla.Sample.IsOverdue)
	// are never good either, and enter the denominator too.
	pending []sla.Request
	// cutNs is when the step was cut (an unfinished request's sent + wait, the latest);
	// 0 when every request finished.
	cutNs int64
}

// spanEnd is the end of the step's span: its last finished response, or its cut when
// requests were still in flight then (a hung request or a stalled server keeps the
// step busy to its cut, and the throughputs are over that span).
func (acc *stepAcc) spanEnd() int64 { return max(acc.lastEnd, acc.cutNs) }

// overduePending counts the pending unfinished requests that are overdue in the
// step's judged sample j (sla.StepGoodness: never good, lost to the user).
func (acc *stepAcc) overduePending(j sla.Sample) int {
	n := 0
	for _, r := range acc.pending {
		if j.IsOverdue(r) {
			n++
		}
	}
	return n
}

// add counts one measured record into s, acc and sm.
func (acc *stepAcc) add(st *store, q *request, s *StepStats, sm *stepSamples) {
	jq := judgeRequest(q)
	acc.judged.Add(jq)
	good := sla.RequestGoodness(acc.bounds, jq)
	if q.unfinished {
		if good == sla.NotGood {
			acc.unfinishedBad++
		}
		// Still in flight when the step ended: not failed by the server, so outside the
		// error rate; the SLA judge counts its wait as a censored lower bound.
		s.Unfinished++
		if q.sentNs > 0 && q.waitedMs > 0 { // the step's cut: the span runs to it (spanEnd)
			acc.cutNs = max(acc.cutNs, q.sentNs+int64(float64(q.waitedMs)*1e6))
		}
		if good == sla.Pending {
			acc.pending = append(acc.pending, jq)
		}
		if q.firstNs == 0 {
			s.cancelledNoFirst++
		}
		if q.waitedMs > 0 {
			s.cutOffMsSum += float64(q.waitedMs)
			s.cutOffN++
		}
		return
	}
	s.Requests++
	if q.sentNs > 0 && q.sentNs < acc.firstSent {
		acc.firstSent = q.sentNs
	}
	acc.lastEnd = max(acc.lastEnd, q.endNs)
	if !q.ok {
		s.Errors++
		s.ErrorClasses[st.names[q.errClass]]++
		return
	}
	acc.outSum += int(q.output)
	acc.promptSum += int(q.prompt)
	acc.ipSum += float64(q.intendedPrompt)
	acc.ioSum += float64(q.intendedOutput)
	if good == sla.Good {
		acc.good++
	}
	if q.output >= 2 {
		s.itlEligible++
	}
	if q.output <= 0 {
		return // token-less: no latency to speak of
	}
	sm.add(q)
	if !math.IsNaN(q.e2e) && q.e2e > 0 {
		acc.perUser += float64(q.output) / (q.e2e / 1000)
		acc.perUserN++
	}
}

// finish derives rates, means and throughputs from the sums and s.judged (the SLA
// judge's sample: its overdue requests count as failed in the error rate).
func (acc *stepAcc) finish(s *StepStats) {
	okN := s.Requests - s.Errors
	if s.Requests > 0 {
		s.ErrorRate = float64(s.Errors) / float64(s.Requests)
	}
	if o := s.judged.Overdue; o.N > 0 {
		s.Overdue, s.OverdueAfterMs, s.OverdueMinWaitMs = o.N, o.AfterMs, o.MinWaitMs
		s.ErrorRate = s.judged.ErrorRate()
	}
	if n := s.Requests + acc.unfinishedBad + acc.overduePending(s.judged); n > 0 {
		s.GoodFraction = float64(acc.good) / float64(n)
	}
	if okN > 0 {
		s.PromptTokensMean = float64(acc.promptSum) / float64(okN)
		s.OutputTokensMean = float64(acc.outSum) / float64(okN)
		s.IntendedPromptTokensMean = acc.ipSum / float64(okN)
		s.IntendedOutputTokensMean = acc.ioSum / float64(okN)
	}
	if acc.perUserN > 0 {
		s.PerUserOutputTokensPerS = acc.perUser / float64(acc.perUserN)
	}
	if end := acc.spanEnd(); end > acc.firstSent {
		s.DurationS = float64(end-acc.firstSent) / 1e9
		s.RequestThroughput = float64(okN) / s.DurationS
		s.OutputTokenThroughput = float64(acc.outSum) / s.DurationS
		s.TotalTokenThroughput = float64(acc.outSum+acc.promptSum) / s.DurationS
		s.Goodput = float64(acc.good) / s.DurationS
	}
	if s.Schedule == plan.ScheduleTrace && s.Rate == 0 {
		s.Rate, s.Load = s.RequestThroughput, s.RequestThroughput // the trace's achieved rate
	}
}

// computeStep computes the statistics of one step from its records (warm-up excluded;
// measure and grace included) and returns the per-request samples behind them.
func computeStep(st *store, in stepInput, spec plan.SLA) (StepStats, *stepSamples) {
	s := StepStats{Step: in.step, Segment: in.segment, Schedule: in.schedule,
		Concurrency: in.concurrency, Rate: in.rate, Users: in.users, ErrorClasses: map[string]int{},
		MixShare: in.share, mixE2EMs: in.mixE2EMs, CutByStepTimeout: in.cutBound > 0, stepTimeout: in.cutBound}
	switch in.schedule {
	case plan.ScheduleConcurrency:
		s.Load = float64(in.concurrency)
	case plan.ScheduleUsers:
		s.Load, s.thinkS = float64(in.users), spec.ThinkTime.Seconds()
	default:
		s.Load = in.rate
	}
	sm := &stepSamples{}
	acc := stepAcc{firstSent: math.MaxInt64, bounds: sla.Bounds(spec)}
	var lags, readLags []float64
	for _, i := range in.idx {
		if q := st.req(i); q.phase == phaseMeasure || q.phase == phaseGrace {
			acc.add(st, q, &s, sm)
			if l := float64(q.lagMs); !math.IsNaN(l) && q.sentNs > 0 {
				lags = append(lags, l)
			}
			if l := float64(q.readLagMs); !math.IsNaN(l) {
				readLags = append(readLags, l)
			}
		} else if q.phase == phaseWarmup {
			s.WarmupRequests++
		}
	}
	s.judged = acc.judged.Sample()
	acc.finish(&s)
	sm.orderBySent()
	s.TTFTMs = summarize(append([]float64(nil), sm.ttft...))
	s.TTFOMs = summarize(append([]float64(nil), sm.ttfo...))
	s.ITLMs = summarize(append([]float64(nil), sm.itl...))
	s.E2EMs = summarize(append([]float64(nil), sm.e2e...))
	s.ICLMs = summarize(append([]float64(nil), in.icl...))
	if len(s.ErrorClasses) == 0 {
		s.ErrorClasses = nil
	}
	for cls := range s.ErrorClasses {
		if in.grp == nil {
			break
		}
		if m := in.grp.errorSample(cls); m != "" {
			if s.ErrorSamples == nil {
				s.ErrorSamples = map[string]string{}
			}
			s.ErrorSamples[cls] = m
		}
	}
	switch {
	case s.Schedule == plan.ScheduleRate && in.share == 0:
		s.AchievedRateRps, s.sentRateRps = achievedRate(st, in.idx)
	case s.Schedule == plan.ScheduleUsers: // its users' send rate (of this segment's requests)
		_, s.sentRateRps = achievedRate(st, in.idx)
	}
	s.ScheduleLagMs = summarize(lags)
	if len(readLags) > 0 {
		rl := summarize(readLags)
		s.ReadLagMs = &rl
	}
	s.OverMaxTokens, s.OverMaxTokensOf, s.OverMaxTokensRatio = overMaxTokens(st, in.idx)
	s.ClientLimited = clientLimited(&s)
	s.LittleThroughputRps = littleThroughput(&s)
	s.SteadyState, s.SteadyStateReason = steadyState(&s, sm)
	v := sla.Judge(spec, stepSample(&s))
	s.MeetsSLA, s.SLAViolations, s.SLAChecks, s.verdict = v.Pass, v.Reasons(), slaChecks(v), v
	return s, sm
}

// judgeRequest is measured request q as the SLA judge counts it (sla.Request).
func judgeRequest(q *request) sla.Request {
	ptr := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	return sla.Request{Unfinished: q.unfinished, WaitedMs: float64(q.waitedMs), LastTokenMs: float64(q.lastTokenMs),
		OK: q.ok, OutputTokens: int(q.output),
		TTFTMs: ptr(q.ttft), TTFOMs: ptr(q.ttfo), ITLMs: ptr(q.itl), E2EMs: ptr(q.e2e)}
}

// residenceMs is a closed-loop step's mean time in flight R in ms, for Little's law:
// the mean E2E of its successful requests, with the requests cut off at the end of the
// grace period counted for the time they had been in flight (a lower bound on their
// E2E). Leaving them out would bias R low — the cut-off ones are the longest — and
// N / R high (3.58 req/s against 1.90 measured, one long reply of twelve cut off).
func residenceMs(s *StepStats) float64 {
	n := s.E2EMs.N + s.cutOffN
	if n == 0 || s.E2EMs.N == 0 {
		return s.E2EMs.Mean
	}
	return (s.E2EMs.Mean*float64(s.E2EMs.N) + s.cutOffMsSum) / float64(n)
}

// littleThroughput is a step's steady-state throughput in req/s: closed loop N / R
// (Little's law, R = residenceMs), open loop and trace the rate
// (the completion rate when saturated or client-limited), users step its users' send
// rate (usersThroughput); for a segment drawn from a mix step, its share of the mix's
// steady-state throughput.
func littleThroughput(s *StepStats) float64 {
	if s.Schedule == plan.ScheduleUsers {
		return usersThroughput(s)
	}
	x := s.Rate
	if a := s.AchievedRateRps; a > 0 && a < achievedShortFrac*s.sentRateRps && a < s.Rate {
		x = a // saturated open loop: the server completed less than was offered
	}
	if s.ClientLimited {
		x = math.Min(s.Rate, s.RequestThroughput) // what the client let through
	}
	if s.Schedule == plan.ScheduleConcurrency {
		r := residenceMs(s)
		if s.MixShare > 0 {
			r = s.mixE2EMs
		}
		x = 0
		if r > 0 {
			x = float64(s.Concurrency) / (r / 1000)
		}
	}
	if s.MixShare > 0 {
		x *= s.MixShare
	}
	return x
}

func (sm *stepSamples) add(q *request) {
	if !math.IsNaN(q.ttft) {
		sm.ttft = append(sm.ttft, q.ttft)
		sm.sentNs = append(sm.sentNs, q.sentNs)
	}
	if !math.IsNaN(q.ttfo) {
		sm.ttfo = append(sm.ttfo, q.ttfo)
	}
	if !math.IsNaN(q.itl) {
		sm.itl = append(sm.itl, q.itl)
	}
	if !math.IsNaN(q.e2e) {
		sm.e2e = append(sm.e2e, q.e2e)
	}
}

// orderBySent fills ttftBySent: the TTFT values in send order (for trend checks).
func (sm *stepSamples) orderBySent() {
	ix := orderStable(sm.sentNs)
	sm.ttftBySent = make([]float64, len(ix))
	for k, i := range ix {
		sm.ttftBySent[k] = sm.ttft[i]
	}
}

// summaryOf returns the step's Summary of an SLA metric.
func summaryOf(s *StepStats, metric string) Summary {
	switch metric {
	case "ttft":
		return s.TTFTMs
	case "ttfo":
		return s.TTFOMs
	case "itl":
		return s.ITLMs
	case "e2e":
		return s.E2EMs
	}
	return Summary{}
}

// stepSample is what the SLA judge sees of step s: the sla.Collector's sample of its
// measured records (unfinished ones as censored values) when computeStep built it, else
// one from its counts and latency summaries.
func stepSample(s *StepStats) sla.Sample {
	if s.judged.Requests+s.judged.CutOff > 0 {
		return s.judged
	}
	return sla.Sample{Requests: s.Requests, Errors: s.Errors, CutOff: s.Unfinished, ITLEligible: s.itlEligible,
		TTFT: sla.Summary(s.TTFTMs), TTFO: sla.Summary(s.TTFOMs), ITL: sla.Summary(s.ITLMs), E2E: sla.Summary(s.E2EMs)}
}

// notApplicable reports whether constraint c cannot apply to step s
// (sla.Sample.NotApplicable: an ITL constraint where no successful reply had two
// output tokens).
func notApplicable(s *StepStats, c plan.Constraint) bool {
	m, ok := sla.ParseMetric(c.Metric)
	return ok && stepSample(s).NotApplicable(m)
}

// checkSLA judges step s against spec (sla.Judge): whether it meets every constraint
// and the error-rate bound, and the violations, e.g. "ttft p95 812 ms > 500 ms".
func checkSLA(s *StepStats, spec plan.SLA) (bool, []string) {
	v := sla.Judge(spec, stepSample(s))
	return v.Pass, v.Reasons()
}

// constraintsOf flattens the SLA maps into constraints in plan.Plan.Constraints' order
// (metric ttft, ttfo, itl, e2e; stat p50, p90, p95, p99, mean).
func constraintsOf(spec plan.SLA) []plan.Constraint {
	p := plan.Plan{SLA: spec}
	return p.Constraints()
}

// constraintName renders a constraint as "ttft p95 ≤ 500 ms".
func constraintName(c plan.Constraint) string {
	return fmt.Sprintf("%s %s ≤ %s ms", upperMetric(c.Metric), c.Stat, fmtNum(c.ThresholdMs))
}

func upperMetric(m string) string {
	switch m {
	case "ttft", "ttfo", "itl", "e2e":
		return map[string]string{"ttft": "TTFT", "ttfo": "TTFO", "itl": "ITL", "e2e": "E2E"}[m]
	}
	return m
}

// fmtNum formats x with at most one decimal, dropping ".0".
func fmtNum(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}
