package analysis

import (
	"math"

	"gonum.org/v1/gonum/optimize"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
)

// qmodel is a continuous-batching server with c effective slots and load-dependent
// service: with b requests running, each admitted request spends base = t0 + tp·b ms in
// prefill (tp: prefill interference per running sequence) and then (L−1) decode steps of
// ITL = d0 + d1·b ms, so its service time is S(b) = base + (L−1)·ITL.
//
// Closed loop (n users, no think time): b = min(n, c), throughput X = b / S, and by
// Little's law the n − b waiting requests wait W = (n − b) / X on average.
// Open loop (rate λ): the servers hold b = λ·S(b) requests (solved in closed form), the
// queue is M/M/c-like and W = ErlangC(c, b)·S / (c − b); b ≥ c is saturation.
// Users (a closed population of n users thinking Z on average, think > 0): the load is
// n, and the requests in the system N solve N = n · R(N) / (R(N) + Z), i.e.
// N + X(N)·Z = n (usersInSystem); the closed loop at N gives the rest.
type qmodel struct {
	c, t0, tp, d0, d1 float64
	open              bool    // loads are request rates (req/s), not concurrency
	think             float64 // > 0: loads are users thinking this many ms on average
	lout              float64 // mean output tokens per request
	pmean             float64 // mean prompt tokens per request
}

// maxSlots bounds the fitted slot count (a ladder that never saturates leaves it free).
const maxSlots = 1e5

// qstate is the model's steady state at one load.
type qstate struct {
	b       float64 // requests running (batch)
	service float64 // S(b), ms
	wait    float64 // mean queueing delay, ms
	sigma   float64 // standard deviation of the queueing delay, ms
	x       float64 // throughput, req/ms
	ok      bool    // false when an open loop saturates (b ≥ c)
}

func (m qmodel) baseAt(b float64) float64 { return m.t0 + m.tp*b }
func (m qmodel) itlAt(b float64) float64  { return m.d0 + m.d1*b }
func (m qmodel) serviceAt(b, lout float64) float64 {
	return m.baseAt(b) + math.Max(lout-1, 0)*m.itlAt(b)
}

// state solves the model at load x (concurrency, or rate in req/s when open).
func (m qmodel) state(x, lout float64) qstate {
	if m.open {
		return m.openState(x/1000, lout)
	}
	if m.think > 0 {
		x = m.usersInSystem(x, lout)
	}
	b := math.Max(math.Min(x, m.c), 1e-9)
	st := qstate{b: b, service: m.serviceAt(b, lout), ok: true}
	st.x = b / st.service
	if k := x - b; k > 0 {
		st.wait = k / st.x
		st.sigma = math.Sqrt(k) / st.x // k departures at rate X, close to Poisson
	}
	return st
}

// openState solves the open loop at lambda req/ms.
func (m qmodel) openState(lambda, lout float64) qstate {
	l1 := math.Max(lout-1, 0)
	a, bb := m.t0+l1*m.d0, m.tp+l1*m.d1 // S(b) = a + bb·b
	if lambda*bb >= 1 {
		return qstate{b: m.c, service: m.serviceAt(m.c, lout), x: lambda}
	}
	b := lambda * a / (1 - lambda*bb)
	st := qstate{b: math.Max(b, 1e-9), service: a + bb*b, x: lambda, ok: b < m.c}
	if !st.ok {
		st.b, st.service = m.c, m.serviceAt(m.c, lout)
		return st
	}
	pw := erlangC(m.c, b)
	st.wait = pw * st.service / (m.c - b)
	st.sigma = math.Sqrt(pw*(2-pw)) * st.service / (m.c - b)
	return st
}

// erlangC is the probability of waiting in an M/M/c queue with offered load a < c
// Erlangs, interpolated linearly between the integer slot counts around c. Beyond
// erlangMaxSlots slots the queue is treated as waiting-free unless a is within
// 5·√c of c.
func erlangC(c, a float64) float64 {
	lo := math.Floor(c)
	if lo < 1 {
		lo = 1
	}
	f := c - lo
	v := erlangCInt(int(lo), a)
	if f > 0 {
		v = (1-f)*v + f*erlangCInt(int(lo)+1, a)
	}
	return math.Max(0, math.Min(1, v))
}

// erlangMaxSlots bounds the Erlang-B recursion.
const erlangMaxSlots = 4096

