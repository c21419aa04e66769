package compare

import (
	"math"
	"strings"
	"testing"
)

// Two runs that differ only in TTFT at the top load (20× there, the same ITL values):
// the delta table marks the TTFT difference significant and the ITL one noise, its
// values are the analysis's own, and the verdict names the faster run as the better.
func TestTTFT20xIsSignificantAndEqualITLIsNoise(t *testing.T) {
	slow := fixture{name: "slow", loads: []int{1, 8, 16}, itlMs: 20,
		ttftMs: func(c int) float64 { return map[int]float64{1: 40, 8: 45, 16: 1000}[c] }}.write(t)
	fast := fixture{name: "fast", loads: []int{1, 8, 16}, itlMs: 20, ttftMs: flat(50)}.write(t)
	in := []Input{inputOf(t, "32", slow), inputOf(t, "128", fast)}
	c, err := Compare(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := row(t, c, "default", 16)
	ttft := r.metric(TTFTP50)
	d := ttft.Diffs[0]
	if d.Significance != Significant || !d.Better || d.Ratio > 0.1 || d.High >= 0 {
		t.Errorf("TTFT p50 at 16: ratio %.3f diff %.1f [%.1f, %.1f] %s better=%v, want ≈ 1/20, significant, better",
			d.Ratio, d.Diff, d.Low, d.High, d.Significance, d.Better)
	}
	if want := in[0].Analysis.Segments[0].Steps[2].TTFTMs.P50; math.Abs(ttft.Values[0]-want) > 1e-9 {
		t.Errorf("baseline TTFT p50 at 16 = %.4f, the analysis says %.4f", ttft.Values[0], want)
	}
	if want := in[1].Analysis.Segments[0].Steps[2].OutputTokenThroughput; math.Abs(r.metric(OutputTP).Values[1]-want) > 1e-6*want {
		t.Errorf("output tok/s at 16 = %.4f, the analysis says %.4f", r.metric(OutputTP).Values[1], want)
	}
	if itl := r.metric(ITLP95).Diffs[0]; itl.Significance != Noise || itl.Diff != 0 {
		t.Errorf("ITL p95 at 16: diff %g [%g, %g] %s, want 0 and noise", itl.Diff, itl.Low, itl.High, itl.Significance)
	}
	if g := r.metric(Goodput).Diffs[0]; g.Significance != Significant || !g.Better {
		t.Errorf("goodput at 16: diff %g [%g, %g] %s better=%v, want significant, better (the slow run's requests miss TTFT)",
			g.Diff, g.Low, g.High, g.Significance, g.Better)
	}
	if d1 := row(t, c, "default", 1).metric(ITLP95).Diffs[0]; d1.Significance != Noise {
		t.Errorf("ITL p95 at 1: %s, want noise", d1.Significance)
	}
	v := c.Verdict
	if v.Kind != VerdictBetter || v.Better != "128" || v.Other != "32" || v.Factor < 1.5 ||
		!strings.HasPrefix(v.Sentence, "128 serves at least "+factorText(v.Factor)+"× the users of 32 within the SLA") ||
		!strings.Contains(v.Sentence, "at the same cost") {
		t.Errorf("verdict %q (%s, better %q), want 128 serves at least ≥ 1.5× the users of 32 … at the same cost", v.Sentence, v.Kind, v.Better)
	}
	// The slow run passes 8 and fails 16 (the model may place it inside that bracket).
	if s, f := c.Runs[0], c.Runs[1]; s.Capacity < 8 || s.Capacity >= 16 || s.RangeLow < 8 || s.RangeHigh >= 16 || f.Capacity != 16 || !f.OpenEnded {
		t.Errorf("capacities %g in %g–%g (%s), %g (open %v), want 8..15 and at least 16", s.Capacity, s.RangeLow, s.RangeHigh,
			s.Basis, f.Capacity, f.OpenEnded)
	}
	if len(c.PlanDiff) != 1 || c.PlanDiff[0].Path != "name" {
		t.Errorf("plan diff %+v, want only the name", c.PlanDiff)
	}
}
