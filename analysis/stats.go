package analysis

import "github.com/llmcap/llmcap/sla"

// summarize computes the Summary of xs (ms) by sla.Summarize (percentiles by
// sla.Percentile). It sorts xs in place (sortFloats first: sla.Summarize's own sort
// then finds them in order). An empty xs gives a zero Summary with N = 0. StdDev is the
// population standard deviation (numpy's default).
func summarize(xs []float64) Summary {
	sortFloats(xs)
	return Summary(sla.Summarize(xs))
}

// statOf returns the statistic named stat ("p50", "p90", "p95", "p99", "mean") of s,
// and whether the name is known and s has data.
func statOf(s Summary, stat string) (float64, bool) {
	st, ok := sla.ParseStatistic(stat)
	if !ok {
		return 0, false
	}
	return sla.Summary(s).Value(st)
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
