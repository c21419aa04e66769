package report

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// segmentNamed is the run's segment (or the mix) called name.
func segmentNamed(t *testing.T, a *analysis.Analysis, name string) analysis.SegmentAnalysis {
	t.Helper()
	for _, seg := range allSegments(a) {
		if seg.Segment == name {
			return seg
		}
	}
	t.Fatalf("no segment %s", name)
	return analysis.SegmentAnalysis{}
}

// svgText renders a plot built with err to SVG text.
func svgText(p *plot.Plot, err error) (string, error) {
	if err != nil {
		return "", err
	}
	b, err := RenderSVG(p, ChartWidth, ChartHeight)
	return string(b), err
}

// A segment analysed from its share of the mix is fitted to the mix's loads, so its
// model predicts the whole server's throughput (the demo's long: X_max 19.7 req/s over
// the segment's own 0.9–3 req/s). The throughput chart scales the line by the
// segment's mean mix share and says so; the mix's own line stays unscaled; the fit
// table marks such a segment's X_max "(mix)".
func TestModelThroughputScaledByMixShare(t *testing.T) {
	in := chartRun(t, "demo")
	long := segmentNamed(t, in.a, "long")
	if !long.FromMix || long.Fit == nil {
		t.Fatalf("demo long: FromMix %v, fit %v; the fixture changed", long.FromMix, long.Fit != nil)
	}
	share := mixShare(long)
	if share < 0.05 || share > 0.2 {
		t.Fatalf("demo long: mean mix share %v, want about 0.11", share)
	}
	model := modelThroughput(in.a, long)
	top := 0.0
	for _, pt := range model {
		top = math.Max(top, pt.Y)
	}
	if want := long.Fit.ServiceRate * share; math.Abs(top-want) > 1e-9*want {
		t.Errorf("long: model throughput tops at %v req/s, want X_max %v × share %v = %v", top, long.Fit.ServiceRate, share, want)
	}
	if top > 4 {
		t.Errorf("long: model throughput %v req/s is the mix's, not the segment's (its steps run at 0.9–3 req/s)", top)
	}
	p, err := ThroughputPlot(in.a, long)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := RenderSVG(p, ChartWidth, ChartHeight)
	if err != nil {
		t.Fatal(err)
	}
	if want := "model throughput (mix × " + shareText(share) + " share)"; !strings.Contains(string(svg), want) {
		t.Errorf("long throughput chart lacks legend %q", want)
	}
	mix := segmentNamed(t, in.a, "mix")
	if mixShare(mix) != 0 {
		t.Errorf("mix: share %v, want 0 (its model is its own)", mixShare(mix))
	}
	mixTop := 0.0
	for _, pt := range modelThroughput(in.a, mix) {
		mixTop = math.Max(mixTop, pt.Y)
	}
	if math.Abs(mixTop-mix.Fit.ServiceRate) > 1e-9*mix.Fit.ServiceRate {
		t.Errorf("mix: model throughput tops at %v, want its X_max %v unscaled", mixTop, mix.Fit.ServiceRate)
	}
	_, rows := fitTable(in.a)
	for _, r := range rows {
		fromMix := segmentNamed(t, in.a, r[0]).FromMix
		if got := strings.HasSuffix(r[2], " (mix)"); got != fromMix {
			t.Errorf("fit table %s: X_max %q, want the (mix) mark %v", r[0], r[2], fromMix)
		}
	}
}

