package analysis

import (
	"math"

	"github.com/llmcap/llmcap/plan"
)

// segFit is a fitted model of one segment with its calibrations.
type segFit struct {
	ok   bool
	loss float64
	pts  []point
	eval modelEval
}

// fitSteps fits the queueing model to a segment's steps (sorted by load). Steps that
// did not reach steady state are left out when enough steady steps remain to identify
// the model (minFitSteps), or when no more steps would remain with them.
func fitSteps(steps []StepStats, cons []plan.Constraint, start *qmodel) segFit {
	var all, steady []point
	rate := false
	for i := range steps {
		p, ok := pointFrom(&steps[i], cons)
		if !ok {
			continue
		}
		rate = steps[i].Schedule == plan.ScheduleRate || steps[i].Schedule == plan.ScheduleTrace
		all = append(all, p)
		if steps[i].SteadyState {
			steady = append(steady, p)
		}
	}
	pts := all
	if len(steady) >= minFitSteps || (len(steady) >= 2 && len(all) < minFitSteps) {
		pts = steady
	}
	if len(pts) < 2 {
		return segFit{pts: pts}
	}
	m, loss := fitModel(pts, start, rate)
	var pm float64
	for i := range steps {
		pm += steps[i].PromptTokensMean / float64(len(steps))
	}
	m.pmean = pm
	e := modelEval{m: m, cal: map[string]calib{}, cons: cons, rate: rate}
	keys := append([]plan.Constraint{{Metric: "ttft", Stat: "p95"}, {Metric: "itl", Stat: "p50"}}, cons...)
	for _, c := range keys {
		if cal, ok := calibrate(m, pts, c.Metric, c.Stat); ok {
			e.cal[statKey(c.Metric, c.Stat)] = cal
		}
	}
	e.modelErrors(pts)
	return segFit{ok: true, loss: loss, pts: pts, eval: e}
}

// Projection limits: the model may project capacity beyond the last step only when its
// TTFT p95 fit is good (R² ≥ projectMinR2) and a steady step saturated the slots, and
// then at most projectMaxFactor × the highest load tested.
const (
	projectMinR2     = 0.9
	projectMaxFactor = 2.0
)

// canProject reports whether the fitted model may project beyond the last step.
func canProject(steps []StepStats, sf segFit, f *Fit) bool {
	return sf.ok && f != nil && f.R2 >= projectMinR2 && f.SlotsIdentified
}

// capRules are what the fitted model may do for a capacity: project beyond the last
// step (canProject), fill a wide bracket in (canInterpolate), and the relative bracket
// width under which the measured load stands (tol).
type capRules struct {
	project, interpolate bool
	tol                  float64
}

// canInterpolate reports whether the fitted model may fill a bracket in: it was fitted
// to enough steps to be identified (minFitSteps) and its TTFT p95 fits well
// (R² ≥ projectMinR2).
func canInterpolate(sf segFit, f *Fit) bool {
	return sf.ok && f != nil && !f.Underdetermined && f.R2 >= projectMinR2
}

// capacityOf finds the capacity of a segment: measured (the largest passing load below
// the first failing step) when a step breaks the SLA, interpolated by the model when
// the bracket is wider than tol and the model reproduces it (interpolate); when every
// step met it, the highest load tested (at_least) or, with project, the model's
// projection up to projectMaxFactor × the last load. A ladder without measured
// requests has no capacity (no_data). The result carries its range (capResult.lo, hi).
func capacityOf(steps []StepStats, spec plan.SLA, sf segFit, rules capRules) capResult {
	if !anyMeasured(steps) {
		return capResult{method: MethodNoData, pass: -1, fail: -1}
	}
	integer := integerLoads(steps)
	r := measuredCapacity(ladderFrom(steps, spec))
	switch {
	case r.method == MethodAtLeast && steps[0].Schedule == plan.ScheduleTrace:
		r.method = MethodMeasured // a replayed trace has one load: it passed as measured
		r.pass, r.fail, r.frac = len(steps)-1, len(steps)-1, 0
		r.lo, r.hi, r.kind = r.value, r.value, RangeBracket
		return r
	case r.method == MethodMeasured:
		bracketRange(&r, steps, integer)
		if rules.interpolate {
			interpolate(&r, steps, sf, integer, rules.tol)
		}
		return r
	case r.method == MethodAtLeast:
		r.lo, r.kind = r.value, RangeOpen
	}
	if r.method != MethodAtLeast || !rules.project {
		return r
	}
	last := steps[len(steps)-1].Load
	hi := projectMaxFactor * last
	if sf.eval.rate {
		hi = math.Min(hi, sf.eval.m.maxThroughputRps())
	}
	if hi <= last {
		return r
	}
	if v, low, high, ok := sf.eval.predictedCapacity(last, hi, integer); ok && v > last*1.001 {
		above := v * 1.001
		if integer {
			above = v + 1
		}
		r.method, r.value, r.binding = MethodModel, v, sf.eval.firstViolation(above)
		r.lo, r.hi, r.kind = math.Max(last, low), high, RangePrediction
	}
	return r
}

