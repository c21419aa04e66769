package analysis

import (
	"math"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// Capacity methods.
const (
	MethodMeasured       = "measured"
	MethodModel          = "model"
	MethodAtLeast        = "at_least"
	MethodBelowFirstStep = "below_first_step"
	MethodNoData         = "no_data"
)

// ladderStep is what the capacity search needs of one step.
type ladderStep struct {
	load     float64
	stats    map[string]float64 // "metric:stat" → ms
	errRate  float64
	requests int
	// allFailed: every measured request failed (latencies missing for that reason).
	allFailed bool
	// na: constraints ("metric:stat") that cannot apply at this step (notApplicable).
	na map[string]bool
}

// capResult is a capacity found on a ladder.
type capResult struct {
	value   float64 // load within the SLA
	method  string
	binding string // constraint that binds first
	pass    int    // index of the last passing step (−1 none)
	fail    int    // index of the first failing step (−1 none)
	frac    float64
}

// violation is one broken bound at a step: its name, the measured value and threshold.
type violation struct {
	name       string
	value, thr float64
}

// violations lists the constraints a step breaks (missing data breaks a constraint).
// A step whose measured requests all failed breaks only the error-rate bound: its
// latencies are missing because nothing succeeded, not because they were slow.
func violations(s ladderStep, cons []plan.Constraint, maxErr float64) []violation {
	if s.requests > 0 && s.allFailed {
		return []violation{{errorBoundName(maxErr), s.errRate, maxErr}}
	}
	var out []violation
	for _, c := range cons {
		v, ok := s.stats[statKey(c.Metric, c.Stat)]
		if !ok && s.na[statKey(c.Metric, c.Stat)] {
			continue
		}
		if !ok {
			v = math.Inf(1)
		}
		if v > c.ThresholdMs {
			out = append(out, violation{constraintName(c), v, c.ThresholdMs})
		}
	}
	if s.errRate > maxErr {
		out = append(out, violation{errorBoundName(maxErr), s.errRate, maxErr})
	}
	if s.requests == 0 {
		out = append(out, violation{"no measured requests", math.Inf(1), 0})
	}
	return out
}

// measuredCapacity finds the largest load within the SLA on a ladder sorted by load:
// between the last passing step and the first failing one it interpolates each broken
// constraint linearly and takes the lowest crossing (the binding constraint).
func measuredCapacity(steps []ladderStep, cons []plan.Constraint, maxErr float64) capResult {
	r := capResult{pass: -1, fail: -1}
	for i, s := range steps {
		if len(violations(s, cons, maxErr)) > 0 {
			r.fail = i
			break
		}
		r.pass = i
	}
	switch {
	case len(steps) == 0:
		r.method = MethodNoData
		return r
	case r.fail < 0:
		r.method, r.value = MethodAtLeast, steps[len(steps)-1].load
		return r
	case r.fail == 0:
		r.method = MethodBelowFirstStep
		vs := violations(steps[0], cons, maxErr)
		r.binding = worstViolation(vs)
		for _, v := range vs {
			if isErrorBound(v.name) { // failing requests come before any latency
				r.binding = v.name
			}
		}
		return r
	}
	a, b := steps[r.pass], steps[r.fail]
	r.method, r.value, r.frac = MethodMeasured, b.load, 1
	for _, v := range violations(b, cons, maxErr) {
		va := valueAt(a, v.name, cons)
		f := 0.0
		if !math.IsInf(v.value, 1) && v.value > va {
			f = (v.thr - va) / (v.value - va)
		}
		f = math.Max(0, math.Min(1, f))
		if x := a.load + f*(b.load-a.load); x < r.value || r.binding == "" {
			r.value, r.binding, r.frac = x, v.name, f
		}
	}
	return r
}

// errorBoundName names the error-rate bound, e.g. "error rate ≤ 1%".
func errorBoundName(maxErr float64) string { return "error rate ≤ " + fmtNum(100*maxErr) + "%" }

// isErrorBound reports whether a bound name is the error-rate bound.
func isErrorBound(name string) bool { return strings.HasPrefix(name, "error rate") }

// valueAt returns step s's value of the named bound (constraint or error rate).
func valueAt(s ladderStep, name string, cons []plan.Constraint) float64 {
	for _, c := range cons {
		if constraintName(c) == name {
			return s.stats[statKey(c.Metric, c.Stat)]
		}
	}
	return s.errRate
}

// worstViolation names the bound broken by the largest factor.
func worstViolation(vs []violation) string {
	best, ratio := "", -1.0
	for _, v := range vs {
		r := math.Inf(1)
		if v.thr > 0 {
			r = v.value / v.thr
		}
		if r > ratio {
			best, ratio = v.name, r
		}
	}
	return best
}

// modelEval predicts constraint values from a fitted model with calibrations.
type modelEval struct {
	m    qmodel
	cal  map[string]calib
	cons []plan.Constraint
	rate bool // loads are request rates (open loop), not concurrency
}

// nAt returns the model's load for a ladder load (the same number: concurrency, or a
// rate for an open loop); ok is false when an open loop's rate saturates the slots.
func (e modelEval) nAt(load float64) (float64, bool) {
	return load, e.m.state(load, e.m.lout).ok
}

// saturatedName is the bound reported when a rate exceeds the fitted maximum throughput.
const saturatedName = "request rate < fitted maximum throughput"

// firstViolation returns the name of the first constraint the model breaks at load
// ("" when all hold).
func (e modelEval) firstViolation(load float64) string {
	n, ok := e.nAt(load)
	if !ok {
		return saturatedName
	}
	for _, c := range e.cons {
		cal, ok := e.cal[statKey(c.Metric, c.Stat)]
		if !ok {
			continue
		}
		if e.m.predict(cal, c.Metric, n, e.m.lout) > c.ThresholdMs {
			return constraintName(c)
		}
	}
	return ""
}

// maxLoad finds the largest load in [lo, hi] whose predictions all hold, scanning a grid and
// refining by bisection; binding names the constraint that breaks just above it.
func (e modelEval) maxLoad(lo, hi float64) (n float64, binding string, ok bool) {
	if e.firstViolation(lo) != "" {
		return lo, e.firstViolation(lo), false
	}
	const steps = 400
	prev := lo
	for i := 1; i <= steps; i++ {
		x := lo + (hi-lo)*float64(i)/steps
		if v := e.firstViolation(x); v != "" {
			a, b := prev, x
			for k := 0; k < 40; k++ {
				mid := (a + b) / 2
				if e.firstViolation(mid) == "" {
					a = mid
				} else {
					b = mid
				}
			}
			return a, e.firstViolation(b), true
		}
		prev = x
	}
	return hi, "", true
}

// ladderFrom converts step statistics (sorted by load) to capacity inputs.
func ladderFrom(steps []StepStats, cons []plan.Constraint) []ladderStep {
	out := make([]ladderStep, 0, len(steps))
	for i := range steps {
		s := &steps[i]
		ls := ladderStep{load: s.Load, errRate: s.ErrorRate, requests: s.Requests, allFailed: s.Requests > 0 && s.Errors >= s.Requests,
			stats: map[string]float64{}}
		for _, c := range cons {
			if v, ok := statOf(summaryOf(s, c.Metric), c.Stat); ok {
				ls.stats[statKey(c.Metric, c.Stat)] = v
			} else if notApplicable(s, c) {
				if ls.na == nil {
					ls.na = map[string]bool{}
				}
				ls.na[statKey(c.Metric, c.Stat)] = true
			}
		}
		out = append(out, ls)
	}
	return out
}

// sortSteps orders steps by load, then by step index.
func sortSteps(steps []StepStats) {
	sort.SliceStable(steps, func(i, j int) bool {
		if steps[i].Load != steps[j].Load {
			return steps[i].Load < steps[j].Load
		}
		return steps[i].Step < steps[j].Step
	})
}

// percentileOf returns the p-th percentile of xs (unsorted; copied).
func percentileOf(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	return percentileSorted(c, p)
}
