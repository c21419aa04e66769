package analysis

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sla"
)

// Bootstrap bounds: bootReps resamples, each resampling at most bootMaxDraws values per
// metric and step (an m-out-of-n bootstrap whose deviations are rescaled by √(m/n)).
// The count is fixed, not a wall-time budget, so the same run directory always gives the
// same analysis, on any machine and under any load.
const (
	bootReps     = 100
	bootMaxDraws = 1000
)

// bootResult are the bootstrap distributions of one segment.
type bootResult struct {
	reps   int
	slots  []float64
	caps   []float64
	curves [][]float64 // [grid point][rep] TTFT p95
}

// bootstrapSegment resamples each step's requests, refits the model and recomputes the
// capacity, bootReps times, deterministically from seed. The draws are made in one
// sequence from seed; the summaries and fits of the resamples run on every CPU and are
// merged in resample order, so the result does not depend on the CPU count.
func bootstrapSegment(steps []StepStats, smp []*stepSamples, cons []plan.Constraint, spec plan.SLA,
	sf segFit, rules capRules, seed uint64) bootResult {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	loads := curveLoads(steps)
	reps := make([]bootRep, bootReps)
	start := sf.eval.m
	pipeline(bootReps, func(int) []stepDraw {
		d := make([]stepDraw, len(steps))
		for i := range steps {
			d[i].ttft, d[i].ttfo = draw(rng, smp[i].ttft), draw(rng, smp[i].ttfo)
			d[i].itl, d[i].e2e = draw(rng, smp[i].itl), draw(rng, smp[i].e2e)
		}
		return d
	}, func(k int, d []stepDraw) {
		reps[k] = bootOne(steps, smp, d, cons, spec, rules, &start, loads)
	})
	out := bootResult{curves: make([][]float64, len(loads))}
	for _, r := range reps {
		if !r.ok {
			continue
		}
		out.reps++
		out.slots = append(out.slots, r.slots)
		if r.hasCap {
			out.caps = append(out.caps, r.capacity)
		}
		for j, l := range r.curve {
			if r.hasCurve[j] {
				out.curves[j] = append(out.curves[j], l)
			}
		}
	}
	return out
}

// stepDraw is one resample of one step: the values drawn per metric (nil when the step
// has none).
type stepDraw struct{ ttft, ttfo, itl, e2e []float64 }

// bootRep is the outcome of one resample: ok when its fit succeeded; its slot count
// (+Inf when not located), its capacity (when it has one) and its TTFT p95 at each
// curve load (where defined).
type bootRep struct {
	ok, hasCap bool
	slots      float64
	capacity   float64
	curve      []float64
	hasCurve   []bool
}

// bootOne summarises one resample's draws, refits the model from start and recomputes
// the capacity and the curve at loads.
func bootOne(steps []StepStats, smp []*stepSamples, d []stepDraw, cons []plan.Constraint, spec plan.SLA,
	rules capRules, start *qmodel, loads []float64) bootRep {
	rep := make([]StepStats, len(steps))
	for i := range steps {
		rep[i] = steps[i]
		rep[i].TTFTMs = resampled(d[i].ttft, len(smp[i].ttft), steps[i].TTFTMs)
		rep[i].TTFOMs = resampled(d[i].ttfo, len(smp[i].ttfo), steps[i].TTFOMs)
		rep[i].ITLMs = resampled(d[i].itl, len(smp[i].itl), steps[i].ITLMs)
		rep[i].E2EMs = resampled(d[i].e2e, len(smp[i].e2e), steps[i].E2EMs)
	}
	rf := fitSteps(rep, cons, start)
	if !rf.ok {
		return bootRep{}
	}
	r := bootRep{ok: true, curve: make([]float64, len(loads)), hasCurve: make([]bool, len(loads))}
	r.slots = rf.eval.m.c // +Inf when this resample's fit did not locate the slots
	if r.slots >= maxSlots/2 || !slotsObserved(rep, r.slots) {
		r.slots = math.Inf(1)
	}
	// A resample whose first step fails has no capacity (not a capacity of 0): it is
	// left out of the noise band.
	if cr := capacityOf(rep, spec, rf, rules); cr.method != MethodBelowFirstStep && cr.method != MethodNoData {
		r.hasCap, r.capacity = true, cr.value
	}
	for j, l := range loads {
		if cp, ok := curvePoint(rf, l); ok {
			r.curve[j], r.hasCurve[j] = cp.TTFTp95Ms, true
		}
	}
	return r
}

// draw draws m = min(n, bootMaxDraws) of the n values xs with replacement (nil when n
// is 0).
func draw(rng *rand.Rand, xs []float64) []float64 {
	n := len(xs)
	if n == 0 {
		return nil
	}
	d := make([]float64, min(n, bootMaxDraws))
	for i := range d {
		d[i] = xs[rng.IntN(n)]
	}
	return d
}

// resampled is the summary of d, values drawn from n (draw), with every statistic's
// deviation from the point estimate scaled by √(m/n) (an m-out-of-n bootstrap); point
// itself when nothing was drawn. d is sorted in place.
func resampled(d []float64, n int, point Summary) Summary {
	if n == 0 {
		return point
	}
	m := len(d)
	s := summarize(d)
	if m == n {
		return s
	}
	k := math.Sqrt(float64(m) / float64(n))
	sc := func(rep, pt float64) float64 { return pt + (rep-pt)*k }
	return Summary{N: point.N, Mean: sc(s.Mean, point.Mean), P50: sc(s.P50, point.P50),
		P90: sc(s.P90, point.P90), P95: sc(s.P95, point.P95), P99: sc(s.P99, point.P99),
		Min: point.Min, Max: point.Max, StdDev: point.StdDev}
}

// ci95 returns the 2.5th and 97.5th percentiles of xs (NaN, NaN when empty).
func ci95(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	return sla.Percentile(c, 0.025), sla.Percentile(c, 0.975)
}

// ciAround returns the 95% percentile interval of the bootstrap values xs widened to
// contain the point estimate (a skewed or biased bootstrap distribution can otherwise
// exclude it); (point, point) when xs is empty.
func ciAround(xs []float64, point float64) (float64, float64) {
	lo, hi := ci95(xs)
	if math.IsNaN(lo) {
		return point, point
	}
	return math.Min(lo, point), math.Max(hi, point)
}

// slotsBand is the 95% band of the bootstrap's slot counts around point, over the
// resamples that located the slots (as buildFit identifies them): a resample whose fit
// saturated no step has no slot count (+Inf, or the maxSlots sentinel). unlocated is the share of such resamples;
// above 2.5% the band has no upper bound at 95%, and the band shown is that of the
// resamples that located them.
func slotsBand(xs []float64, point float64) (lo, hi, unlocated float64) {
	kept := make([]float64, 0, len(xs))
	for _, x := range xs {
		if x < maxSlots/2 {
			kept = append(kept, x)
		}
	}
	if len(xs) > 0 {
		unlocated = float64(len(xs)-len(kept)) / float64(len(xs))
	}
	lo, hi = ciAround(kept, point)
	return lo, hi, unlocated
}
