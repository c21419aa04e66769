// Package capsearch is the capacity search's policy: given the loads a segment has
// been measured at, each judged against the SLA, and the queueing model's prediction of
// the largest load within the SLA, it chooses the next load to measure or says why the
// search is over. It holds no I/O: the sweep runs the steps and the analysis judges
// them and fits the model (analysis.Probe), so the search and the answer use one judge.
//
// The policy: without a failing load the search grows geometrically (plan.Search.Growth)
// from Start, or goes to the model's predicted capacity when the model predicts one
// between the last passing load and the next geometric one; once a load fails it measures
// next where the model predicts the SLA breaks, clamped inside the bracket between the
// last passing and the first failing loads, and falls back to the secant of the
// measured SLA ratios (or bisection) when the model is not identified or mispredicted. It stops when the bracket is adjacent
// integers (concurrency, users) or within Tolerance, at MaxSteps, when Max passes, or
// when the smallest load fails.
package capsearch

import (
	"math"

	"github.com/llmcap/llmcap/plan"
)

// Trial is one measured step of a search: its load and the SLA judge's verdict.
type Trial struct {
	Load float64 `json:"load"`
	Pass bool    `json:"pass"`
	// Unreliable steps (e.g. the simulator ran late) are no evidence: they neither pass
	// nor fail, but they count towards MaxSteps.
	Unreliable bool `json:"unreliable,omitempty"`
	// Guided is set by Next's caller for a step chosen from the model's prediction
	// (Decision.Guided), so mispredictions can be counted.
	Guided bool `json:"guided,omitempty"`
	// Predicted is the model's predicted capacity when this step was chosen (0: none).
	Predicted float64 `json:"predicted,omitempty"`
	// Ratio is the step's worst latency bound's measured value over its threshold
	// (above 1 it breaks the SLA; 0: unknown). The search interpolates it when the
	// model cannot guide (secant).
	Ratio float64 `json:"ratio,omitempty"`
}

// Probe is the analysis's view of one segment's steps so far (analysis.Probe).
type Probe struct {
	// Verdicts are the SLA judge's verdicts by step index (RunMeta.Steps), with the
	// step's load; Unreliable marks a step where the simulator ran late (no evidence).
	Verdicts map[int]Trial
	// Guide is the fitted queueing model's largest load within the SLA, when the model
	// is identified.
	Guide Guide
}

// Prober returns the Probe of segment in run directory dir, the model's capacity
// sought in [lo, hi].
type Prober func(dir, segment string, lo, hi float64) (Probe, error)

// Guide is the queueing model's prediction from the trials so far.
type Guide struct {
	// OK is false when the model could not be fitted (fewer than two usable steps).
	OK bool
	// Capacity is the model's largest load within the SLA (concurrency, users or req/s).
	Capacity float64
}

// StopReason says why a search ended.
type StopReason string

// Stop reasons.
const (
	StopNone       StopReason = ""            // not stopped: measure Decision.Load next
	StopAdjacent   StopReason = "adjacent"    // the last passing and first failing loads are adjacent integers
	StopTolerance  StopReason = "tolerance"   // the bracket is within the tolerance
	StopMaxSteps   StopReason = "max_steps"   // the step budget is spent
	StopMaxLoad    StopReason = "max_load"    // the largest load allowed passed
	StopBelowStart StopReason = "below_min"   // the smallest load allowed fails
	StopNoProgress StopReason = "no_progress" // nothing left to measure (every candidate measured)
)

// Describe is a reader's phrase for a stop reason, e.g. "the last passing and first
// failing loads are adjacent".
func (r StopReason) Describe() string {
	switch r {
	case StopAdjacent:
		return "the last passing and the first failing loads are adjacent"
	case StopTolerance:
		return "the last passing and the first failing loads are within the tolerance"
	case StopMaxSteps:
		return "the step budget (max_steps) was spent"
	case StopMaxLoad:
		return "the largest load allowed (max) met the SLA"
	case StopBelowStart:
		return "the smallest load allowed already breaks the SLA"
	case StopNoProgress:
		return "every load left in the bracket was measured"
	}
	return "still searching"
}

// Decision is Next's answer: the next load, or a stop reason.
type Decision struct {
	Load   float64
	Stop   StopReason
	Guided bool // the load comes from the model's prediction
	// Pass and Fail are the bracket after the trials: the largest passing load below
	// the first failing one (0: none) and the first failing load (0: none).
	Pass, Fail float64
}

