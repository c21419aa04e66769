package sla

import (
	"math"
	"sort"
)

// Percentile returns the q-quantile (q in [0, 1]; 0.95 is p95) of sorted, which must be
// in ascending order, by numpy's default "linear" method (numpy.percentile(x, 100·q),
// inclusive): the value at rank h = (n−1)·q, interpolated between the closest ranks
// ⌊h⌋ and ⌊h⌋+1 the way numpy does (from below for a fraction < 0.5, from above
// otherwise). [1, 2, 3, 4] at q = 0.95 gives 3.85. It is NaN for an empty slice or a
// NaN q; q outside [0, 1] gives the minimum or maximum. This is the one percentile of
// llmcap: the analysis, the sweep's early stop and live display, and the profiles' knee
// all use it.
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	switch {
	case n == 0 || math.IsNaN(q):
		return math.NaN()
	case q <= 0:
		return sorted[0]
	case q >= 1:
		return sorted[n-1]
	}
	h := float64(n-1) * q
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	a, b, t := sorted[lo], sorted[lo+1], h-float64(lo)
	if t >= 0.5 {
		return b - (b-a)*(1-t) // numpy's _lerp: exact at t = 1
	}
	return a + (b-a)*t
}

// Summary is the summary of one sample of a metric (ms for latencies): its size, mean,
// the SLA percentiles (Percentile), extremes and population standard deviation
// (numpy's default). An empty sample's Summary is zero with N = 0. Its fields match
// analysis.Summary's one for one (that type converts from this one).
type Summary struct {
	N      int
	Mean   float64
	P50    float64
	P90    float64
	P95    float64
	P99    float64
	Min    float64
	Max    float64
	StdDev float64
	// Censored counts the values of the N that are lower bounds (unfinished requests'
	// waits; censored.go): with Censored > 0 every statistic is a lower bound.
	Censored int
}

// Summarize computes the Summary of xs (the percentiles by Percentile). It sorts xs in
// place; pass a copy to keep the original order.
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	sort.Float64s(xs)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return Summary{
		N:      n,
		Mean:   mean,
		P50:    Percentile(xs, 0.50),
		P90:    Percentile(xs, 0.90),
		P95:    Percentile(xs, 0.95),
		P99:    Percentile(xs, 0.99),
		Min:    xs[0],
		Max:    xs[n-1],
		StdDev: math.Sqrt(ss / float64(n)),
	}
}

// Value returns the statistic st of s, and false when s is empty or st is not a
// summary statistic.
func (s Summary) Value(st Statistic) (float64, bool) {
	if s.N == 0 {
		return 0, false
	}
	switch st {
	case P50:
		return s.P50, true
	case P90:
		return s.P90, true
	case P95:
		return s.P95, true
	case P99:
		return s.P99, true
	case Mean:
		return s.Mean, true
	}
	return 0, false
}
