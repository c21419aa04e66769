package sla

import (
	"math"
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
//     the finished ones that got as far. The KM quantile is the smallest finished value
//     whose estimated CDF reaches q (the inverted CDF, not the interpolated
//     percentile); the KM mean is the weighted mean. A healthy step cut with C
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
// finished requests only, as the unfinished ones have not failed.

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
// bound (it falls in the tail).
func (o observations) estimate(st Statistic) (float64, bool) {
	pts := o.km()
	if len(pts) == 0 {
		return math.NaN(), false
	}
	if q, ok := st.Quantile(); ok {
		cum := 0.0
		for _, p := range pts {
			cum += p.w
			if cum >= q-1e-12 {
				return p.v, p.tail
			}
		}
		last := pts[len(pts)-1]
		return last.v, last.tail
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

// judgeCensored checks latency bound b on observations o that hold censored values;
// lower is the statistic of the lower-bound Summary.
func judgeCensored(b Bound, o observations, lower float64) Check {
	c := Check{Bound: b, Censored: len(o.censored)}
	if lower > b.Threshold {
		c.Outcome, c.Value = Broken, lower
		return c
	}
	est, tail := o.estimate(b.Stat)
	c.Value = math.Max(est, lower)
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