func erlangCInt(c int, a float64) float64 {
	if a >= float64(c) {
		return 1
	}
	if c > erlangMaxSlots {
		if a < float64(c)-5*math.Sqrt(float64(c)) {
			return 0
		}
		c = erlangMaxSlots
		a = math.Min(a, float64(c)*0.999)
	}
	b := 1.0 // Erlang B by recursion
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return float64(c) * b / (float64(c) - a*(1-b))
}

func (m qmodel) batch(x, lout float64) float64 { return m.state(x, lout).b }
func (m qmodel) base(x, lout float64) float64  { return m.baseAt(m.state(x, lout).b) }
func (m qmodel) itl(x, lout float64) float64   { return m.itlAt(m.state(x, lout).b) }
func (m qmodel) wait(x, lout float64) float64  { return m.state(x, lout).wait }

// throughput is X in req/ms at load x.
func (m qmodel) throughput(x, lout float64) float64 { return m.state(x, lout).x }

func (m qmodel) ttft(x, lout float64) float64 {
	st := m.state(x, lout)
	return m.baseAt(st.b) + st.wait
}

func (m qmodel) e2e(x, lout float64) float64 {
	st := m.state(x, lout)
	return st.wait + st.service
}

// maxThroughputRps is X_max = c / S(c) in req/s.
func (m qmodel) maxThroughputRps() float64 { return 1000 * m.c / m.serviceAt(m.c, m.lout) }

// point is one step of a ladder as the model sees it.
type point struct {
	load     float64 // concurrency, users, or rate in req/s
	n        float64 // the model's load: concurrency, users, or rate in req/s
	inflight float64 // requests in the system: concurrency, or throughput × E2E (Little)
	thinkMs  float64 // a users step's mean think time (ms); 0 otherwise
	ttftMean float64
	itlMean  float64
	e2eMean  float64
	lout     float64
	e2eCV    float64            // coefficient of variation of E2E (stddev / mean)
	stats    map[string]float64 // "metric:stat" → value, for calibration and capacity
}

// statKey names a metric statistic in point.stats.
func statKey(metric, stat string) string { return metric + ":" + stat }

