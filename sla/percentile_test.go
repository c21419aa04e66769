package sla

import (
	"math"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if d := got - want; d > tol || d < -tol || math.IsNaN(got) {
		t.Errorf("%s = %.12g, want %.12g (±%g)", name, got, want, tol)
	}
}

// TestPercentileMatchesNumpyLinear: numpy.percentile(x, 100·q) with the default
// "linear" method, worked out by hand: rank h = (n−1)·q, value x[⌊h⌋] + (h−⌊h⌋)·(x[⌊h⌋+1]−x[⌊h⌋]).
func TestPercentileMatchesNumpyLinear(t *testing.T) {
	for _, c := range []struct {
		x       []float64
		q, want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.95, 3.85}, // h = 3·0.95 = 2.85: 3 + 0.85·1
		{[]float64{1, 2, 3, 4}, 0.90, 3.7},  // h = 2.7
		{[]float64{1, 2, 3, 4}, 0.99, 3.97}, // h = 2.97
		{[]float64{1, 2, 3, 4}, 0.50, 2.5},  // h = 1.5: the median of an even count
		{[]float64{15, 20, 35, 40, 50}, 0, 15},
		{[]float64{15, 20, 35, 40, 50}, 0.40, 29}, // h = 1.6: 20 + 0.6·15
		{[]float64{15, 20, 35, 40, 50}, 0.50, 35}, // h = 2: an exact rank
		{[]float64{15, 20, 35, 40, 50}, 0.90, 46}, // h = 3.6: 40 + 0.6·10
		{[]float64{15, 20, 35, 40, 50}, 0.95, 48}, // h = 3.8: 40 + 0.8·10
		{[]float64{15, 20, 35, 40, 50}, 1, 50},
		{[]float64{1, 2, 3, 4, 10}, 0.90, 7.6}, // h = 3.6: 4 + 0.6·6
		{[]float64{1, 2, 3, 4, 10}, 0.95, 8.8}, // h = 3.8: 4 + 0.8·6
		{[]float64{7}, 0.99, 7},
		// 20 values 1..20: h = 19·0.95 = 18.05: 19 + 0.05·1 (nearest rank would say 19).
		{seq(20), 0.95, 19.05},
		// 10 values 1..10: h = 9·0.95 = 8.55: 9 + 0.55 (nearest rank would say 10).
		{seq(10), 0.95, 9.55},
	} {
		near(t, "Percentile", Percentile(c.x, c.q), c.want, 1e-9)
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

func TestPercentileEdges(t *testing.T) {
	if !math.IsNaN(Percentile(nil, 0.5)) || !math.IsNaN(Percentile([]float64{1}, math.NaN())) {
		t.Error("empty sample or NaN q: want NaN")
	}
	x := []float64{2, 4, 8}
	if Percentile(x, -0.5) != 2 || Percentile(x, 1.5) != 8 {
		t.Errorf("q outside [0,1]: %g, %g, want 2, 8", Percentile(x, -0.5), Percentile(x, 1.5))
	}
	// Equal neighbours interpolate to themselves exactly: a p95 on a threshold is exact.
	if got := Percentile([]float64{1, 500, 500}, 0.95); got != 500 {
		t.Errorf("p95 of [1 500 500] = %.17g, want exactly 500", got)
	}
	prev := math.Inf(-1)
	for q := 0.0; q <= 1; q += 0.01 {
		v := Percentile([]float64{3, 5, 11, 12, 40}, q)
		if v < prev || v < 3 || v > 40 {
			t.Fatalf("Percentile not monotone within [min, max] at q=%g: %g after %g", q, v, prev)
		}
		prev = v
	}
}

// TestSummarize: [15 20 35 40 50]: mean 32, deviations −17 −12 3 8 18, squares sum
// 830, population variance 166, stddev √166.
func TestSummarize(t *testing.T) {
	x := []float64{50, 15, 40, 20, 35}
	s := Summarize(x)
	if s.N != 5 || s.Min != 15 || s.Max != 50 || x[0] != 15 {
		t.Errorf("summary %+v (input sorted in place: %v)", s, x)
	}
	near(t, "mean", s.Mean, 32, 1e-12)
	near(t, "stddev", s.StdDev, math.Sqrt(166), 1e-12)
	near(t, "p50", s.P50, 35, 1e-12)
	near(t, "p90", s.P90, 46, 1e-9)
	near(t, "p95", s.P95, 48, 1e-9)
	near(t, "p99", s.P99, 49.6, 1e-9) // h = 3.96: 40 + 0.96·10
	if one := Summarize([]float64{7}); one.P99 != 7 || one.StdDev != 0 || one.N != 1 {
		t.Errorf("single value summary %+v", one)
	}
	if z := Summarize(nil); z != (Summary{}) {
		t.Errorf("empty summary %+v, want zero", z)
	}
	for st, want := range map[Statistic]float64{P50: 35, Mean: 32} {
		if v, ok := s.Value(st); !ok || v != want {
			t.Errorf("Value(%s) = %g, %v; want %g", st, v, ok, want)
		}
	}
	if _, ok := (Summary{}).Value(P50); ok {
		t.Error("an empty summary has a p50")
	}
}
