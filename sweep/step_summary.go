package sweep

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// Steady-state rule of the sweep's quick verdict (analysis recomputes its own).
const (
	// steadyMinPerSlot: completed measured requests must reach this multiple of the
	// concurrency (or of the mean in-flight requests for open loops).
	steadyMinPerSlot = 3
	// steadyTrendRatio: a TTFT median in the window's last third above (or below the
	// inverse of) this multiple of the first third's is a trend...
	steadyTrendRatio = 1.5
	// steadyTrendMinMs: ...when the medians also differ by more than this (ms).
	steadyTrendMinMs = 5.0
)

// summarize fills the StepSummary of a finished step from its results.
func (s *stepRun) summarize(sum rundir.StepSummary, results []stepResult) rundir.StepSummary {
	sum.Step = s.whole
	sum.RunID = s.rn.runID
	sum.MaxInFlight = s.maxInflight
	sum.StartNs = unixNs(s.start)
	sum.EndNs = unixNs(time.Now())
	if !s.measureStart.IsZero() {
		sum.MeasureStartNs = unixNs(s.measureStart)
	}
	if !s.measureEnd.IsZero() {
		sum.MeasureEndNs = unixNs(s.measureEnd)
	}
	var measured []*rundir.Record
	for _, r := range results {
		switch r.rec.Phase {
		case rundir.PhaseWarmup:
			sum.WarmupRequests++
			continue
		case rundir.PhaseMeasure:
			sum.MeasureRequests++
		case rundir.PhaseGrace:
			sum.GraceRequests++
		}
		if !r.rec.OK() {
			sum.Errors++
			switch r.rec.ErrorClass {
			case rundir.ErrCancelled:
				sum.Cancelled++
			case rundir.ErrUnfinished:
				sum.Unfinished++
			}
		}
		if r.rec.OK() && rundir.OverMaxTokens(r.rec.IntendedOutputTokens, r.rec.OutputTokens) {
			sum.OverMaxTokens++
		}
		measured = append(measured, r.rec)
	}
	if w := s.early; w.stopped != "" {
		sum.StoppedEarly, sum.StoppedAfter, sum.StoppedErrorRate = w.stopped, w.requests, w.rate
	}
	sum.IntendedPromptTokensMean, sum.AchievedPromptTokensMean = promptTokenMeans(measured)
	sum.SteadyState, sum.SteadyStateReason = s.steadyVerdict(measured)
	return sum
}

// promptTokenMeans returns the mean intended and achieved (server usage) prompt tokens
// over the same requests: those whose usage reported prompt tokens (all requests for
// the intended mean when none did; achieved is then 0).
func promptTokenMeans(recs []*rundir.Record) (intended, achieved float64) {
	var sumI, sumA, n float64
	for _, r := range recs {
		if r.PromptTokens > 0 {
			sumI += float64(r.IntendedPromptTokens)
			sumA += float64(r.PromptTokens)
			n++
		}
	}
	if n > 0 {
		return sumI / n, sumA / n
	}
	for _, r := range recs {
		sumI += float64(r.IntendedPromptTokens)
	}
	if len(recs) > 0 {
		intended = sumI / float64(len(recs))
	}
	return intended, 0
}

// steadyVerdict applies the quick steady-state rule to a step's measured records.
func (s *stepRun) steadyVerdict(measured []*rundir.Record) (bool, string) {
	var ok []*rundir.Record
	for _, r := range measured {
		if r.OK() && r.TTFTMs != nil {
			ok = append(ok, r)
		}
	}
	need := steadyMinPerSlot * max(s.st.Concurrency, 1)
	if s.st.Schedule != plan.ScheduleConcurrency {
		need = steadyMinPerSlot * max(int(math.Ceil(s.meanInFlight(ok))), 1)
	}
	if len(ok) < need {
		return false, fmt.Sprintf("only %d completed measured requests, need %d", len(ok), need)
	}
	slices.SortFunc(ok, func(a, b *rundir.Record) int { return cmpInt64(a.SentNs, b.SentNs) })
	third := len(ok) / 3
	if third < 2 {
		return true, fmt.Sprintf("%d completed measured requests; too few for a trend check", len(ok))
	}
	first := ttftP50(ok[:third])
	last := ttftP50(ok[len(ok)-third:])
	if math.Abs(last-first) > steadyTrendMinMs &&
		(last > steadyTrendRatio*first || first > steadyTrendRatio*last) {
		return false, fmt.Sprintf("TTFT p50 trends from %.1f ms to %.1f ms across the window", first, last)
	}
	return true, fmt.Sprintf("%d completed measured requests; TTFT p50 %.1f → %.1f ms across the window", len(ok), first, last)
}

// meanInFlight is Little's law over the records: total E2E time / window length.
func (s *stepRun) meanInFlight(recs []*rundir.Record) float64 {
	if len(recs) == 0 {
		return 0
	}
	var busy float64
	lo, hi := recs[0].SentNs, recs[0].EndNs
	for _, r := range recs {
		if r.E2EMs != nil {
			busy += *r.E2EMs
		}
		lo, hi = min(lo, r.SentNs), max(hi, r.EndNs)
	}
	if hi <= lo {
		return 0
	}
	return busy / (float64(hi-lo) / 1e6)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ttftP50 is the median TTFT (ms, sla.Percentile) of the successful records that
// define it; NaN when none does.
func ttftP50(recs []*rundir.Record) float64 {
	var v []float64
	for _, r := range recs {
		if r.OK() && r.TTFTMs != nil {
			v = append(v, *r.TTFTMs)
		}
	}
	slices.Sort(v)
	return sla.Percentile(v, 0.5)
}

// stepSample is what the SLA judge sees of a step's results: its measured records
// (measure and grace phases; warm-up ones left out), counted by sla.Collector as the
// analysis counts them.
func stepSample(results []stepResult) sla.Sample {
	var c sla.Collector
	for _, r := range results {
		if r.rec.Phase != rundir.PhaseWarmup {
			c.Add(sla.RecordRequest(r.rec))
		}
	}
	return c.Sample()
}

// slaViolation is the early-stop decision on a step: whether sla.Judge's verdict on
// its results breaks a bound of spec by more than factor (Verdict.BrokenBy), and how
// (e.g. "ttft p95 812 ms > 2 × 300 ms"; "" when not).
func slaViolation(spec plan.SLA, results []stepResult, factor float64) (bool, string) {
	why, broken := sla.Judge(spec, stepSample(results)).BrokenBy(factor)
	return broken, why
}