// Bracket returns the largest passing load below the smallest failing one and that
// failing load among reliable trials (0 when absent). Trials that pass above a failure
// (noise, or a non-monotonic server) do not move the bracket: the first failure bounds it.
func Bracket(trials []Trial) (pass, fail float64) {
	fail = math.Inf(1)
	for _, t := range trials {
		if !t.Unreliable && !t.Pass && t.Load < fail {
			fail = t.Load
		}
	}
	for _, t := range trials {
		if !t.Unreliable && t.Pass && t.Load < fail && t.Load > pass {
			pass = t.Load
		}
	}
	if math.IsInf(fail, 1) {
		fail = 0
	}
	return pass, fail
}

// Next chooses the next load for a search configured by cfg (plan.Search with its
// defaults filled), after trials (in the order measured), with the model's guide.
func Next(cfg plan.Search, trials []Trial, g Guide) Decision {
	pass, fail := Bracket(trials)
	d := Decision{Pass: pass, Fail: fail}
	if len(trials) == 0 {
		d.Load = round(cfg, cfg.Start)
		return d
	}
	if fail > 0 && pass > 0 {
		if r := bracketNarrow(cfg, pass, fail); r != StopNone {
			d.Stop = r
			return d
		}
	}
	if len(trials) >= cfg.MaxSteps {
		d.Stop = StopMaxSteps
		return d
	}
	switch {
	case fail == 0 && pass == 0: // only unreliable steps so far: measure the start again
		d.Load = round(cfg, cfg.Start)
	case fail == 0:
		d.Load, d.Guided = grow(cfg, pass, g, underestimates(trials) > 0)
		if pass >= cfg.Max {
			d.Stop = StopMaxLoad
			return d
		}
	case pass == 0:
		lo := cfg.MinLoad()
		if fail <= lo*(1+1e-9) {
			d.Stop = StopBelowStart
			return d
		}
		d.Load = math.Max(lo, fail/cfg.Growth)
		if g.OK && g.Capacity > 0 && g.Capacity < fail {
			d.Load, d.Guided = math.Max(lo, g.Capacity), true
		}
		d.Load = round(cfg, d.Load)
		if d.Load >= fail {
			d.Load = round(cfg, math.Max(lo, fail-1))
		}
	default:
		d.Load, d.Guided = inside(cfg, trials, pass, fail, g)
	}
	if measured(trials, d.Load) {
		if d.Load, d.Guided = bisect(cfg, pass, fail), false; d.Load <= 0 || measured(trials, d.Load) {
			d.Stop = StopNoProgress
		}
	}
	return d
}

// bracketNarrow is the stop reason of a bracket [pass, fail) narrow enough, if any.
func bracketNarrow(cfg plan.Search, pass, fail float64) StopReason {
	if cfg.Integer() && fail-pass <= 1+1e-9 {
		return StopAdjacent
	}
	if (fail-pass)/fail <= cfg.Tolerance {
		return StopTolerance
	}
	return StopNone
}

// grow is the next load before any failure: pass × Growth, or the model's predicted
// capacity when it lies between pass and that; when the model puts the capacity at
// pass, the load just above it (unless the model has underestimated before: then
// pass × Growth); at most Max.
func grow(cfg plan.Search, pass float64, g Guide, under bool) (float64, bool) {
	next, guided := pass*cfg.Growth, false
	switch {
	case !g.OK || g.Capacity < pass || g.Capacity >= next:
	case cfg.Integer() && math.Floor(g.Capacity+1e-9) <= pass, !cfg.Integer() && g.Capacity <= pass*(1+cfg.Tolerance):
		if under { // it underestimated before: grow as if there were no model
			break
		}
		next, guided = pass+1, true
		if !cfg.Integer() {
			next = pass * (1 + math.Max(cfg.Tolerance, 0.01))
		}
	default:
		next, guided = g.Capacity, true
	}
	return round(cfg, math.Min(next, cfg.Max)), guided
}

// misses counts the guided trials whose outcome contradicted their prediction:
// under, those that passed above the capacity predicted for them (the model
// underestimated); all, those and the ones that failed at or below it.
func misses(trials []Trial) (under, all int) {
	for _, t := range trials {
		if !t.Guided || t.Unreliable || t.Predicted <= 0 {
			continue
		}
		above := t.Load > t.Predicted*(1+1e-9)
		switch {
		case t.Pass && above:
			under++
			all++
		case !t.Pass && !above:
			all++
		}
	}
	return under, all
}

