package analysis

import (
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/llmcap/llmcap/plan"
)

// qmodel is a continuous-batching server as a closed queueing network with
// load-dependent service: with n requests in the system and c effective slots, the
// batch is b = min(n, c); each admitted request spends Base(n) = t0 + tp·b ms in prefill
// (tp: prefill interference per running sequence) and then (L−1) decode steps of
// ITL(n) = d0 + d1·b ms. Throughput is X(n) = b / S(n) with S = Base + (L−1)·ITL, and by
// Little's law the n − b waiting requests wait W(n) = (n − b) / X(n) ms on average.
type qmodel struct {
	c, t0, tp, d0, d1 float64
	lout              float64 // mean output tokens per request
	pmean             float64 // mean prompt tokens per request
}

// maxSlots bounds the fitted slot count (a ladder that never saturates leaves it free).
const maxSlots = 1e5

func (m qmodel) batch(n float64) float64 { return math.Max(math.Min(n, m.c), 1e-9) }
func (m qmodel) base(n float64) float64  { return m.t0 + m.tp*m.batch(n) }
func (m qmodel) itl(n float64) float64   { return m.d0 + m.d1*m.batch(n) }
func (m qmodel) serviceAt(n, lout float64) float64 {
	return m.base(n) + math.Max(lout-1, 0)*m.itl(n)
}

// throughput is X(n) in req/ms for mean output length lout.
func (m qmodel) throughput(n, lout float64) float64 { return m.batch(n) / m.serviceAt(n, lout) }

// wait is the mean queueing delay W(n) in ms.
func (m qmodel) wait(n, lout float64) float64 {
	b := m.batch(n)
	if n <= b {
		return 0
	}
	return (n - b) * m.serviceAt(n, lout) / b
}

func (m qmodel) ttft(n, lout float64) float64 { return m.base(n) + m.wait(n, lout) }
func (m qmodel) e2e(n, lout float64) float64  { return m.wait(n, lout) + m.serviceAt(n, lout) }

// maxThroughputRps is X_max = c / S(c) in req/s.
func (m qmodel) maxThroughputRps() float64 { return 1000 * m.throughput(m.c, m.lout) }

// point is one step of a ladder as the model sees it.
type point struct {
	load     float64 // concurrency, or rate in req/s
	n        float64 // requests in the system: concurrency, or rate × E2E (Little)
	ttftMean float64
	itlMean  float64
	e2eMean  float64
	lout     float64
	stats    map[string]float64 // "metric:stat" → value, for calibration and capacity
}

// statKey names a metric statistic in point.stats.
func statKey(metric, stat string) string { return metric + ":" + stat }

// pointFrom converts step statistics to a model point; ok is false when the step has no
// usable latency data.
func pointFrom(s *StepStats, cons []plan.Constraint) (point, bool) {
	p := point{load: s.Load, n: s.Load, ttftMean: s.TTFTMs.Mean, itlMean: s.ITLMs.Mean,
		e2eMean: s.E2EMs.Mean, lout: s.OutputTokensMean, stats: map[string]float64{}}
	if s.Schedule != plan.ScheduleConcurrency {
		p.n = s.Rate * s.E2EMs.Mean / 1000
	}
	if s.TTFTMs.N == 0 || s.E2EMs.N == 0 || p.ttftMean <= 0 || p.e2eMean <= 0 || p.n <= 0 {
		return p, false
	}
	if s.ITLMs.N == 0 || p.itlMean <= 0 {
		p.itlMean = math.NaN()
	}
	p.stats[statKey("ttft", "p95")] = s.TTFTMs.P95
	for _, c := range cons {
		if v, ok := statOf(summaryOf(s, c.Metric), c.Stat); ok {
			p.stats[statKey(c.Metric, c.Stat)] = v
		}
	}
	return p, true
}

// fitModel fits qmodel to the points by Nelder–Mead on log-parameters, minimising the
// squared log-ratios of predicted to measured mean TTFT, ITL and E2E. It tries several
// starting slot counts (each load and twice the largest) unless start is given.
func fitModel(pts []point, start *qmodel) (qmodel, float64) {
	var lout, maxN, minT, minI, maxI float64
	minT, minI = math.Inf(1), math.Inf(1)
	for _, p := range pts {
		lout += p.lout / float64(len(pts))
		maxN = math.Max(maxN, p.n)
		minT = math.Min(minT, p.ttftMean)
		if !math.IsNaN(p.itlMean) {
			minI = math.Min(minI, p.itlMean)
			maxI = math.Max(maxI, p.itlMean)
		}
	}
	if math.IsInf(minI, 1) {
		minI, maxI = 1, 1
	}
	var starts []qmodel
	if start != nil {
		starts = []qmodel{*start}
	} else {
		d1 := math.Max((maxI-minI)/math.Max(maxN, 1), minI*1e-3)
		for _, p := range pts {
			starts = append(starts, qmodel{c: p.n, t0: minT * 0.9, tp: minT * 1e-3, d0: minI * 0.9, d1: d1})
		}
		starts = append(starts, qmodel{c: 2 * maxN, t0: minT * 0.9, tp: minT * 1e-3, d0: minI * 0.9, d1: d1})
	}
	best, bestF := qmodel{}, math.Inf(1)
	for _, s := range starts {
		m, f := fitFrom(pts, s)
		if f < bestF {
			best, bestF = m, f
		}
	}
	best.lout = lout
	return best, bestF
}

