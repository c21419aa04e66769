package sla

import (
	"math"
	"slices"
	"sort"
)

// Censored observations. A request still in flight when its step ended (unfinished;
// rundir.ErrUnfinished) has waited w ms so far: its E2E — and its TTFT and TTFO when
// no such token came yet — is at least w, a right-censored observation. The judge
// treats each bound on such a metric in three ways (Judge):
//
//   - Certain: the metric's Summary counts every censored value at its lower bound w
//     (Summary.Censored says how many), so each statistic of it is a lower bound of the
//     truth; when that lower bound exceeds the threshold the bound is Broken for
//     certain. A half-hung server whose unfinished requests waited past the threshold
//     breaks it this way.
//   - Estimated: otherwise the statistic is estimated by Kaplan–Meier (Efron's
//     redistribute-to-the-right): each censored request's weight goes to the finished
//     requests that took longer than it had waited, i.e. it is presumed to end like
//     the finished ones that got as far. The KM quantile is the KM distribution's,
//     linearly interpolated between the weighted points as Percentile interpolates
//     between ranks (equal weights give Percentile exactly); the KM mean is the
//     weighted mean. A healthy step cut with C
//     requests in flight after a normal wait is judged on this estimate, as it would be
//     had the requests finished.
//   - Undetermined: censored requests that waited longer than every finished one keep
//     their weight at their lower bound (the tail). When the quantile falls in that
//     tail (or, for the mean, the tail holds more than MeanTailShare of the weight) the
//     statistic is only known to be at least its tail value: above the threshold the
//     bound is Broken; at or below it the verdict could flip either way, and the bound
//     is Undetermined, which fails the step (a step that cannot be shown to meet its
//     SLA does not pass).
//
// ITL is never censored (an unfinished request's ITL is unknown); the error rate counts
// finished requests and the overdue unfinished ones (overdue.go: waited more than
// OverdueFactor × the longest finished request and OverdueFloor), as failed; the other
// unfinished requests have not failed.

// MeanTailShare is the largest share of a censored sample's weight that may lie beyond
// its last finished value for a mean bound to be judged on the estimate; above it the
// mean is Undetermined unless its lower bound breaks the threshold.
const MeanTailShare = 0.05

// observations are one metric's values (ms) of a step: exact (finished requests) and
// censored lower bounds (unfinished ones).
type observations struct {
	exact, censored []float64
}

// kmPoint is a value of the KM distribution with its weight.
type kmPoint struct {
	v, w float64
	tail bool // a censored value beyond the last finished one (a lower bound)
}

// km returns the KM distribution of o in ascending order (weights summing to 1).
func (o observations) km() []kmPoint {
	type ob struct {
		v        float64
		censored bool
	}
	all := make([]ob, 0, len(o.exact)+len(o.censored))
	for _, v := range o.exact {
		all = append(all, ob{v, false})
	}
	for _, v := range o.censored {
		all = append(all, ob{v, true})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v < all[j].v
		}
		return !all[i].censored && all[j].censored // an exact value before a tie censored there
	})
	lastExact := -1
	for i, x := range all {
		if !x.censored {
			lastExact = i
		}
	}
	var out []kmPoint
	surv := 1.0
	for i, x := range all {
		atRisk := float64(len(all) - i)
		if !x.censored {
			w := surv / atRisk
			out = append(out, kmPoint{v: x.v, w: w})
			surv -= w
		}
		if i == lastExact { // what is left stays on the censored values beyond
			k := float64(len(all) - i - 1)
			for _, y := range all[i+1:] {
				out = append(out, kmPoint{v: y.v, w: surv / k, tail: true})
			}
			break
		}
	}
	if lastExact < 0 { // all censored: the whole weight is tail
		for _, y := range all {
			out = append(out, kmPoint{v: y.v, w: 1 / float64(len(all)), tail: true})
		}
	}
	return out
}

// estimate returns the KM estimate of statistic st of o, and whether it is only a lower
// bound (it rests on the tail). A quantile is Percentile's linear interpolation carried
// over to weighted points (weightedQuantile): with equal weights — no censored value,
// or censored values below every finished one, whose weight spreads evenly — it is
// exactly Percentile of the finished values, so a censored request that had waited
// less than any finished one changes no verdict.
func (o observations) estimate(st Statistic) (float64, bool) {
	pts := o.km()
	if len(pts) == 0 {
		return math.NaN(), false
	}
	if q, ok := st.Quantile(); ok {
		if len(o.censored) > 0 && !slices.ContainsFunc(o.censored, func(c float64) bool { return c > slices.Min(o.exact) }) {
			return Percentile(sortedCopy(o.exact), q), false // equal weights: the plain percentile, bit for bit
		}
		return weightedQuantile(pts, q)
	}
	var mean, tail float64
	for _, p := range pts {
		mean += p.w * p.v
		if p.tail {
			tail += p.w
		}
	}
	return mean, tail > MeanTailShare
}

// weightedQuantile is the q-quantile of the weighted points pts (ascending, weights
// summing to 1) by linear interpolation between them, point i at position
// (S_i − w_i) / (1 − w_last), S_i the cumulative weight through i: for n equal weights
// that is i / (n−1), numpy's linear rule. It reports whether the value rests on a tail
// point (a lower bound).
func weightedQuantile(pts []kmPoint, q float64) (float64, bool) {
	n := len(pts)
	last := pts[n-1]
	if n == 1 || q >= 1 {
		return last.v, last.tail
	}
	den := 1 - last.w
	cum, prev := 0.0, 0.0
	for i := range pts {
		pos := cum / den
		cum += pts[i].w
		if i == 0 {
			if q <= 0 {
				return pts[0].v, pts[0].tail
			}
			prev = pos
			continue
		}
		if q <= pos+1e-12 {
			a, b := pts[i-1], pts[i]
			t := 0.0
			if pos > prev {
				t = math.Min(math.Max((q-prev)/(pos-prev), 0), 1)
			}
			v := a.v + (b.v-a.v)*t
			if t >= 0.5 {
				v = b.v - (b.v-a.v)*(1-t)
			}
			return v, a.tail || (b.tail && t > 0)
		}
		prev = pos
	}
	return last.v, last.tail
}

// sortedCopy returns xs sorted ascending, leaving xs as it was.
func sortedCopy(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// judgeCensored checks latency bound b on observations o that hold censored values;
// lower is the statistic of the lower-bound Summary.
func judgeCensored(b Bound, o observations, lower float64) Check {
	c := Check{Bound: b, Censored: len(o.censored)}
	est, tail := o.estimate(b.Stat)
	c.Value = math.Max(est, lower)
	if lower > b.Threshold { // broken for certain, whatever the unfinished do next
		c.Outcome = Broken
		return c
	}
	switch {
	case c.Value > b.Threshold:
		c.Outcome = Broken
	case tail:
		c.Outcome = Undetermined
	default:
		c.Outcome = Met
	}
	return c
}
