package sweep

import (
	"fmt"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
	"gonum.org/v1/gonum/stat/distuv"
)

// Early stop of a step's measurement window on errors (docs/metrics.md "Fast
// failures"): once at least errorStopMinRequests measured requests have finished, more
// than the SLA's error-rate bound (sla.MaxErrorRate) of them failed, and a server failing
// exactly at the bound would fail that many with probability below errorStopAlpha (the
// exact binomial tail), the step fails the SLA whatever the rest of the window would
// show, so the window closes. A healthy step with an early error never stops (1 error
// in 50 requests is 39% likely at a 1% bound), nor does any step of an SLA whose bound
// is 100%.
const (
	errorStopMinRequests = 50
	errorStopAlpha       = 0.001
)

// errorWatch counts a step's finished measured requests while its window is open and
// trips the early stop; guarded by stepRun.mu.
type errorWatch struct {
	requests, errors int
	stopped          rundir.StopReason
	rate             float64 // the error rate when it tripped
}

// watchErrors counts rec, finished while s.mu is held, when the window is open: every
// measured request but those cancelled (interrupted, not failed). It trips the early
// stop the first time the rule holds; the window's wait (measure) then closes it.
func (s *stepRun) watchErrors(rec *rundir.Record) {
	w := &s.early
	if s.stage != stageMeasure || rec.Phase != rundir.PhaseMeasure || rec.ErrorClass == rundir.ErrCancelled || w.stopped != "" {
		return
	}
	w.requests++
	if !rec.OK() {
		w.errors++
	} else if w.requests != errorStopMinRequests {
		return // past the minimum, a success never makes the rule hold that did not before
	}
	if w.requests < errorStopMinRequests || !errorRateSurelyAbove(w.errors, w.requests, sla.MaxErrorRate(s.rn.plan.SLA)) {
		return
	}
	w.stopped, w.rate = rundir.StopErrorRate, float64(w.errors)/float64(w.requests)
	s.rn.progress.stepNote(fmt.Sprintf("stopped early: error rate %.0f%%", 100*w.rate))
}

// stoppedEarly reports whether the early stop tripped (s.mu held).
func (s *stepRun) stoppedEarly() bool { return s.early.stopped != "" }

// errorRateSurelyAbove reports whether errors of n requests put the error rate above
// bound with confidence: errors/n > bound and P(X ≥ errors) < errorStopAlpha for X
// binomial (n, bound).
func errorRateSurelyAbove(errors, n int, bound float64) bool {
	if n == 0 || float64(errors) <= bound*float64(n) {
		return false
	}
	return bound <= 0 || binomialTail(errors, n, bound) < errorStopAlpha
}

// binomialTail is P(X ≥ k) for X binomial (n, p): gonum's survival function at k − 1
// (exact, by the regularised incomplete beta function).
func binomialTail(k, n int, p float64) float64 {
	if p >= 1 {
		return 1
	}
	return distuv.Binomial{N: float64(n), P: p}.Survival(float64(k - 1))
}

// noteStoppedEarly warns, in the log and in run.json's warnings, about a step whose
// window the early stop closed (sum.StoppedEarly set); nothing otherwise.
func (rn *runner) noteStoppedEarly(st plan.Step, sum rundir.StepSummary) {
	if sum.StoppedEarly == "" {
		return
	}
	msg := fmt.Sprintf("step %d (%s %s): stopped early after %d measured requests: error rate %.1f%% > the SLA's %.1f%% "+
		"(the step fails the SLA whatever the rest of its window would show)",
		st.Index+1, st.Segment, stepLoadLabel(st), sum.StoppedAfter, 100*sum.StoppedErrorRate, 100*sla.MaxErrorRate(rn.plan.SLA))
	rn.log.Warn("step stopped early: error rate above the SLA", "step", st.Index+1, "segment", st.Segment,
		"requests", sum.StoppedAfter, "error_rate", sum.StoppedErrorRate)
	rn.meta.Warnings = appendNew(rn.meta.Warnings, rundir.Warning{Kind: rundir.WarnStoppedEarly, Segment: st.Segment,
		Step: st.Index, Message: msg})
}
