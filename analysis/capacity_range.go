package analysis

import (
	"math"

	"github.com/llmcap/llmcap/plan"
)

// Prediction-interval settings: the model's relative error of a constraint's statistic
// is the RMS of log(predicted / measured) over the steps it was fitted to, at least
// minModelErr; the interval takes ±predictionZ of it (about 95%), and the slot count
// ±slotsErr (a closed loop's percentile jumps once the load passes the slots by its
// tail share, so a slot count a few percent off moves the capacity by a load or two).
const (
	minModelErr = 0.05
	predictionZ = 2.0
	slotsErr    = 0.05
)

// modelErrors computes e.sigma: each constraint's relative model error over pts.
func (e *modelEval) modelErrors(pts []point) {
	e.sigma = map[string]float64{}
	for _, c := range e.cons {
		key := statKey(c.Metric, c.Stat)
		cal, ok := e.cal[key]
		if !ok {
			continue
		}
		var ss float64
		n := 0
		for _, p := range pts {
			y, ok := p.stats[key]
			pred := e.m.predict(cal, c.Metric, p.n, p.lout)
			if !ok || y <= 0 || !(pred > 0) {
				continue
			}
			d := math.Log(pred / y)
			ss += d * d
			n++
		}
		s := minModelErr
		if n > 0 {
			s = math.Max(s, math.Sqrt(ss/float64(n)))
		}
		e.sigma[key] = s
	}
}

// violatesScaled reports whether some constraint's prediction at load, multiplied by
// exp(k·σ) (σ its model error; k > 0 pessimistic), exceeds its threshold; a saturated
// open loop violates.
func (e modelEval) violatesScaled(load, k float64) bool {
	n, ok := e.nAt(load)
	if !ok {
		return true
	}
	for _, c := range e.cons {
		key := statKey(c.Metric, c.Stat)
		cal, ok := e.cal[key]
		if !ok {
			continue
		}
		if e.m.predict(cal, c.Metric, n, e.m.lout)*math.Exp(k*e.sigma[key]) > c.ThresholdMs {
			return true
		}
	}
	return false
}

// largestWithin is the largest load in [lo, hi] the model (scaled by k, see
// violatesScaled) predicts within the SLA, scanning a grid (geometric when hi/lo > 10)
// and refining the first crossing by bisection; whole numbers when integer. ok is false
// when lo itself violates.
func (e modelEval) largestWithin(lo, hi, k float64, integer bool) (float64, bool) {
	if e.violatesScaled(lo, k) {
		return lo, false
	}
	const n = 400
	geo := lo > 0 && hi/lo > 10
	at := func(i int) float64 {
		if geo {
			return lo * math.Pow(hi/lo, float64(i)/n)
		}
		return lo + (hi-lo)*float64(i)/n
	}
	v := hi
	for i := 1; i <= n; i++ {
		if x := at(i); e.violatesScaled(x, k) {
			a, b := at(i-1), x
			for range 50 {
				if m := (a + b) / 2; e.violatesScaled(m, k) {
					b = m
				} else {
					a = m
				}
			}
			v = a
			break
		}
	}
	if integer {
		v = math.Max(math.Floor(v+1e-9), lo)
	}
	return v, true
}

// predictedCapacity is the model's capacity in [lo, hi] with its prediction interval
// [low, high] (the capacity with every prediction raised, then lowered, by
// predictionZ model errors); ok is false when the model breaks the SLA at lo.
func (e modelEval) predictedCapacity(lo, hi float64, integer bool) (v, low, high float64, ok bool) {
	if v, ok = e.largestWithin(lo, hi, 0, integer); !ok {
		return 0, 0, 0, false
	}
	pess, opt := e, e
	if e.m.c < maxSlots/2 {
		pess.m.c, opt.m.c = e.m.c*(1-slotsErr), e.m.c*(1+slotsErr)
	}
	low, okLow := pess.largestWithin(lo, hi, predictionZ, integer)
	if !okLow {
		low = lo
	}
	high, _ = opt.largestWithin(lo, hi, -predictionZ, integer)
	return v, math.Min(low, v), math.Max(high, v), true
}

// integerLoads reports whether a ladder's loads are whole numbers (concurrency, users).
func integerLoads(steps []StepStats) bool {
	return len(steps) > 0 && (steps[0].Schedule == plan.ScheduleConcurrency || steps[0].Schedule == plan.ScheduleUsers)
}

// narrowBracket reports whether a measured bracket [pass, fail) leaves nothing to fill
// in: adjacent whole loads, or within the search's tolerance (default 5%).
func narrowBracket(pass, fail float64, integer bool, tol float64) bool {
	if integer && fail-pass <= 1+1e-9 {
		return true
	}
	return fail > 0 && (fail-pass)/fail <= tol
}

// bracketRange sets a measured capacity's range: [pass, fail − 1] for whole loads,
// [pass, fail) for rates (hi is then the failing rate itself).
func bracketRange(r *capResult, steps []StepStats, integer bool) {
	r.lo, r.hi, r.kind = steps[r.pass].Load, steps[r.fail].Load, RangeBracket
	if integer {
		r.hi = math.Max(r.lo, r.hi-1)
	}
}

// interpolate fills a wide measured bracket from the model: when the fitted model
// reproduces both verdicts (it predicts the SLA met at the passing load and broken at
// the failing one), the capacity is the model's between them, method interpolated,
// its range the prediction interval clipped to the bracket.
func interpolate(r *capResult, steps []StepStats, sf segFit, integer bool, tol float64) {
	if r.method != MethodMeasured || !sf.ok || len(sf.pts) < minFitSteps || r.pass < 0 || r.fail < 0 {
		return // no identified model to fill the bracket with
	}
	a, b := steps[r.pass].Load, steps[r.fail].Load
	if narrowBracket(a, b, integer, tol) || sf.eval.violatesScaled(a, 0) || !sf.eval.violatesScaled(b, 0) {
		return
	}
	hiLoad := b
	if integer {
		hiLoad = b - 1
	}
	if fs := &steps[r.fail]; fs.Schedule == plan.ScheduleRate {
		// A failing rate the server did not keep up with bounds what it can serve.
		if x := fs.AchievedRateRps; x > a && x < hiLoad {
			hiLoad = x
		}
	}
	v, low, high, ok := sf.eval.predictedCapacity(a, hiLoad, integer)
	if !integer && v >= hiLoad*(1-1e-6) {
		// The model would place the capacity at (or past) what the server could serve:
		// it does not know this bracket, so the measured load stands.
		r.hi = math.Max(a, math.Min(r.hi, hiLoad))
		return
	}
	if !ok || v <= a {
		r.lo, r.hi = a, math.Max(a, math.Min(high, hiLoad)) // the model confirms the passing load
		r.kind = RangePrediction
		return
	}
	r.method, r.value, r.frac = MethodInterpolated, v, (v-a)/(b-a)
	r.lo, r.hi, r.kind = math.Max(a, low), math.Min(hiLoad, high), RangePrediction
}

// searchTolerance is the plan's search tolerance, or the default.
func searchTolerance(p *plan.Plan) float64 {
	if s := p.Ladder.Search; s != nil && s.Tolerance > 0 {
		return s.Tolerance
	}
	return plan.DefaultSearchTolerance
}