// anyMeasured reports whether some step has measured requests.
func anyMeasured(steps []StepStats) bool {
	for i := range steps {
		if steps[i].Requests > 0 {
			return true
		}
	}
	return false
}

// minFitSteps is the fewest steps that can identify the queueing model: its TTFT curve
// alone has three parameters (slots, base TTFT, prefill time), so two steps fit exactly
// whatever the server, and the R² of such a fit is 1 by construction.
const minFitSteps = 3

// buildFit fills the Fit of a segment from its fitted model (without the bootstrap).
func buildFit(steps []StepStats, sf segFit) *Fit {
	m := sf.eval.m
	f := &Fit{ServiceRate: m.maxThroughputRps(), Slots: m.c, BaseTTFTMs: m.baseAt(1),
		DecodeBaseMs: m.d0, DecodePerSeqMs: m.d1, slotsFitted: m.c}
	// Slots (and the maximum throughput they imply) are identified only when a steady
	// step held clearly more requests than them; otherwise they are unknown.
	f.FitSteps = len(sf.pts)
	f.Underdetermined = f.FitSteps < minFitSteps
	f.SlotsIdentified = m.c < maxSlots/2 && slotsObserved(steps, m.c) && !f.Underdetermined
	if !f.SlotsIdentified {
		f.Slots, f.ServiceRate = 0, 0
	}
	if m.pmean > 0 {
		f.PrefillMsPerKToken = m.tp * 1000 / m.pmean
	}
	cal, ok := sf.eval.cal[statKey("ttft", "p95")]
	if !ok {
		return f
	}
	// R² and the residuals cover the same steps: those the model was fitted to.
	var ys, preds, loads []float64
	for _, p := range sf.pts {
		y, ok := p.stats[statKey("ttft", "p95")]
		if !ok {
			continue
		}
		pred := math.NaN()
		if n, ok := sf.eval.nAt(p.load); ok {
			pred = m.predict(cal, "ttft", n, m.lout)
		}
		ys, preds, loads = append(ys, y), append(preds, pred), append(loads, p.load)
	}
	mean := meanOf(ys)
	var ssRes, ssTot float64
	for i, y := range ys {
		res := y - preds[i]
		f.Residuals, f.ResidualLoads = append(f.Residuals, res), append(f.ResidualLoads, loads[i])
		if !math.IsNaN(res) {
			ssRes += res * res
			ssTot += (y - mean) * (y - mean)
		}
	}
	if ssTot > 0 {
		f.R2 = 1 - ssRes/ssTot
	}
	f.Curve = curve(steps, sf)
	return f
}

// curveLoads is the load grid of a fitted curve: 0 to 1.5× the largest load.
func curveLoads(steps []StepStats) []float64 {
	last := steps[len(steps)-1].Load
	const n = 60
	out := make([]float64, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, 1.5*last*float64(i)/n)
	}
	return out
}

// curvePoint predicts TTFT p95, ITL p50 and throughput at one load; ok is false when
// the load saturates an open loop.
func curvePoint(sf segFit, load float64) (CurvePoint, bool) {
	e := sf.eval
	n, ok := e.nAt(load)
	if !ok {
		return CurvePoint{}, false
	}
	cp := CurvePoint{Load: load, Throughput: 1000 * e.m.throughput(n, e.m.lout), ITLp50Ms: e.m.itl(n, e.m.lout)}
	if c, ok := e.cal[statKey("itl", "p50")]; ok {
		cp.ITLp50Ms = e.m.predict(c, "itl", n, e.m.lout)
	}
	cp.TTFTp95Ms = e.m.ttft(n, e.m.lout)
	if c, ok := e.cal[statKey("ttft", "p95")]; ok {
		cp.TTFTp95Ms = e.m.predict(c, "ttft", n, e.m.lout)
	}
	cp.TTFTLowMs, cp.TTFTHigh = cp.TTFTp95Ms, cp.TTFTp95Ms
	return cp, true
}

func curve(steps []StepStats, sf segFit) []CurvePoint {
	var out []CurvePoint
	for _, l := range curveLoads(steps) {
		if cp, ok := curvePoint(sf, l); ok {
			out = append(out, cp)
		}
	}
	return out
}

