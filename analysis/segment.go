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
// did not reach steady state are left out when at least two steady steps remain.
func fitSteps(steps []StepStats, cons []plan.Constraint, start *qmodel) segFit {
	var all, steady []point
	rate := false
	for i := range steps {
		p, ok := pointFrom(&steps[i], cons)
		if !ok {
			continue
		}
		rate = steps[i].Schedule != plan.ScheduleConcurrency
		all = append(all, p)
		if steps[i].SteadyState {
			steady = append(steady, p)
		}
	}
	pts := all
	if len(steady) >= 2 {
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
	return segFit{ok: true, loss: loss, pts: pts, eval: e}
}

// capacityOf finds the capacity of a segment: measured when a step breaks the SLA,
// else extrapolated with the model up to 10× the last load.
func capacityOf(steps []StepStats, cons []plan.Constraint, maxErr float64, sf segFit) capResult {
	r := measuredCapacity(ladderFrom(steps, cons), cons, maxErr)
	if r.method == MethodModel && steps[0].Schedule == plan.ScheduleTrace {
		r.method = MethodMeasured // a replayed trace has one load: it passed as measured
		r.pass, r.fail, r.frac = len(steps)-1, len(steps)-1, 0
		return r
	}
	if r.method != MethodModel || !sf.ok {
		return r
	}
	last := steps[len(steps)-1].Load
	hi := 10 * last
	if sf.eval.rate {
		hi = math.Min(hi, sf.eval.m.maxThroughputRps())
	}
	if hi <= last {
		return r
	}
	v, binding, ok := sf.eval.maxLoad(last, hi)
	if ok {
		r.value, r.binding = v, binding
	}
	return r
}

// buildFit fills the Fit of a segment from its fitted model (without the bootstrap).
func buildFit(steps []StepStats, sf segFit) *Fit {
	m := sf.eval.m
	f := &Fit{ServiceRate: m.maxThroughputRps(), Slots: m.c, BaseTTFTMs: m.baseAt(1),
		DecodeBaseMs: m.d0, DecodePerSeqMs: m.d1}
	if m.pmean > 0 {
		f.PrefillMsPerKToken = m.tp * 1000 / m.pmean
	}
	cal, ok := sf.eval.cal[statKey("ttft", "p95")]
	if !ok {
		return f
	}
	var ssRes, ssTot float64
	withTTFT := 0
	for i := range steps {
		if steps[i].TTFTMs.N > 0 {
			withTTFT++
		}
	}
	steadyOnly := len(sf.pts) < withTTFT // the fit used the steady steps only: so does R²
	var ys []float64
	for i := range steps {
		if steps[i].TTFTMs.N > 0 && (steps[i].SteadyState || !steadyOnly) {
			ys = append(ys, steps[i].TTFTMs.P95)
		}
	}
	mean := meanOf(ys)
	for i := range steps {
		s := &steps[i]
		if s.TTFTMs.N == 0 {
			continue
		}
		n, ok := sf.eval.nAt(s.Load)
		pred := math.NaN()
		if ok {
			pred = m.predict(cal, "ttft", n, m.lout)
		}
		res := s.TTFTMs.P95 - pred
		f.Residuals = append(f.Residuals, res)
		if !math.IsNaN(res) && (s.SteadyState || !steadyOnly) {
			ssRes += res * res
			ssTot += (s.TTFTMs.P95 - mean) * (s.TTFTMs.P95 - mean)
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

// atCapacity fills the throughput, latency and users of a capacity result.
func atCapacity(c *Capacity, r capResult, steps []StepStats, sf segFit, thinkS float64) {
	var x, tok, rS float64
	switch {
	case r.method == MethodMeasured:
		a, b := &steps[r.pass], &steps[r.fail]
		lerp := func(u, v float64) float64 { return u + r.frac*(v-u) }
		x = lerp(a.RequestThroughput, b.RequestThroughput)
		tok = lerp(a.OutputTokenThroughput, b.OutputTokenThroughput)
		rS = lerp(a.E2EMs.Mean, b.E2EMs.Mean) / 1000
	case r.method == MethodModel && sf.ok:
		n, _ := sf.eval.nAt(r.value)
		m := sf.eval.m
		x = 1000 * m.throughput(n, m.lout)
		tok = x * m.lout
		rS = m.e2e(n, m.lout) / 1000
	case r.method == MethodModel && len(steps) > 0:
		s := &steps[len(steps)-1]
		x, tok, rS = s.RequestThroughput, s.OutputTokenThroughput, s.E2EMs.Mean/1000
	}
	if steps[0].Schedule == plan.ScheduleConcurrency {
		c.MaxConcurrencyWithinSLA = r.value
	} else {
		c.MaxRateWithinSLA = r.value
		c.MaxConcurrencyWithinSLA = r.value * rS // Little's law: requests in flight
	}
	c.ThroughputAtCapacity, c.OutputTokensPerSAtCapacity = x, tok
	c.ThinkTimeS = thinkS
	c.UsersWithThinkTime = x * (rS + thinkS)
	if r.method == MethodBelowFirstStep || r.method == MethodNoData {
		c.UsersWithThinkTime = 0
	}
}
