package analysis

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// Steady-state thresholds.
const (
	// steadyMinPerUser: completed measured requests must be ≥ this × the concurrency
	// (or × the mean requests in flight for open loops and users steps).
	steadyMinPerUser = 3
	// steadyTrendRel and steadyTrendSE: a TTFT trend is significant when the last third's
	// mean differs from the first third's by more than this fraction and this many
	// standard errors.
	steadyTrendRel = 0.25
	steadyTrendSE  = 3
)

// steadyState decides whether a step reached steady state, with the reason.
func steadyState(s *StepStats, sm *stepSamples) (bool, string) {
	done := s.Requests - s.Errors
	need, what := requiredCompletions(s)
	switch {
	case done == 0 && s.Errors > 0:
		return false, fmt.Sprintf("no request succeeded (%s failed: %s), so there is no steady state to judge",
			pct(s.ErrorRate), errorBreakdown(s.ErrorClasses, s.ErrorSamples))
	case done == 0 && s.Unfinished > 0:
		return false, fmt.Sprintf("no measured request completed (%s unfinished when the step ended, %s without a first token), so there is no steady state to judge",
			commaInt(float64(s.Unfinished)), commaInt(float64(s.cancelledNoFirst)))
	case done < need && float64(s.Errors) > 0.1*float64(s.Requests):
		return false, fmt.Sprintf("only %d requests succeeded (< %s = %d): %s of the requests failed", done, what, need, pct(s.ErrorRate))
	}
	if done < need {
		return false, fmt.Sprintf("only %d requests completed (< %s = %d): the window is too short for this load",
			done, what, need)
	}
	xs := sm.ttftBySent
	if len(xs) < 9 {
		return true, fmt.Sprintf("%d requests completed ≥ %s; too few for a trend test", done, what)
	}
	k := len(xs) / 3
	a, c := xs[:k], xs[len(xs)-k:]
	ma, mc := meanOf(a), meanOf(c)
	se := math.Sqrt(varianceOf(a)/float64(len(a)) + varianceOf(c)/float64(len(c)))
	diff := mc - ma
	if math.Abs(diff) > steadyTrendRel*ma && math.Abs(diff) > steadyTrendSE*se {
		dir := "rising"
		if diff < 0 {
			dir = "falling"
		}
		return false, fmt.Sprintf("TTFT %s across the window (first third mean %.0f ms, last third %.0f ms)",
			dir, ma, mc)
	}
	return true, fmt.Sprintf("%d requests completed ≥ %s; TTFT flat (first third %.0f ms, last third %.0f ms)",
		done, what, ma, mc)
}

// requiredCompletions is the number of completed measured requests a step needs.
func requiredCompletions(s *StepStats) (int, string) {
	share := 1.0
	if s.MixShare > 0 { // a segment drawn from the mix gets its share of the requests
		share = s.MixShare
	}
	switch s.Schedule {
	case plan.ScheduleConcurrency:
		if share < 1 {
			need := int(math.Ceil(steadyMinPerUser * float64(s.Concurrency) * share))
			return need, fmt.Sprintf("%d × concurrency %d × mix share %.2f", steadyMinPerUser, s.Concurrency, share)
		}
		return steadyMinPerUser * s.Concurrency, fmt.Sprintf("%d × concurrency %d", steadyMinPerUser, s.Concurrency)
	case plan.ScheduleRate, plan.ScheduleUsers:
		// Users start thinking a stationary residual, so (as for an open loop) the window
		// needs enough requests, not a cycle of every user (30 s each at a 10 s think).
		inFlight := share * servedRateOf(s) * s.E2EMs.Mean / 1000
		if s.Schedule == plan.ScheduleUsers {
			inFlight = share * usersInFlight(s)
		}
		need := int(math.Ceil(steadyMinPerUser * inFlight))
		if need < 10 {
			need = 10
		}
		return need, fmt.Sprintf("max(10, %d × %.1f in flight)", steadyMinPerUser, inFlight)
	}
	return 10, "10"
}

