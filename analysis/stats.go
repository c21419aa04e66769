package analysis

import (
	"math"
	"sort"
)

// percentileSorted returns the p-th percentile (p in 0..100) of sorted xs by linear
// interpolation between closest ranks (numpy's default "linear" method). xs must be
// sorted ascending and non-empty.
func percentileSorted(xs []float64, p float64) float64 {
	n := len(xs)
	if n == 1 {
		return xs[0]
	}
	h := float64(n-1) * p / 100
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return xs[n-1]
	}
	if lo < 0 {
		return xs[0]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}

// summarize computes the Summary of xs (ms). It sorts xs in place. An empty xs gives a
// zero Summary with N = 0. StdDev is the population standard deviation (numpy's default).
func summarize(xs []float64) Summary {
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
		P50:    percentileSorted(xs, 50),
		P90:    percentileSorted(xs, 90),
		P95:    percentileSorted(xs, 95),
		P99:    percentileSorted(xs, 99),
		Min:    xs[0],
		Max:    xs[n-1],
		StdDev: math.Sqrt(ss / float64(n)),
	}
}

// statOf returns the statistic named stat ("mean", "p50", "p90", "p95", "p99", "min",
// "max") of s, and whether the name is known and s has data.
func statOf(s Summary, stat string) (float64, bool) {
	if s.N == 0 {
		return 0, false
	}
	switch stat {
	case "mean":
		return s.Mean, true
	case "p50":
		return s.P50, true
	case "p90":
		return s.P90, true
	case "p95":
		return s.P95, true
	case "p99":
		return s.P99, true
	case "min":
		return s.Min, true
	case "max":
		return s.Max, true
	}
	return 0, false
}

// meanOf returns the arithmetic mean of xs (0 for none).
func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// varianceOf returns the sample variance of xs (n−1 denominator; 0 for n < 2).
func varianceOf(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := meanOf(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs)-1)
}