// underestimates counts guided trials that passed above the capacity predicted for them.
func underestimates(trials []Trial) int { u, _ := misses(trials); return u }

// mispredictions counts guided trials whose outcome contradicted their prediction.
func mispredictions(trials []Trial) int { _, a := misses(trials); return a }

// inside is the next load within the bracket (pass, fail): the model's predicted
// capacity, or, when the model puts the capacity at pass, the load just past it; the
// secant of the measured SLA ratios (bisection without them) when the model is
// unidentified, contradicts the bracket (predicts the failing load passes), has
// underestimated or has mispredicted.
func inside(cfg plan.Search, trials []Trial, pass, fail float64, g Guide) (float64, bool) {
	if !g.OK || g.Capacity <= 0 || mispredictions(trials) >= 1 {
		return secant(cfg, trials, pass, fail), false
	}
	step := 1.0
	if !cfg.Integer() {
		step = math.Max(cfg.Tolerance, 0.01) * pass
	}
	c := round(cfg, g.Capacity)
	switch {
	case c <= pass:
		// The model says pass is the capacity: confirm the load just above it; once
		// it has underestimated, bisect (a model that underestimates must not make the
		// search crawl one load at a time).
		if underestimates(trials) > 0 {
			return secant(cfg, trials, pass, fail), false
		}
		c = pass + step
	case c >= fail: // the model expects the failing load to pass: it does not know this bracket
		return secant(cfg, trials, pass, fail), false
	}
	c = round(cfg, c)
	if c <= pass || c >= fail {
		return secant(cfg, trials, pass, fail), false
	}
	return c, true
}

// secant is where the worst bound's ratio, interpolated linearly in its logarithm
// between the passing and the failing trials, crosses 1 (regula falsi), kept at
// least a fifth of the bracket from either end so a curved metric cannot stall the
// search at one side; the bisection when either ratio is unknown or the last two
// trials failed.
func secant(cfg plan.Search, trials []Trial, pass, fail float64) float64 {
	if n := len(trials); n >= 2 && !trials[n-1].Pass && !trials[n-2].Pass {
		// Two failures in a row: a convex metric keeps the secant on the failing side
		// (regula falsi's stall), so halve the bracket instead.
		return bisect(cfg, pass, fail)
	}
	rp, rf := ratioAt(trials, pass), ratioAt(trials, fail)
	if !(rp > 0) || !(rf > 1) || rp >= 1 || math.IsInf(rf, 1) {
		return bisect(cfg, pass, fail)
	}
	lp, lf := math.Log(rp), math.Log(rf)
	x := pass + (0-lp)/(lf-lp)*(fail-pass)
	w := (fail - pass) / 5
	x = round(cfg, math.Min(math.Max(x, pass+w), fail-w))
	if x <= pass || x >= fail || measured(trials, x) {
		return bisect(cfg, pass, fail)
	}
	return x
}

// ratioAt is the Ratio of the reliable trial at load (0 when none has one).
func ratioAt(trials []Trial, load float64) float64 {
	for _, t := range trials {
		if !t.Unreliable && t.Ratio > 0 && math.Abs(t.Load-load) <= 1e-9*math.Max(1, load) {
			return t.Ratio
		}
	}
	return 0
}

// bisect is the middle of (pass, fail): geometric when fail > 4·pass, else arithmetic;
// whole for integer searches (0 when no whole number lies strictly inside).
func bisect(cfg plan.Search, pass, fail float64) float64 {
	m := (pass + fail) / 2
	if fail > 4*pass {
		m = math.Sqrt(pass * fail)
	}
	m = round(cfg, m)
	if cfg.Integer() && (m <= pass || m >= fail) {
		return 0
	}
	return m
}

// measured reports whether some reliable trial ran at load (an unreliable one may be
// measured again).
func measured(trials []Trial, load float64) bool {
	for _, t := range trials {
		if !t.Unreliable && math.Abs(t.Load-load) <= 1e-9*math.Max(1, load) {
			return true
		}
	}
	return false
}

// round makes a load whole for integer searches (floor, at least 1) and keeps three
// significant digits for rates.
func round(cfg plan.Search, x float64) float64 {
	if cfg.Integer() {
		return math.Max(1, math.Floor(x+1e-9))
	}
	if x <= 0 {
		return x
	}
	e := math.Pow(10, math.Floor(math.Log10(x))-2)
	return math.Round(x/e) * e
}