// serverAcc accumulates scraped server metrics over one step's window.
type serverAcc struct {
	n                      int
	running, waiting, wMax float64
	rMax, kvMax            float64
	kvSeen                 bool
	preFirst, preLast      float64
	preSeen                bool
	// lateFirst and lateLast are the first and last scrapes of the simulator's
	// lateness histogram in the window.
	lateFirst, lateLast rundir.Histogram
	lateSeen            bool
	prefix              prefixAcc
}

// SimLateLimitMs is the simulator iteration lateness p99 (ms) above which a step is
// marked SimulatorLate: an idle host keeps it at 0.1–0.6 ms; a starved one reached
// 2.8–66 ms.
const SimLateLimitMs = 5.0

// serverStats aligns scraped samples to steps: a sample counts for a step when its
// Step matches and, when steps.jsonl gives the measurement window, it falls inside it.
func serverStats(samples []rundir.MetricSample, windows map[int]rundir.StepSummary) map[int]*ServerStats {
	acc := map[int]*serverAcc{}
	for i := range samples {
		m := &samples[i]
		if !inStepWindow(m, windows) {
			continue
		}
		a := acc[m.Step]
		if a == nil {
			a = &serverAcc{}
			acc[m.Step] = a
		}
		a.add(m)
	}
	out := map[int]*ServerStats{}
	for step, a := range acc {
		if a.n == 0 {
			continue
		}
		ss := &ServerStats{RunningMean: a.running / float64(a.n), WaitingMean: a.waiting / float64(a.n),
			WaitingMax: a.wMax, RunningMax: a.rMax, KVCacheUsageMax: a.kvMax, kvSeen: a.kvSeen}
		if a.preSeen {
			ss.Preemptions = math.Max(0, a.preLast-a.preFirst)
		}
		ss.PrefixCache = a.prefix.stats()
		if a.lateSeen {
			w := a.lateLast.Since(a.lateFirst)
			if w.Total() == 0 { // one scrape in the window: its whole history
				w = a.lateLast
			}
			if q := w.Quantile(0.99); !math.IsNaN(q) {
				ss.SimLatenessP99Ms, ss.SimIterations = q*1000, w.Total()
			}
		}
		out[step] = ss
	}
	return out
}

// inStepWindow reports whether a scrape counts for the step it is tagged with: a step
// (not -1) and, when steps.jsonl gives the step's measurement window, inside it.
func inStepWindow(m *rundir.MetricSample, windows map[int]rundir.StepSummary) bool {
	if m.Step < 0 {
		return false
	}
	if w, ok := windows[m.Step]; ok && w.MeasureStartNs > 0 && w.MeasureEndNs > w.MeasureStartNs {
		return m.TimeNs >= w.MeasureStartNs && m.TimeNs <= w.MeasureEndNs
	}
	return true
}

// add accumulates one scrape; a scrape without running or waiting requests (another
// exporter, e.g. DCGM's) is skipped. Names and scales come from rundir's server-metric
// table.
func (a *serverAcc) add(m *rundir.MetricSample) {
	if h, ok := rundir.ServerHistogram(*m, rundir.SimLatenessFamily); ok {
		if !a.lateSeen {
			a.lateFirst, a.lateSeen = h, true
		}
		a.lateLast = h
	}
	run, okR := rundir.ServerValue(*m, rundir.ServerRequestsRunning)
	wait, okW := rundir.ServerValue(*m, rundir.ServerRequestsWaiting)
	if !okR && !okW {
		return
	}
	a.n++
	a.running += run
	a.waiting += wait
	a.wMax, a.rMax = math.Max(a.wMax, wait), math.Max(a.rMax, run)
	if kv, ok := rundir.ServerValue(*m, rundir.ServerKVCacheUsage); ok {
		a.kvMax, a.kvSeen = math.Max(a.kvMax, kv), true
	}
	if p, ok := rundir.ServerValue(*m, rundir.ServerPreemptions); ok {
		if !a.preSeen {
			a.preFirst, a.preSeen = p, true
		}
		a.preLast = p
	}
	a.prefix.add(m)
}
