package compare

import (
	"encoding/json"
	"strings"
	"testing"
)

// A run compared with itself: every difference is 0 and noise, and the verdict says
// there is no ratio (both capacities are lower bounds); the same inputs give the same comparison byte for byte.
func TestARunAgainstItselfIsAllNoise(t *testing.T) {
	dir := fixture{name: "self", loads: []int{1, 8, 16}, ttftMs: func(c int) float64 { return 40 + 10*float64(c) }, itlMs: 20}.write(t)
	in := []Input{inputOf(t, "a", dir), inputOf(t, "b", dir)}
	c, err := Compare(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Deltas) != 3 { // the one segment at 1, 8 and 16 (no mix for one segment)
		t.Fatalf("delta rows: %s, want default at 1, 8, 16", rowsText(c))
	}
	for _, d := range c.Deltas {
		for _, md := range d.Metrics {
			df := md.Diffs[0]
			if df.Significance != Noise || df.Diff != 0 || df.Ratio != 1 || df.Low > 0 || df.High < 0 {
				t.Errorf("%s@%g %s: diff %g ratio %g [%g, %g] %s, want 0, ratio 1, noise", d.Segment, d.Load, md.Metric,
					df.Diff, df.Ratio, df.Low, df.High, df.Significance)
			}
		}
	}
	if ttft := row(t, c, "default", 16).metric(TTFTP95).Diffs[0]; ttft.High-ttft.Low <= 0 {
		t.Errorf("TTFT p95 interval at 16 is [%g, %g]: the resamples should spread", ttft.Low, ttft.High)
	}
	// Every load of the ladder met the SLA: the capacities are lower bounds, so even
	// equal ones are not called the same (no ratio; extend the ladders).
	if c.Verdict.Kind != VerdictBothLowerBounds || c.Verdict.Factor != 0 || !strings.Contains(c.Verdict.Sentence, "No ratio") {
		t.Errorf("verdict %q (%s), want no ratio between two lower bounds", c.Verdict.Sentence, c.Verdict.Kind)
	}
	if len(c.PlanDiff) != 0 {
		t.Errorf("plan diff of a run with itself: %+v", c.PlanDiff)
	}
	again, err := Compare(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := json.Marshal(c)
	b2, _ := json.Marshal(again)
	if string(b1) != string(b2) {
		t.Error("two comparisons of the same runs differ")
	}
}
