package rundir

import (
	"math"
	"testing"
)

// TestServerHistogramQuantile: buckets of two label sets add up; the window's histogram
// is the later scrape minus the earlier; quantiles interpolate within a bucket as
// Prometheus's histogram_quantile does.
func TestServerHistogramQuantile(t *testing.T) {
	scrape := func(c1, c5, c10, inf float64) MetricSample {
		f := SimLatenessFamily
		return MetricSample{Values: map[string]float64{
			f + `_bucket{le="0.001",model_name="a"}`: c1 / 2, f + `_bucket{le="0.001",model_name="b"}`: c1 / 2,
			f + `_bucket{le="0.005",model_name="a"}`: c5, f + `_bucket{le="0.01",model_name="a"}`: c10,
			f + `_bucket{le="+Inf",model_name="a"}`: inf, f + `_count{model_name="a"}`: inf,
			"vllm:num_requests_running": 3,
		}}
	}
	before, ok := ServerHistogram(scrape(10, 10, 10, 10), SimLatenessFamily)
	if !ok || before.Total() != 10 {
		t.Fatalf("before %+v ok %v", before, ok)
	}
	after, _ := ServerHistogram(scrape(60, 90, 100, 110), SimLatenessFamily)
	w := after.Since(before) // 50 ≤ 1 ms, 30 in (1, 5], 10 in (5, 10], 10 above 10 ms
	if w.Total() != 100 {
		t.Fatalf("window %+v", w)
	}
	for _, c := range []struct{ q, want float64 }{
		{0.5, 0.001},                 // rank 50: the top of the first bucket
		{0.65, 0.001 + 0.004*15/30},  // rank 65: half-way into (1, 5] ms
		{0.85, 0.005 + 0.005*5/10.0}, // rank 85: half-way into (5, 10] ms
		{0.99, 0.01},                 // rank 99: in +Inf, the highest finite bound
	} {
		if got := w.Quantile(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("q %.2f = %v, want %v", c.q, got, c.want)
		}
	}
	if _, ok := ServerHistogram(MetricSample{Values: map[string]float64{"x": 1}}, SimLatenessFamily); ok {
		t.Error("a scrape without the family read as a histogram")
	}
	if q := (Histogram{}).Quantile(0.5); !math.IsNaN(q) {
		t.Errorf("empty histogram quantile %v", q)
	}
	if r := before.Since(after); r.Total() != before.Total() {
		t.Errorf("a counter reset gives the later scrape itself: %+v", r)
	}
}