// A step the analysis left out of the capacity (the simulator ran late) is drawn as
// a hollow grey marker under "left out (ran late)", not joined into the lines, and
// the step table's SLA column reads "–" for it instead of ✓/✗.
func TestLeftOutStepMarkedNotJoined(t *testing.T) {
	in := chartRun(t, "demo")
	seg := segmentNamed(t, in.a, "mix")
	late := len(seg.Steps) / 2
	seg.Steps[late].SimulatorLate = true
	lateLoad := seg.Steps[late].Load
	kept, out := evidenceSteps(seg.Steps)
	if len(out) != 1 || out[0].Load != lateLoad || len(kept) != len(seg.Steps)-1 {
		t.Fatalf("evidenceSteps: %d kept, left out %v; want the step at %v alone", len(kept), out, lateLoad)
	}
	for kind, build := range map[string]func() (string, error){
		"ttft":       func() (string, error) { p, err := TTFTPlot(in.a, seg); return svgText(p, err) },
		"itl":        func() (string, error) { p, err := ITLPlot(in.a, seg); return svgText(p, err) },
		"throughput": func() (string, error) { p, err := ThroughputPlot(in.a, seg); return svgText(p, err) },
		"fit":        func() (string, error) { p, err := FitPlot(in.a, seg); return svgText(p, err) },
	} {
		svg, err := build()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if !strings.Contains(svg, leftOutLegend) {
			t.Errorf("%s chart lacks the legend entry %q", kind, leftOutLegend)
		}
	}
	clean := segmentNamed(t, in.a, "short")
	p, err := TTFTPlot(in.a, clean)
	if svg, err := svgText(p, err); err != nil || strings.Contains(svg, leftOutLegend) {
		t.Errorf("short (no late step): legend %q present (err %v)", leftOutLegend, err)
	}
	_, rows := stepTable(in.a, seg)
	for i, r := range rows {
		sla := r[10]
		switch {
		case i == late && sla != "–":
			t.Errorf("step table row %d (left out): SLA %q, want –", i, sla)
		case i != late && sla != "✓" && sla != "✗":
			t.Errorf("step table row %d: SLA %q, want ✓ or ✗", i, sla)
		}
	}
}