// atCapacity fills the throughput, latency and users of a capacity result. The
// throughput is the steady-state one: closed loop X = N / R (Little's law, R the mean
// E2E interpolated at the capacity point like the capacity itself), open loop the rate,
// so that X · R = N and the users with think time Z are X · (R + Z) = N · (R + Z) / R.
// For a segment drawn from the mix, loads and users are the whole mix's (R is the mix's
// E2E) and the throughputs are the segment's share. A users ladder's capacity is users
// (usersAtCapacity); any other's users are converted (UsersConverted).
func atCapacity(c *Capacity, r capResult, steps []StepStats, sf segFit, thinkS float64) {
	if usersLadder(steps) {
		usersAtCapacity(c, r, steps, sf, thinkS)
		return
	}
	defer func() { c.UsersSource = convertedUsers(c) }()
	closed := steps[0].Schedule == plan.ScheduleConcurrency
	fromMix := steps[0].MixShare > 0
	var rS, rMixS, lout, share float64 // E2E (s), the mix's E2E (s), output tokens, mix share
	var x float64                      // model throughput (req/s) when the model decides
	modelled := (r.method == MethodModel || r.method == MethodInterpolated) && sf.ok && !fromMix
	switch {
	case r.method == MethodMeasured || (r.method == MethodInterpolated && !modelled):
		a, b := &steps[r.pass], &steps[r.fail]
		lerp := func(u, v float64) float64 { return u + r.frac*(v-u) }
		rS = lerp(residenceMs(a), residenceMs(b)) / 1000
		rMixS = lerp(a.mixE2EMs, b.mixE2EMs) / 1000
		lout, share = lerp(a.OutputTokensMean, b.OutputTokensMean), lerp(a.MixShare, b.MixShare)
		if !closed && !fromMix && a.Schedule == plan.ScheduleRate {
			x = math.Min(r.value, math.Max(servedRate(r.value, a, b), passingServed(steps, r.pass)))
		}
	case modelled:
		n, _ := sf.eval.nAt(r.value)
		m := sf.eval.m
		x, lout, rS = 1000*m.throughput(n, m.lout), m.lout, m.e2e(n, m.lout)/1000
	case r.method == MethodModel || r.method == MethodAtLeast:
		s := &steps[len(steps)-1] // the last step's latencies (at, or projected beyond, it)
		rS, rMixS, lout, share = residenceMs(s)/1000, s.mixE2EMs/1000, s.OutputTokensMean, s.MixShare
		if r.method == MethodAtLeast && !closed && !fromMix && s.Schedule == plan.ScheduleRate {
			x = math.Max(servedRate(r.value, s), passingServed(steps, len(steps)-1))
		}
	}
	if upto := max(r.pass, r.fail); !closed && !fromMix && upto >= 0 {
		c.ClientLimited = anyClientLimited(steps, upto)
	}
	c.ThinkTimeS = thinkS
	if fromMix {
		rS = rMixS
	}
	if x == 0 {
		x = steadyThroughput(closed, r.value, rS)
	}
	if closed {
		c.MaxConcurrencyWithinSLA = r.value
	} else {
		c.MaxRateWithinSLA = r.value
		if x > 0 && x < r.value*(1-1e-9) && !fromMix {
			// The server completed less than was offered: the headline is what it served.
			c.MaxRateWithinSLA, c.OfferedRateRps = x, r.value
		}
		c.MaxConcurrencyWithinSLA = c.MaxRateWithinSLA * rS // Little's law: requests in flight
	}
	c.UsersWithThinkTime = x * (rS + thinkS)
	if fromMix {
		x *= share
	}
	c.ThroughputAtCapacity, c.OutputTokensPerSAtCapacity = x, x*lout
	if r.method == MethodBelowFirstStep || r.method == MethodNoData {
		c.UsersWithThinkTime, c.ThroughputAtCapacity, c.OutputTokensPerSAtCapacity = 0, 0, 0
	}
	c.Users = int(math.Floor(c.UsersWithThinkTime + 1e-9))
}

// servedRate is an open loop's throughput at the capacity rate: the rate itself, unless a
// saturated step around it (achieved below its offered rate) completed less, which
// caps what the server serves.
func servedRate(rate float64, steps ...*StepStats) float64 {
	x := rate
	for _, s := range steps {
		if s.LittleThroughputRps < s.Rate {
			x = math.Min(x, s.LittleThroughputRps)
		}
	}
	return x
}

// steadyThroughput is the steady-state throughput in req/s at a load: closed loop N / R
// with R in seconds (0 when R is unknown), open loop the rate itself.
func steadyThroughput(closed bool, load, rS float64) float64 {
	if !closed {
		return load
	}
	if rS <= 0 {
		return 0
	}
	return load / rS
}