// pointFrom converts step statistics to a model point; ok is false when the step has no
// usable latency data.
func pointFrom(s *StepStats, cons []plan.Constraint) (point, bool) {
	p := point{load: s.Load, n: s.Load, inflight: s.Load, ttftMean: s.TTFTMs.Mean, itlMean: s.ITLMs.Mean,
		e2eMean: s.E2EMs.Mean, lout: s.OutputTokensMean, stats: map[string]float64{}}
	if s.E2EMs.Mean > 0 {
		p.e2eCV = s.E2EMs.StdDev / s.E2EMs.Mean
	}
	switch s.Schedule {
	case plan.ScheduleConcurrency:
	case plan.ScheduleUsers: // measured in flight; the model solves the population itself
		p.inflight, p.thinkMs = usersInFlight(s), 1000*s.thinkS
	default:
		p.inflight = s.Load * s.E2EMs.Mean / 1000
	}
	if s.TTFTMs.N == 0 || s.E2EMs.N == 0 || p.ttftMean <= 0 || p.e2eMean <= 0 || p.inflight <= 0 {
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
func fitModel(pts []point, start *qmodel, open bool) (qmodel, float64) {
	var lout, maxN, minT, minI, maxI float64
	minT, minI = math.Inf(1), math.Inf(1)
	for _, p := range pts {
		lout += p.lout / float64(len(pts))
		maxN = math.Max(maxN, p.inflight)
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
		think := pts[0].thinkMs // a users ladder's model solves its populations (usersInSystem)
		for _, p := range pts {
			starts = append(starts, qmodel{c: p.inflight, t0: minT * 0.9, tp: minT * 1e-3, d0: minI * 0.9, d1: d1, open: open, think: think})
		}
		starts = append(starts, qmodel{c: 2 * maxN, t0: minT * 0.9, tp: minT * 1e-3, d0: minI * 0.9, d1: d1, open: open, think: think})
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

// usersInSystem is the mean requests in the system N of n users thinking m.think ms on
// average, the root of N + X(N)·Z = n (each user cycles through a request, R, and a
// think, Z, so X = n / (R + Z) and N = X·R). Below the slots, X(N) = N / S(N) with
// S(N) = a + bb·N makes it the quadratic bb·N² + (a + Z − n·bb)·N − n·a = 0; past them,
// X is the saturated X_max and N = n − X_max·Z. This is the mean-value (fluid) solution:
// it ignores the fluctuation of N around its mean, so just below the knee
// n* = c + X_max·Z it under-predicts queueing (the calibrated z·σ term absorbs part).
func (m qmodel) usersInSystem(n, lout float64) float64 {
	if n <= 0 {
		return 0
	}
	l1 := math.Max(lout-1, 0)
	a, bb, z := m.t0+l1*m.d0, m.tp+l1*m.d1, m.think
	var x float64
	if bb <= 1e-12 {
		x = n * a / (a + z)
	} else {
		q := a + z - n*bb
		x = (-q + math.Sqrt(q*q+4*bb*n*a)) / (2 * bb)
	}
	if x <= m.c {
		return x
	}
	return math.Max(n-m.c/m.serviceAt(m.c, lout)*z, m.c)
}

func toVec(m qmodel) []float64 {
	return []float64{math.Log(m.c), math.Log(m.t0), math.Log(m.tp), math.Log(m.d0), math.Log(m.d1)}
}

// fromVec is the model of log-parameters x, of the same kind (open loop, users) as s.
func fromVec(x []float64, s qmodel) qmodel {
	return qmodel{c: math.Min(math.Exp(x[0]), maxSlots), t0: math.Exp(x[1]), tp: math.Exp(x[2]),
		d0: math.Exp(x[3]), d1: math.Exp(x[4]), open: s.open, think: s.think}
}

// fitFrom runs one Nelder–Mead minimisation from s.
func fitFrom(pts []point, s qmodel) (qmodel, float64) {
	obj := func(x []float64) float64 { return modelLoss(pts, fromVec(x, s)) }
	prob := optimize.Problem{Func: obj}
	settings := &optimize.Settings{FuncEvaluations: 3000, Converger: &optimize.FunctionConverge{
		Absolute: 1e-10, Relative: 1e-10, Iterations: 200}}
	x0 := toVec(s)
	res, err := optimize.Minimize(prob, x0, settings, &optimize.NelderMead{})
	if err != nil || res == nil {
		return s, obj(x0)
	}
	return fromVec(res.X, s), res.F
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
		st := m.state(p.n, p.lout) // once for the three (as ttft, itl and e2e solve it)
		sq(m.baseAt(st.b)+st.wait, p.ttftMean)
		sq(m.itlAt(st.b), p.itlMean)
		sq(st.wait+st.service, p.e2eMean)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return math.MaxFloat64
	}
	return f
}

// calib maps a metric statistic to a·base + wait + z·σ, where base, wait and σ are the
// model's terms for that metric (see terms): a scales the unqueued latency to the
// statistic, and z counts standard deviations of the queueing delay. With rounds set
// (a percentile of a closed loop whose service times are near constant) the queueing
// part is the percentile q of the delay of synchronised rounds instead (roundsWait):
// a·base + W_q.
type calib struct {
	a, z   float64
	rounds bool
	q      float64 // the statistic's quantile (rounds only)
}

// defaultZ is z when the ladder shows no queueing to calibrate it: the 95th percentile
// of a normal delay (departures close to Poisson).
const defaultZ = 1.645

// terms returns the model's base, mean queueing delay and queueing-delay standard
// deviation of a metric at load x.
func (m qmodel) terms(metric string, x, lout float64) (base, wait, sigma float64) {
	return m.termsAt(metric, m.state(x, lout))
}

// termsAt is terms from a solved state.
func (m qmodel) termsAt(metric string, st qstate) (base, wait, sigma float64) {
	switch metric {
	case "itl":
		return m.itlAt(st.b), 0, 0
	case "e2e":
		return st.service, st.wait, st.sigma
	}
	return m.baseAt(st.b), st.wait, st.sigma // ttft, ttfo
}

// roundsWait is the q-quantile of the queueing delay in a closed loop of n requests on
// c slots whose service time S is (near) constant. The requests then move in
// synchronised rounds of length S: each round serves c requests, and with
// w = n/c − 1 rounds of backlog a request waits ⌊w⌋·S or ⌈w⌉·S, the longer wait
// for the fraction w − ⌊w⌋ of requests (the mean is w·S, as Little's law requires).
// So just past c slots the p95 jumps from 0 to a whole service time: TTFT p95 ≈ A + S.
func (m qmodel) roundsWait(n, q, lout float64) float64 {
	return m.roundsWaitAt(n, q, m.state(n, lout))
}

// roundsWaitAt is roundsWait from the solved state at n.
func (m qmodel) roundsWaitAt(n, q float64, st qstate) float64 {
	if m.open || n <= m.c {
		return 0
	}
	w := n/m.c - 1
	whole := math.Floor(w + 1e-12)
	if w-whole > 1-q+1e-12 {
		whole++
	}
	return whole * st.service
}

// roundsMaxCV is the largest coefficient of variation of the service time (E2E at the
// steps within the slots) for which a closed loop keeps its synchronised rounds.
const roundsMaxCV = 0.1

// roundsMaxErr is the RMS relative error, beyond the normal delay's, up to which the
// points are taken to agree with synchronised rounds.
const roundsMaxErr = 0.1

// serviceCV is the mean E2E coefficient of variation of the points within m's slots
// (their E2E is the service time); ok is false when every point queued.
func serviceCV(m qmodel, pts []point) (float64, bool) {
	var sum float64
	n := 0
	for _, p := range pts {
		if p.n <= m.c && p.e2eCV > 0 {
			sum += p.e2eCV
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// calibrate fits a metric statistic's calibration by relative least squares over the
// points that have it: a, z ≥ 0 of the normal delay; for a percentile of a closed
// loop without think time also a of the synchronised-rounds delay (roundsWait), kept when the service
// times are near constant (serviceCV ≤ roundsMaxCV) and the points agree with it
// (roundsMaxErr), or when it fits them at least as well. Without queueing data z defaults to defaultZ.
func calibrate(m qmodel, pts []point, metric, stat string) (calib, bool) {
	normal, ok := calibrateNormal(m, pts, metric, stat)
	if !ok || m.open || m.think > 0 || metric == "itl" {
		return normal, ok // users who think a random time arrive at random: no rounds
	}
	st, _ := sla.ParseStatistic(stat)
	q, isQ := st.Quantile()
	if !isQ {
		return normal, ok
	}
	var sbb, sby float64
	queued := false
	for _, p := range pts {
		y, ok := p.stats[statKey(metric, stat)]
		if !ok || y <= 0 {
			continue
		}
		base, _, _ := m.terms(metric, p.n, p.lout)
		w := m.roundsWait(p.n, q, p.lout)
		queued = queued || p.n > m.c
		sbb += (base / y) * (base / y)
		sby += (base / y) * ((y - w) / y)
	}
	if !queued || sbb == 0 {
		return normal, ok
	}
	r := calib{a: math.Max(sby/sbb, 0), rounds: true, q: q}
	lr, ln := calibLoss(m, pts, r, metric, stat), calibLoss(m, pts, normal, metric, stat)
	// Near-constant service times keep their rounds unless the points contradict them
	// (an RMS relative error above roundsMaxErr beyond the normal delay's).
	if cv, ok := serviceCV(m, pts); (ok && cv <= roundsMaxCV && lr <= ln+roundsMaxErr*roundsMaxErr*float64(len(pts))) || lr <= ln {
		return r, true
	}
	return normal, true
}

// calibLoss is the sum of squared relative residuals of a calibration over the points.
func calibLoss(m qmodel, pts []point, c calib, metric, stat string) float64 {
	var f float64
	for _, p := range pts {
		if y, ok := p.stats[statKey(metric, stat)]; ok && y > 0 {
			d := (m.predict(c, metric, p.n, p.lout) - y) / y
			f += d * d
		}
	}
	return f
}

// calibrateNormal fits a, z ≥ 0 of the normal delay for one metric statistic.
func calibrateNormal(m qmodel, pts []point, metric, stat string) (calib, bool) {
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
			return calib{a: a, z: zz}, true
		case zz < 0:
			return calib{a: aOnly}, true
		}
	}
	return calib{a: aOnly, z: z}, true
}

// predict returns the calibrated prediction of a metric statistic at n.
func (m qmodel) predict(c calib, metric string, n, lout float64) float64 {
	st := m.state(n, lout) // solved once for both terms
	base, w, sg := m.termsAt(metric, st)
	if c.rounds {
		return c.a*base + m.roundsWaitAt(n, c.q, st)
	}
	return c.a*base + w + c.z*sg
}