func toVec(m qmodel) []float64 {
	return []float64{math.Log(m.c), math.Log(m.t0), math.Log(m.tp), math.Log(m.d0), math.Log(m.d1)}
}

func fromVec(x []float64) qmodel {
	return qmodel{c: math.Min(math.Exp(x[0]), maxSlots), t0: math.Exp(x[1]), tp: math.Exp(x[2]),
		d0: math.Exp(x[3]), d1: math.Exp(x[4])}
}

// fitFrom runs one Nelder–Mead minimisation from s.
func fitFrom(pts []point, s qmodel) (qmodel, float64) {
	obj := func(x []float64) float64 { return modelLoss(pts, fromVec(x)) }
	prob := optimize.Problem{Func: obj}
	settings := &optimize.Settings{FuncEvaluations: 3000, Converger: &optimize.FunctionConverge{
		Absolute: 1e-10, Relative: 1e-10, Iterations: 200}}
	x0 := toVec(s)
	res, err := optimize.Minimize(prob, x0, settings, &optimize.NelderMead{})
	if err != nil || res == nil {
		return s, obj(x0)
	}
	return fromVec(res.X), res.F
}

// modelLoss is the sum of squared log-ratios over every point.
func modelLoss(pts []point, m qmodel) float64 {
	var f float64
	sq := func(pred, meas float64) {
		if meas > 0 && pred > 0 && !math.IsNaN(meas) {
			d := math.Log(pred / meas)
			f += d * d
		}
	}
	for _, p := range pts {
		sq(m.ttft(p.n, p.lout), p.ttftMean)
		sq(m.itl(p.n), p.itlMean)
		sq(m.e2e(p.n, p.lout), p.e2eMean)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.MaxFloat64
	}
	return f
}

// calib maps a metric statistic to a·base + wait + z·σ, where base, wait and σ are the
// model's terms for that metric (see terms): a scales the unqueued latency to the
// statistic, and z counts standard deviations of the queueing delay.
type calib struct{ a, z float64 }

// defaultZ is z when the ladder shows no queueing to calibrate it: the 95th percentile
// of a normal delay (departures close to Poisson).
const defaultZ = 1.645

// terms returns the model's base, mean queueing delay and queueing-delay standard
// deviation of a metric at n. A request that finds k = n − b others ahead waits for k
// departures at rate X: mean k/X, standard deviation ≈ √k/X for Poisson departures.
func (m qmodel) terms(metric string, n, lout float64) (base, wait, sigma float64) {
	w := m.wait(n, lout)
	if k := n - m.batch(n); k > 0 {
		sigma = math.Sqrt(k) / m.throughput(n, lout)
	}
	switch metric {
	case "itl":
		return m.itl(n), 0, 0
	case "e2e":
		return m.serviceAt(n, lout), w, sigma
	}
	return m.base(n), w, sigma // ttft, ttfo
}

// calibrate fits a, z ≥ 0 for one metric statistic by relative least squares over the
// points that have it. Without queueing data z defaults to defaultZ.
func calibrate(m qmodel, pts []point, metric, stat string) (calib, bool) {
	var saa, sas, sss, say, ssy float64
	n := 0
	for _, p := range pts {
		y, ok := p.stats[statKey(metric, stat)]
		if !ok || y <= 0 {
			continue
		}
		base, w, sg := m.terms(metric, p.n, p.lout)
		base, sg, r := base/y, sg/y, (y-w)/y // relative residuals of y − wait
		saa += base * base
		sas += base * sg
		sss += sg * sg
		say += base * r
		ssy += sg * r
		n++
	}
	if n == 0 || saa == 0 {
		return calib{}, false
	}
	aOnly := math.Max(say/saa, 0)
	z := defaultZ
	if metric == "itl" {
		z = 0
	}
	det := saa*sss - sas*sas
	if sss > 1e-12 && det > 1e-9*saa*sss {
		a := (say*sss - ssy*sas) / det
		zz := (ssy*saa - say*sas) / det
		switch {
		case a >= 0 && zz >= 0:
			return calib{a, zz}, true
		case zz < 0:
			return calib{aOnly, 0}, true
		}
	}
	return calib{aOnly, z}, true
}

// predict returns the calibrated prediction of a metric statistic at n.
func (m qmodel) predict(c calib, metric string, n, lout float64) float64 {
	base, w, sg := m.terms(metric, n, lout)
	return c.a*base + w + c.z*sg
}
