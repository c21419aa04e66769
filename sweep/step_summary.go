package sweep

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
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
	sum.Step = s.st
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
			if r.rec.ErrorClass == rundir.ErrCancelled {
				sum.Cancelled++
			}
		}
		measured = append(measured, r.rec)
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
	first := recordStat(ok[:third], fieldTTFT, "p50")
	last := recordStat(ok[len(ok)-third:], fieldTTFT, "p50")
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

// Record fields an SLA constraint can name.
const (
	fieldTTFT = "ttft"
	fieldTTFO = "ttfo"
	fieldITL  = "itl"
	fieldE2E  = "e2e"
)

func recordField(r *rundir.Record, field string) *float64 {
	switch field {
	case fieldTTFT:
		return r.TTFTMs
	case fieldTTFO:
		return r.TTFOMs
	case fieldITL:
		return r.ITLMs
	case fieldE2E:
		return r.E2EMs
	}
	return nil
}

// recordStat computes stat ("mean", "p50", "p95", ...) of field over the successful
// records that define it, percentiles by linear interpolation between closest ranks
// (numpy's default). NaN when no record defines it.
func recordStat(recs []*rundir.Record, field, stat string) float64 {
	var v []float64
	for _, r := range recs {
		if p := recordField(r, field); r.OK() && p != nil {
			v = append(v, *p)
		}
	}
	return statOf(v, stat)
}

func statOf(v []float64, stat string) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	if stat == "mean" {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	var q float64
	if _, err := fmt.Sscanf(stat, "p%g", &q); err != nil || q < 0 || q > 100 {
		return math.NaN()
	}
	slices.Sort(v)
	pos := q / 100 * float64(len(v)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(v)-1)
	return v[lo] + (v[hi]-v[lo])*(pos-float64(lo))
}

// slaViolation reports whether a step's measured records break an SLA constraint by
// more than factor (the early-stop rule), and which.
func slaViolation(sla plan.SLA, results []stepResult, factor float64) (bool, string) {
	var recs []*rundir.Record
	failed, cut := 0, 0
	for _, r := range results {
		switch {
		case r.rec.Phase == rundir.PhaseWarmup:
		case r.rec.Phase == rundir.PhaseGrace && r.rec.ErrorClass == rundir.ErrCancelled:
			cut++ // cut off by the step protocol: not a server failure (as in analysis)
		default:
			recs = append(recs, r.rec)
			if !r.rec.OK() {
				failed++
			}
		}
	}
	if len(recs) == 0 {
		if cut > 0 {
			return true, fmt.Sprintf("none of %d measured requests ended within the window and grace period", cut)
		}
		return false, ""
	}
	for _, c := range []struct {
		field string
		m     map[string]float64
	}{{fieldTTFT, sla.TTFTMs}, {fieldTTFO, sla.TTFOMs}, {fieldITL, sla.ITLMs}, {fieldE2E, sla.E2EMs}} {
		for stat, limit := range c.m {
			if v := recordStat(recs, c.field, stat); v > factor*limit {
				return true, fmt.Sprintf("%s %s %.1f ms > %g × %g ms", c.field, stat, v, factor, limit)
			}
		}
	}
	if rate := float64(failed) / float64(len(recs)); sla.MaxErrorRate > 0 && rate > factor*sla.MaxErrorRate {
		return true, fmt.Sprintf("error rate %.3f > %g × %g", rate, factor, sla.MaxErrorRate)
	}
	return false, ""
}
