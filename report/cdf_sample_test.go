package report

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Up to cdfExactMax values a CDF line keeps them all; beyond, a reproducible sample of
// cdfExactMax whose CDF is within cdfSampleErr of the exact one.
func TestTTFTSampleBound(t *testing.T) {
	key := cdfKey{"chat", 3}
	exact := newTTFTSample(key)
	for i := range cdfExactMax {
		exact.add(float64(i))
	}
	if exact.sampled() || len(exact.vals) != cdfExactMax {
		t.Fatalf("%d values: sampled=%v kept %d", cdfExactMax, exact.sampled(), len(exact.vals))
	}
	const n = 3 * cdfExactMax
	s, again := newTTFTSample(key), newTTFTSample(key)
	for i := range n {
		v := float64((i * 7919) % n) // 0..n-1 in a scrambled order
		s.add(v)
		again.add(v)
	}
	if !s.sampled() || len(s.vals) != cdfExactMax || s.n != n {
		t.Fatalf("%d values: sampled=%v kept %d of %d", n, s.sampled(), len(s.vals), s.n)
	}
	if !slices.Equal(s.vals, again.vals) {
		t.Error("two samples of the same line and values differ")
	}
	v := slices.Clone(s.vals)
	slices.Sort(v)
	worst := 0.0
	for i, x := range v { // the exact CDF of 0..n-1 at x is (x+1)/n
		worst = math.Max(worst, math.Abs(float64(i+1)/float64(len(v))-(x+1)/n))
	}
	if worst > cdfSampleErr || worst == 0 {
		t.Errorf("sampled CDF is %.4f from the exact one, want ≤ %g", worst, cdfSampleErr)
	}
	t.Logf("sup |F_sample − F| = %.5f", worst)
}

// A CDF line drawn from a sample says so in its legend, and the chart's caption states
// the error bound; an exact one says neither.
func TestCDFPlotSampledLegend(t *testing.T) {
	in := chartRun(t, "demo")
	seg := allSegments(in.a)[0]
	picks := cdfSteps(in.a, seg)
	ttft := map[cdfKey]*ttftSample{}
	for i, s := range picks {
		k := cdfKey{seg.Segment, s.Step}
		ttft[k] = newTTFTSample(k)
		count := 10
		if i == 0 {
			count = cdfExactMax + 1
		}
		for j := range count {
			ttft[k].add(100 + float64(j%1000))
		}
	}
	p, err := cdfPlot(in.a, seg, ttft)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := RenderSVG(p, ChartWidth, ChartHeight)
	if err != nil {
		t.Fatal(err)
	}
	joined := string(svg)
	if !strings.Contains(joined, "(n=200001; sample of 200000, CDF ±0.005)") || strings.Count(joined, "sample of") != 1 {
		t.Errorf("legend %q: want the first line marked as a sample of 200000, only it", joined)
	}
	if c := cdfCaption(in.a, seg, ttft); !strings.Contains(c, "within 0.005 of the exact CDF") {
		t.Errorf("caption %q does not state the bound", c)
	}
	delete(ttft, cdfKey{seg.Segment, picks[0].Step})
	if c := cdfCaption(in.a, seg, ttft); c != "" {
		t.Errorf("exact lines: caption %q, want none", c)
	}
}