// An SLA threshold far above a chart's data (the no-break run: TTFT 10–53 ms under a
// 2,000 ms SLA) is not drawn, which would flatten the data on the axis floor or list a
// line that is off the axis; the title names it off the scale. One within reach is
// drawn and the fit chart's axis reaches it. The fit title flags a poor fit.
func TestSLAOffScaleAndPoorFitTitle(t *testing.T) {
	in := chartRun(t, "demo")
	seg := segmentNamed(t, in.a, "short")
	ttftSLA := ttftP95Threshold(in.a)
	if !(ttftSLA > 0) {
		t.Fatal("demo: no TTFT p95 SLA")
	}
	if slaOffScale(ttftSLA, []float64{ttftSLA / 2}) || !slaOffScale(ttftSLA, []float64{ttftSLA / 6}) {
		t.Errorf("slaOffScale(%v): want false at 2× the data max, true at 6×", ttftSLA)
	}
	// Raise every TTFT constraint to 1000× the data's largest value.
	a := *in.a
	a.Constraints = append(a.Constraints[:0:0], in.a.Constraints...)
	hi := 0.0
	for _, s := range seg.Steps {
		hi = max(hi, shown(s.TTFTMs).P99)
	}
	for i := range a.Constraints {
		if a.Constraints[i].Metric == "ttft" {
			a.Constraints[i].ThresholdMs = 1000 * hi
		}
	}
	for kind, build := range map[string]func() (*plot.Plot, error){
		"ttft": func() (*plot.Plot, error) { return TTFTPlot(&a, seg) },
		"fit":  func() (*plot.Plot, error) { return FitPlot(&a, seg) },
	} {
		p, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if want := "(SLA " + auto(1000*hi) + " ms is off the scale)"; !strings.HasSuffix(p.Title.Text, want) {
			t.Errorf("%s title %q, want the suffix %q", kind, p.Title.Text, want)
		}
		svg, _ := svgText(p, nil)
		if strings.Contains(svg, "SLA TTFT") {
			t.Errorf("%s chart lists an SLA TTFT line off its axis", kind)
		}
		if p.Y.Max > 10*hi {
			t.Errorf("%s: y axis to %v ms over data up to %v ms", kind, p.Y.Max, hi)
		}
	}
	p, err := FitPlot(in.a, seg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Max < ttftSLA {
		t.Errorf("fit chart: y axis ends at %v ms below the SLA line %v ms it lists", p.Y.Max, ttftSLA)
	}
	long := segmentNamed(t, in.a, "long")
	if got, want := fitTitle(long.Segment, long.Fit.R2), "Model fit: long (R² "+num(long.Fit.R2, 3)+", poor fit)"; long.Fit.R2 >= poorFitR2 || got != want {
		t.Errorf("fit title %q, want %q (R² %v)", got, want, long.Fit.R2)
	}
	if got := fitTitle("mix", 0.9); strings.Contains(got, "poor") {
		t.Errorf("fitTitle(0.9) = %q flags a good fit", got)
	}
}

// The Pareto chart's axes run past its largest values, so the labels of the extreme
// points stay inside, and a label at the point of an earlier one moves a line down.
func TestParetoAxesPaddedLabelsApart(t *testing.T) {
	in := chartRun(t, "demo")
	p, err := ParetoPlot(in.a)
	if err != nil {
		t.Fatal(err)
	}
	xHi, yHi := 0.0, 0.0
	for _, seg := range allSegments(in.a) {
		for _, s := range seg.Steps {
			if stepSucceeded(s) {
				xHi, yHi = max(xHi, s.OutputTokenThroughput), max(yHi, s.PerUserOutputTokensPerS)
			}
		}
	}
	if p.X.Max < 1.1*xHi || p.Y.Max < 1.05*yHi {
		t.Errorf("pareto axes end at (%v, %v), want ≥ (%v, %v): room for the labels", p.X.Max, p.Y.Max, 1.1*xHi, 1.05*yHi)
	}
	placed := []paretoLabel{{x: 0.5, y: 0.5}}
	if l := (paretoLabel{x: 0.51, y: 0.5}).freeLine(placed); l != 1 {
		t.Errorf("label at an occupied point: line %d, want 1", l)
	}
	placed = append(placed, paretoLabel{x: 0.51, y: 0.5, line: 1})
	if l := (paretoLabel{x: 0.5, y: 0.49}).freeLine(placed); l != 2 {
		t.Errorf("third label at the point: line %d, want 2", l)
	}
	if l := (paretoLabel{x: 0.9, y: 0.1}).freeLine(placed); l != 0 {
		t.Errorf("label at a free point: line %d, want 0", l)
	}
}

// Charts placed at half width carry a compact PNG (HalfChartWidth × HalfChartHeight
// at the PNG DPI) and chartPairs places it, unless their legend would sit beside the
// plot there; full-width charts have none.
func TestHalfWidthPNG(t *testing.T) {
	lowDPI(t)
	in := chartRun(t, "demo")
	byName := map[string]Chart{}
	for _, c := range buildCharts(in) {
		byName[c.Name] = c
	}
	wantW := int(math.Round(float64(HalfChartWidth/vg.Inch) * float64(pngDPI)))
	wantH := int(math.Round(float64(HalfChartHeight/vg.Inch) * float64(pngDPI)))
	specs := map[string]chartSpec{}
	for _, s := range chartSpecs(in) {
		specs[s.name] = s
	}
	// The throughput chart's seven legend entries, and the mix CDF's legend, do not fit
	// inside their compact data area even at 80% text: they have no compact PNG and
	// the PDF scales the full one.
	for _, name := range []string{"throughput-short", "throughput-mix", "cdf-mix"} {
		p, err := specs[name].build()
		if err != nil {
			t.Fatal(err)
		}
		if c := byName[name]; c.PNGHalf != nil || fitsHalfCanvas(p) || !bytes.Equal(halfPNG(c), c.PNG) {
			t.Errorf("%s: a compact PNG with its legend beside a squeezed plot", name)
		}
	}
	for _, name := range []string{"itl-short", "fit-short", "pareto"} {
		c := byName[name]
		img, err := png.DecodeConfig(bytes.NewReader(c.PNGHalf))
		if err != nil {
			t.Fatalf("%s: half PNG: %v", name, err)
		}
		if img.Width != wantW || img.Height != wantH {
			t.Errorf("%s: half PNG %d×%d px, want %d×%d", name, img.Width, img.Height, wantW, wantH)
		}
		if bytes.Equal(halfPNG(c), c.PNG) || !bytes.Equal(halfPNG(c), c.PNGHalf) {
			t.Errorf("%s: chartPairs' cell does not use the half PNG", name)
		}
	}
	if c := byName["ttft-short"]; c.PNGHalf != nil {
		t.Errorf("ttft-short (full width) has a half PNG")
	}
	if got := halfPNG(Chart{PNG: []byte("full")}); string(got) != "full" {
		t.Errorf("halfPNG without a half rendering = %q, want the full PNG", got)
	}
	if blocks := chartPairs(byName, "fit-short", "itl-short"); len(blocks) != 1 {
		t.Errorf("chartPairs: %d blocks, want one pair", len(blocks))
	}
}

// The TTFT chart's caption says when the model placed the capacity and that a closed
// loop's capacity is rounded down to a whole load (the Ollama run's marker sat at 5
// where the curves cross 500 ms near 5.7); a rate capacity is not rounded.
func TestCapacityCaptionSaysRoundedDown(t *testing.T) {
	c := analysis.Capacity{Method: analysis.MethodInterpolated}
	if got := capacityCaption(c, plan.ScheduleConcurrency); !strings.Contains(got, "rounded down to a whole load") {
		t.Errorf("interpolated concurrency caption %q lacks the rounding", got)
	}
	if got := capacityCaption(c, plan.ScheduleRate); strings.Contains(got, "rounded") {
		t.Errorf("rate caption %q says rounded", got)
	}
	if got := capacityCaption(analysis.Capacity{Method: analysis.MethodMeasured}, plan.ScheduleUsers); strings.Contains(got, "rounded") {
		t.Errorf("measured caption %q says rounded", got)
	}
}

// A segment analysed from the mix's records shows the mix's users in the capacity
// table, marked "(mix)": the demo's long segment does not serve 186 users by itself.
func TestCapacityTableMarksTheMixsUsers(t *testing.T) {
	in := chartRun(t, "demo")
	_, rows := capacityTable(in.a)
	for i, seg := range allSegments(in.a) {
		if got := strings.HasSuffix(rows[i][6], " (mix)"); got != seg.FromMix {
			t.Errorf("segment %s (from mix %v): users cell %q", seg.Segment, seg.FromMix, rows[i][6])
		}
	}
}

// The fit chart draws the steps the model was fitted to (the fit's residual loads) as
// filled points and the others (not steady) as rings named "not fitted": the demo's mix
// fit (R² 0.896 over loads 25–186) sat beside a model 8 s off at 400 users drawn like
// evidence of the fit.
func TestFitChartSeparatesUnfittedSteps(t *testing.T) {
	in := chartRun(t, "demo")
	for _, seg := range allSegments(in.a) {
		if seg.Fit == nil || len(seg.Fit.ResidualLoads) == 0 {
			continue
		}
		kept, _ := evidenceSteps(seg.Steps)
		fitted, other := fittedSteps(seg.Fit, kept)
		if len(fitted) != len(seg.Fit.ResidualLoads) || len(fitted)+len(other) != len(kept) {
			t.Errorf("%s: %d fitted + %d other of %d steps, fit over %d loads", seg.Segment, len(fitted), len(other), len(kept), len(seg.Fit.ResidualLoads))
		}
		p, err := FitPlot(in.a, seg)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := RenderSVG(p, ChartWidth, ChartHeight)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(svg), "not fitted"); got != (len(other) > 0) {
			t.Errorf("%s: legend says not fitted %v, want %v (%d unfitted steps)", seg.Segment, got, len(other) > 0, len(other))
		}
	}
	mix, _ := segmentByName(in.a, "mix")
	if _, other := fittedSteps(mix.Fit, mix.Steps); len(other) == 0 {
		t.Errorf("the demo's mix fit covers every step; the fixture has unfitted ones (loads 192–400)")
	}
}
