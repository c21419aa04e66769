package analysis

import (
	"math"
	"sort"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
)

// Capacity methods.
const (
	MethodMeasured       CapacityMethod = "measured"
	MethodInterpolated   CapacityMethod = "interpolated"
	MethodModel          CapacityMethod = "model"
	MethodAtLeast        CapacityMethod = "at_least"
	MethodBelowFirstStep CapacityMethod = "below_first_step"
	MethodNoData         CapacityMethod = "no_data"
)

// ladderStep is what the capacity search needs of one step: its load and the SLA
// judge's verdict on it (sla.Judge), with every bound's measured value.
type ladderStep struct {
	load    float64
	verdict sla.Verdict
}

// capResult is a capacity found on a ladder.
type capResult struct {
	value   float64 // load within the SLA
	method  CapacityMethod
	binding string // constraint that binds first
	// bound is the binding SLA bound when a step's verdict named it (measured or
	// below the first step); zero for a model projection or a step without requests.
	bound sla.Bound
	pass  int // index of the last passing step (−1 none)
	fail  int // index of the first failing step (−1 none)
	// frac places value between the pass and fail steps' loads (0 at pass) for the
	// latencies and throughput at capacity.
	frac float64
	// lo, hi is the range the capacity lies in, of kind kind (see Capacity.RangeLow).
	lo, hi float64
	kind   RangeKind
}

// violation is one broken bound at a step: its name, bound, measured value and threshold.
type violation struct {
	name       string
	bound      sla.Bound // zero for "no measured requests"
	value, thr float64
}

// noRequestsName is the violation of a step without judged requests.
const noRequestsName = "no measured requests"

// violations lists the bounds the verdict on a step breaks (missing data breaks a
// constraint, +Inf). A step whose measured requests all failed breaks only the
// error-rate bound; one without judged requests breaks noRequestsName.
func violations(s ladderStep) []violation {
	if s.verdict.Empty {
		return []violation{{name: noRequestsName, value: math.Inf(1)}}
	}
	var out []violation
	for _, c := range s.verdict.Violations() {
		out = append(out, violation{boundName(c.Bound), c.Bound, c.Value, c.Bound.Threshold})
	}
	return out
}

// boundName names an SLA bound: "TTFT p95 ≤ 500 ms" (constraintName) or "error rate ≤ 1%".
func boundName(b sla.Bound) string {
	if b.Metric == sla.ErrorRate {
		return errorBoundName(b.Threshold)
	}
	return constraintName(b.Constraint())
}

// measuredCapacity finds the largest load within the SLA on a ladder sorted by load:
// the last passing step below the first failing one (a measured load). The binding
// constraint is the broken constraint of the failing step whose linear interpolation
// between the two steps crosses its threshold first.
func measuredCapacity(steps []ladderStep) capResult {
	r := capResult{pass: -1, fail: -1}
	for i, s := range steps {
		if !s.verdict.Pass {
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
		vs := violations(steps[0])
		w := worstViolation(vs)
		for _, v := range vs {
			if v.bound.Metric == sla.ErrorRate { // failing requests come before any latency
				w = v
			}
		}
		r.binding, r.bound = w.name, w.bound
		return r
	}
	a, b := steps[r.pass], steps[r.fail]
	r.method, r.value, r.frac = MethodMeasured, a.load, 0
	cross := b.load
	for _, v := range violations(b) {
		va := valueAt(a, v.bound)
		f := 0.0
		if !math.IsInf(v.value, 1) && v.value > va {
			f = (v.thr - va) / (v.value - va)
		}
		f = math.Max(0, math.Min(1, f))
		if x := a.load + f*(b.load-a.load); x < cross || r.binding == "" {
			cross, r.binding, r.bound = x, v.name, v.bound
		}
	}
	return r
}

// errorBoundName names the error-rate bound, e.g. "error rate ≤ 1%".
func errorBoundName(maxErr float64) string { return "error rate ≤ " + fmtNum(100*maxErr) + "%" }

// valueAt returns step s's measured value of bound b (0 when the verdict has none, or
// the bound did not apply).
func valueAt(s ladderStep, b sla.Bound) float64 {
	for _, c := range s.verdict.Checks {
		if c.Bound == b && !math.IsNaN(c.Value) {
			return c.Value
		}
	}
	return 0
}

// worstViolation returns the bound broken by the largest factor (the first of equals).
func worstViolation(vs []violation) violation {
	var best violation
	ratio := -1.0
	for _, v := range vs {
		r := math.Inf(1)
		if v.thr > 0 {
			r = v.value / v.thr
		}
		if r > ratio {
			best, ratio = v, r
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
	// sigma is each constraint's relative model error ("metric:stat" → RMS log-ratio).
	sigma map[string]float64
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

// ladderFrom converts step statistics (sorted by load) to capacity inputs, judging
// each step against spec.
func ladderFrom(steps []StepStats, spec plan.SLA) []ladderStep {
	out := make([]ladderStep, 0, len(steps))
	for i := range steps {
		out = append(out, ladderStep{load: steps[i].Load, verdict: sla.Judge(spec, stepSample(&steps[i]))})
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
