package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/rundir"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// TTFTPlot is TTFT p50/p95/p99 (ms) vs load for one segment, with each TTFT SLA
// threshold as a dashed line and the capacity point marked. The y axis is log10 when
// the values span more than 20×.
func TTFTPlot(a *analysis.Analysis, seg analysis.SegmentAnalysis) (*plot.Plot, error) {
	p := newPlot("TTFT vs load: "+seg.Segment, loadLabel(a), "TTFT (ms)")
	kept, out := evidenceSteps(seg.Steps)
	var ys []float64
	for _, s := range seg.Steps {
		ttft := shown(s.TTFTMs)
		ys = append(ys, ttft.P50, ttft.P95, ttft.P99)
	}
	logY := useLogY(p, ys, 20)
	stats := []struct {
		name string
		get  func(analysis.Summary) float64
	}{
		{"p50", func(s analysis.Summary) float64 { return s.P50 }},
		{"p95", func(s analysis.Summary) float64 { return s.P95 }},
		{"p99", func(s analysis.Summary) float64 { return s.P99 }},
	}
	n := 0
	var latePts plotter.XYs
	for i, st := range stats {
		pts := xys(kept, logY, func(s analysis.StepStats) (float64, float64) { return s.Load, st.get(shown(s.TTFTMs)) })
		if err := addCurve(p, "TTFT "+st.name, pts, i, logY); err != nil {
			return nil, err
		}
		late := xys(out, logY, func(s analysis.StepStats) (float64, float64) { return s.Load, st.get(shown(s.TTFTMs)) })
		latePts = append(latePts, late...)
		n += len(pts) + len(late)
	}
	if n == 0 {
		return nil, noData("no successful request of segment %s has a TTFT", seg.Segment)
	}
	if err := addLeftOut(p, latePts); err != nil {
		return nil, err
	}
	var model plotter.XYs
	if modelled(seg.Capacity.Method) {
		for _, c := range shownCurve(a, seg) {
			if finite(c.Load) && finite(c.TTFTp95Ms) && (!logY || c.TTFTp95Ms > 0) {
				model = append(model, plotter.XY{X: c.Load, Y: c.TTFTp95Ms})
			}
		}
		for _, pt := range model {
			ys = append(ys, pt.Y)
		}
	}
	offScale := slaLines(p, a, "ttft", "", ys)
	p.Title.Text += offScaleNote(offScale)
	threshold := math.NaN()
	for _, c := range a.Constraints {
		if c.Metric == "ttft" && c.ThresholdMs > 0 && !slaOffScale(c.ThresholdMs, ys) {
			threshold = c.ThresholdMs
			break
		}
	}
	if err := addLine(p, "model TTFT p95", model, 4); err != nil {
		return nil, err
	}
	if err := markCapacity(p, a, seg, threshold, ys, logY); err != nil {
		return nil, err
	}
	loadAxis(p, a, seg)
	return p, nil
}

// markCapacity draws the capacity load as a vertical line over the data's y range.
func markCapacity(p *plot.Plot, a *analysis.Analysis, seg analysis.SegmentAnalysis, yMark float64, ys []float64, logY bool) error {
	x := capacityLoad(a, seg.Capacity)
	if !finite(x) {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range append(ys, yMark) {
		if finite(y) && (!logY || y > 0) {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	if !finite(lo) {
		return nil
	}
	if !logY {
		lo = math.Min(lo, 0)
	}
	if err := shadeCapacityRange(p, a, seg.Capacity, lo, hi); err != nil {
		return err
	}
	return vline(p, capacityLegend(a, seg.Capacity), x, lo, hi, capacityCol)
}

// ITLPlot is ITL p50/p95 (ms) vs load for one segment, with the model's ITL curve
// (dashed) and any ITL SLA threshold.
func ITLPlot(a *analysis.Analysis, seg analysis.SegmentAnalysis) (*plot.Plot, error) {
	p := newPlot("ITL vs load: "+seg.Segment, loadLabel(a), "ITL (ms per token)")
	kept, out := evidenceSteps(seg.Steps)
	p50 := xys(kept, false, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.ITLMs).P50 })
	p95 := xys(kept, false, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.ITLMs).P95 })
	late := slices.Concat(xys(out, false, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.ITLMs).P50 }),
		xys(out, false, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.ITLMs).P95 }))
	if len(p50)+len(p95)+len(late) == 0 {
		return nil, noData("no successful request of segment %s produced two or more output tokens, so ITL is undefined", seg.Segment)
	}
	if err := addSeries(p, "ITL p50", p50, 0, 0); err != nil {
		return nil, err
	}
	if err := addSeries(p, "ITL p95", p95, 1, 0); err != nil {
		return nil, err
	}
	if err := addLeftOut(p, late); err != nil {
		return nil, err
	}
	if seg.Fit != nil {
		var model plotter.XYs
		for _, c := range shownCurve(a, seg) {
			if finite(c.Load) && finite(c.ITLp50Ms) {
				model = append(model, plotter.XY{X: c.Load, Y: c.ITLp50Ms})
			}
		}
		if err := addLine(p, "model ITL p50", model, 2); err != nil {
			return nil, err
		}
	}
	for _, c := range a.Constraints {
		if c.Metric == "itl" && c.ThresholdMs > 0 {
			hline(p, "SLA "+constraintText(c), c.ThresholdMs, slaRed)
			// The SLA line stays in view, with room above it for the legend.
			p.Y.Max = 1.45 * max(p.Y.Max, c.ThresholdMs)
		}
	}
	p.Y.Min = 0
	loadAxis(p, a, seg)
	return p, nil
}

// addLine adds a dashed model line (no markers) in palette colour i.
func addLine(p *plot.Plot, name string, pts plotter.XYs, i int) error {
	return addPlainLine(p, name, pts, i, []vg.Length{vg.Points(6), vg.Points(3)})
}

// addPlainLine adds a line without markers in palette colour i (dashes nil = solid).
func addPlainLine(p *plot.Plot, name string, pts plotter.XYs, i int, dashes []vg.Length) error {
	if len(pts) < 2 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("line %s: %w", name, err)
	}
	l.Color, l.Width, l.Dashes = plotutil.Color(i), vg.Points(1.4), dashes
	p.Add(dataLine{l})
	p.Legend.Add(name, l)
	return nil
}

// Legend names of the throughput chart's two throughputs (see throughputCaption).
const (
	throughputWindowName = "throughput: completed / window"
	throughputSteadyName = "throughput: steady state (N / R)"
)

// throughputCaption is the one-line explanation of the throughput chart's two
// throughput lines for a ladder of schedule sched, for the page under the chart:
// "completed / window" counts completions over the step's whole span (drain
// included); the steady state is Little's law N / R for concurrency, the users' send
// rate for a users ladder, the offered (or achieved) rate for an open loop.
func throughputCaption(sched string) string {
	steady := "\"steady state\" is Little's law, requests in flight (N) ÷ mean E2E latency (R), the rate sustained under the step's full load"
	switch sched {
	case plan.ScheduleUsers:
		steady = "\"steady state\" is the rate the users sent requests in the window (a closed population sends as fast as it is answered)"
	case plan.ScheduleRate, plan.ScheduleTrace:
		steady = "\"steady state\" is the offered rate, or what the server completed when it could not keep up"
	}
	return "Two throughputs: \"completed / window\" counts the requests a step completed over its whole span, including the drain " +
		"at its end when fewer are in flight, so it reads lower; " + steady + ". Goodput counts only requests within the SLA; " +
		"the triangle is the report's throughput at capacity."
}

// ThroughputPlot is request throughput (two ways: over the step's window, and steady
// state by Little's law) and goodput (req/s) vs load for one segment, with the model's
// predicted throughput, the capacity line and the report's throughput at capacity.
// Goodput is joined only across the steps that met the SLA: past the first failing
// step its points stand alone, since a line to a failing step's goodput misreads the
// loads between them.
func ThroughputPlot(a *analysis.Analysis, seg analysis.SegmentAnalysis) (*plot.Plot, error) {
	p := newPlot("Throughput and goodput: "+seg.Segment, loadLabel(a), "requests/s")
	kept, out := evidenceSteps(seg.Steps)
	tput := xys(kept, false, func(s analysis.StepStats) (float64, float64) { return s.Load, s.RequestThroughput })
	steady := xys(kept, true, func(s analysis.StepStats) (float64, float64) { return s.Load, s.LittleThroughputRps })
	late := slices.Concat(xys(out, false, func(s analysis.StepStats) (float64, float64) { return s.Load, s.RequestThroughput }),
		xys(out, true, func(s analysis.StepStats) (float64, float64) { return s.Load, s.LittleThroughputRps }))
	goodJoined, goodAlone := goodputSeries(kept)
	if err := addSeries(p, throughputWindowName, tput, 0, 0); err != nil {
		return nil, err
	}
	if err := addSeries(p, throughputSteadyName, steady, 4, 0); err != nil {
		return nil, err
	}
	if err := addGoodput(p, goodJoined, goodAlone); err != nil {
		return nil, err
	}
	if err := addLeftOut(p, late); err != nil {
		return nil, err
	}
	var ys []float64
	for _, pt := range slices.Concat(tput, goodJoined, goodAlone, steady, late) {
		ys = append(ys, pt.Y)
	}
	if seg.Fit != nil {
		if err := addLine(p, modelThroughputName(mixShare(seg)), modelThroughput(a, seg), 1); err != nil {
			return nil, err
		}
	}
	ys = append(ys, seg.Capacity.ThroughputAtCapacity)
	if err := markCapacity(p, a, seg, math.NaN(), ys, false); err != nil {
		return nil, err
	}
	if err := markThroughputAtCapacity(p, a, seg.Capacity); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	loadAxis(p, a, seg)
	return p, nil
}

// modelThroughput is the model's predicted throughput (req/s) over the shown load
// range: for a segment drawn from the mix, whose model was fitted to the mix's loads
// and predicts the mix's throughput, scaled by the segment's share (mixShare).
func modelThroughput(a *analysis.Analysis, seg analysis.SegmentAnalysis) plotter.XYs {
	scale := 1.0
	if share := mixShare(seg); share > 0 {
		scale = share
	}
	var model plotter.XYs
	for _, c := range shownCurve(a, seg) {
		if finite(c.Load) && finite(c.Throughput) {
			model = append(model, plotter.XY{X: c.Load, Y: scale * c.Throughput})
		}
	}
	return model
}

// goodputSeries splits a segment's goodput points: joined, those of the leading
// steps that met the SLA; alone, the rest.
func goodputSeries(steps []analysis.StepStats) (joined, alone plotter.XYs) {
	passing := true
	for _, s := range steps {
		if !finite(s.Load) || !finite(s.Goodput) {
			continue
		}
		passing = passing && s.MeetsSLA
		pt := plotter.XY{X: s.Load, Y: s.Goodput}
		if passing {
			joined = append(joined, pt)
		} else {
			alone = append(alone, pt)
		}
	}
	return joined, alone
}

// addGoodput draws goodput in palette colour 2: a line with markers over joined,
// markers only over alone, under one legend entry.
func addGoodput(p *plot.Plot, joined, alone plotter.XYs) error {
	const name = "goodput (within SLA)"
	if len(joined) == 0 && len(alone) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(slices.Concat(joined, alone))
	if err != nil {
		return fmt.Errorf("series %s: %w", name, err)
	}
	s.Color, s.Shape = plotutil.Color(2), plotutil.Shape(2)
	p.Add(s)
	if len(joined) < 2 {
		p.Legend.Add(name, s)
		return nil
	}
	l, err := plotter.NewLine(joined)
	if err != nil {
		return fmt.Errorf("series %s: %w", name, err)
	}
	l.Color, l.Width = plotutil.Color(2), vg.Points(1.5)
	p.Add(dataLine{l})
	p.Legend.Add(name, l, s)
	return nil
}

// FitPlot is the fitted TTFT p95 curve with its confidence band over the measured
// TTFT p95 points, with the R² in the title.
func FitPlot(a *analysis.Analysis, seg analysis.SegmentAnalysis) (*plot.Plot, error) {
	if seg.Fit == nil {
		return nil, fmt.Errorf("segment %s: no model fit", seg.Segment)
	}
	fit := seg.Fit
	if fit.Underdetermined {
		return nil, noData("the model was fitted from %d steps, too few to identify it", fit.FitSteps)
	}
	p := newPlot(fitTitle(seg.Segment, fit.R2), loadLabel(a), "TTFT p95 (ms)")
	var curve, upper, lower plotter.XYs
	for _, c := range shownCurve(a, seg) {
		if !finite(c.Load) || !finite(c.TTFTp95Ms) {
			continue
		}
		curve = append(curve, plotter.XY{X: c.Load, Y: c.TTFTp95Ms})
		if finite(c.TTFTLowMs) && finite(c.TTFTHigh) {
			lower = append(lower, plotter.XY{X: c.Load, Y: c.TTFTLowMs})
			upper = append(upper, plotter.XY{X: c.Load, Y: c.TTFTHigh})
		}
	}
	if len(upper) >= 2 {
		ring := append(append(plotter.XYs{}, upper...), reversed(lower)...)
		band, err := plotter.NewPolygon(ring)
		if err != nil {
			return nil, fmt.Errorf("fit band: %w", err)
		}
		band.Color, band.LineStyle.Width = bandCol, 0
		p.Add(band)
		p.Legend.Add("95% band", band)
	}
	if err := addLine(p, "model TTFT p95", curve, 4); err != nil {
		return nil, err
	}
	kept, out := evidenceSteps(seg.Steps)
	fitted, unfitted := fittedSteps(seg.Fit, kept)
	meas := xys(fitted, false, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.TTFTMs).P95 })
	other := xys(unfitted, false, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.TTFTMs).P95 })
	late := xys(out, false, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.TTFTMs).P95 })
	name := "measured TTFT p95"
	if len(other) > 0 {
		name = "measured TTFT p95, fitted"
	}
	for _, m := range []struct {
		pts   plotter.XYs
		name  string
		shape draw.GlyphDrawer
	}{{meas, name, draw.CircleGlyph{}}, {other, "measured, not fitted (not steady)", draw.RingGlyph{}}} {
		if len(m.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(m.pts)
		if err != nil {
			return nil, fmt.Errorf("fit measured: %w", err)
		}
		sc.Color, sc.Shape, sc.Radius = plotutil.Color(1), m.shape, vg.Points(3)
		p.Add(sc)
		p.Legend.Add(m.name, sc)
	}
	meas = append(meas, other...)
	if err := addLeftOut(p, late); err != nil {
		return nil, err
	}
	var ys []float64
	for _, pt := range slices.Concat(curve, upper, meas, late) {
		ys = append(ys, pt.Y)
	}
	offScale := slaLines(p, a, "ttft", "p95", ys)
	p.Title.Text += offScaleNote(offScale)
	// An SLA line in the legend is drawn on the axis: extend it to the line.
	for _, c := range a.Constraints {
		if c.Metric == "ttft" && c.Stat == "p95" && c.ThresholdMs > 0 && !slices.Contains(offScale, c.ThresholdMs) {
			p.Y.Max = max(p.Y.Max, 1.1*c.ThresholdMs)
		}
	}
	p.Y.Min = 0
	loadAxis(p, a, seg)
	return p, nil
}

// fitTitle is the fit chart's title: the segment and the fit's R² (3 decimals),
// flagged "poor fit" below poorFitR2.
func fitTitle(segment string, r2 float64) string {
	r := "R² " + num(r2, 3)
	if q := fitQualityText(r2); q != "" {
		r += ", " + q
	}
	return fmt.Sprintf("Model fit: %s (%s)", segment, r)
}

// fittedSteps splits steps into those the model was fitted to (their loads are the
// fit's ResidualLoads: the steady steps, when at least two were) and the others, which
// the fit's R² and residuals do not cover; all are fitted without a fit.
func fittedSteps(f *analysis.Fit, steps []analysis.StepStats) (fitted, other []analysis.StepStats) {
	if f == nil || len(f.ResidualLoads) == 0 {
		return steps, nil
	}
	for _, s := range steps {
		if slices.Contains(f.ResidualLoads, s.Load) {
			fitted = append(fitted, s)
		} else {
			other = append(other, s)
		}
	}
	return fitted, other
}

// shownCurve is the part of a segment's model curve within the load axis that
// loadAxis sets (up to 5% past the largest measured load or the capacity), so the
// model's extrapolation does not stretch the y axis beyond the data.
func shownCurve(a *analysis.Analysis, seg analysis.SegmentAnalysis) []analysis.CurvePoint {
	if seg.Fit == nil {
		return nil
	}
	hi := math.Inf(-1)
	for _, s := range seg.Steps {
		if finite(s.Load) {
			hi = math.Max(hi, s.Load)
		}
	}
	if c := capacityLoad(a, seg.Capacity); finite(c) {
		hi = math.Max(hi, c)
	}
	if !finite(hi) {
		return seg.Fit.Curve
	}
	var out []analysis.CurvePoint
	for _, c := range seg.Fit.Curve {
		if c.Load <= 1.05*hi {
			out = append(out, c)
		}
	}
	return out
}

// reversed returns a reversed copy of pts.
func reversed(pts plotter.XYs) plotter.XYs {
	out := append(plotter.XYs{}, pts...)
	slices.Reverse(out)
	return out
}

// ParetoPlot is per-user output tokens/s vs total output tokens/s, one line per segment
// (and the mix), each point labelled with its load: the throughput/interactivity trade-off.
// The axes run past the largest values so the labels at the extremes stay inside, and a
// label that would print over an earlier one (two segments at one point) moves below it.
func ParetoPlot(a *analysis.Analysis) (*plot.Plot, error) {
	p := newPlot("Per-user vs total output tokens/s (points labelled with load)", "total output tokens/s", "per-user output tokens/s")
	type series struct {
		pts    plotter.XYs
		labels []string
	}
	var all []series
	xHi, yHi := 0.0, 0.0
	for _, seg := range allSegments(a) {
		var sr series
		for _, s := range seg.Steps {
			if stepSucceeded(s) && finite(s.OutputTokenThroughput) && finite(s.PerUserOutputTokensPerS) {
				sr.pts = append(sr.pts, plotter.XY{X: s.OutputTokenThroughput, Y: s.PerUserOutputTokensPerS})
				sr.labels = append(sr.labels, loadText(s.Load))
				xHi, yHi = max(xHi, s.OutputTokenThroughput), max(yHi, s.PerUserOutputTokensPerS)
			}
		}
		all = append(all, sr)
	}
	var placed []paretoLabel
	for i, seg := range allSegments(a) {
		sr := all[i]
		if err := addSeries(p, seg.Segment, sr.pts, i, 0); err != nil {
			return nil, err
		}
		for j, pt := range sr.pts {
			lb := paretoLabel{x: pt.X / max(xHi, 1e-12), y: pt.Y / max(yHi, 1e-12)}
			lb.line = lb.freeLine(placed)
			placed = append(placed, lb)
			if err := addParetoLabel(p, pt, sr.labels[j], i, lb.line); err != nil {
				return nil, err
			}
		}
	}
	p.X.Min, p.Y.Min = 0, 0
	if xHi > 0 && yHi > 0 {
		p.X.Max, p.Y.Max = paretoPadX*xHi, paretoPadY*yHi
	}
	return p, nil
}

// paretoPadX and paretoPadY are the Pareto axes' ends as multiples of the largest
// value: room right of and above the last point for its label.
const (
	paretoPadX = 1.12
	paretoPadY = 1.1
)

// paretoLabel is a placed point label: its point over the axes' maxima (0–1) and the
// text line it was moved down to (0 = beside the point).
type paretoLabel struct {
	x, y float64
	line int
}

// freeLine is the first text line below the point at which the label does not print
// over a placed one near the same point (within 6% of the x axis, 5% of the y axis).
func (l paretoLabel) freeLine(placed []paretoLabel) int {
	line := 0
	for taken := true; taken; {
		taken = false
		for _, q := range placed {
			if q.line == line && math.Abs(q.x-l.x) < 0.06 && math.Abs(q.y-l.y) < 0.05 {
				taken, line = true, line+1
				break
			}
		}
	}
	return line
}

// addParetoLabel labels point pt with text in palette colour i, line text lines
// below its usual place up-right of the point.
func addParetoLabel(p *plot.Plot, pt plotter.XY, text string, i, line int) error {
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{pt}, Labels: []string{text}})
	if err != nil {
		return fmt.Errorf("pareto labels: %w", err)
	}
	for j := range lb.TextStyle {
		lb.TextStyle[j].Font.Size, lb.TextStyle[j].Font.Variant = vg.Points(6), chartFontVariant
		lb.TextStyle[j].Color = plotutil.Color(i)
	}
	lb.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(2) - vg.Points(7*float64(line))}
	p.Add(lb)
	return nil
}

// cdfMaxPoints bounds the points of one CDF line (evenly spaced ranks).
const cdfMaxPoints = 300

// cdfSteps picks up to three distinct steps to show: the lowest load, the highest
// load, and between them the step nearest the capacity point (else the middle one).
func cdfSteps(a *analysis.Analysis, seg analysis.SegmentAnalysis) []analysis.StepStats {
	if len(seg.Steps) == 0 {
		return nil
	}
	steps := slices.Clone(seg.Steps)
	slices.SortStableFunc(steps, func(x, y analysis.StepStats) int { return cmpFloat(x.Load, y.Load) })
	steps = slices.CompactFunc(steps, func(x, y analysis.StepStats) bool { return x.Load == y.Load })
	if len(steps) <= 3 {
		return steps
	}
	inner := steps[1 : len(steps)-1]
	mid := inner[len(inner)/2]
	if cl := capacityLoad(a, seg.Capacity); finite(cl) {
		for _, s := range inner {
			if math.Abs(s.Load-cl) < math.Abs(mid.Load-cl) {
				mid = s
			}
		}
	}
	return []analysis.StepStats{steps[0], mid, steps[len(steps)-1]}
}

// cmpFloat orders floats, NaN last.
func cmpFloat(x, y float64) int {
	switch {
	case x < y || (!math.IsNaN(x) && math.IsNaN(y)):
		return -1
	case x > y || (math.IsNaN(x) && !math.IsNaN(y)):
		return 1
	}
	return 0
}

// stepSegment is the segment of the step a record belongs to ("mix" for mix steps).
func stepSegment(r *rundir.Record) string {
	if r.StepSegment != "" {
		return r.StepSegment
	}
	return r.Segment
}

// recordOfSegment reports whether record r belongs to segment seg's chart: a record of
// one of seg's steps, or, for a segment analysed from the mix's records (FromMix: its
// steps are the mix's), a record of that segment within the mix's steps.
func recordOfSegment(r *rundir.Record, seg analysis.SegmentAnalysis) bool {
	if seg.FromMix {
		return r.Segment == seg.Segment
	}
	return stepSegment(r) == seg.Segment
}

// measured reports whether a record counts in statistics (measure or grace, success).
func measured(r *rundir.Record) bool {
	return r.OK() && (r.Phase == rundir.PhaseMeasure || r.Phase == rundir.PhaseGrace)
}

// CDFPlot is the empirical CDF of TTFT at up to three steps of a segment, from the
// run's records (successful measured requests only). The x axis is log10 when all
// values are positive. A step with more than cdfExactMax values is drawn from a seeded
// uniform sample of that many (its legend says so; CDF error ≤ cdfSampleErr, see
// ttftSample).
func CDFPlot(a *analysis.Analysis, seg analysis.SegmentAnalysis, records []rundir.Record) (*plot.Plot, error) {
	st := newRequestStats()
	lines := cdfLines(a)
	for _, l := range lines {
		st.ttft[l.key] = newTTFTSample(l.key)
	}
	for i := range records {
		st.add(&records[i], lines)
	}
	return cdfPlot(a, seg, st.ttft)
}

// cdfPlot is CDFPlot from the TTFT values kept by readRequestStats.
func cdfPlot(a *analysis.Analysis, seg analysis.SegmentAnalysis, ttft map[cdfKey]*ttftSample) (*plot.Plot, error) {
	p := newPlot("TTFT CDF: "+seg.Segment, "TTFT (ms)", "fraction of requests ≤ x")
	picks := cdfSteps(a, seg)
	positive := true
	for _, s := range picks {
		if v := ttft[cdfKey{seg.Segment, s.Step}]; v != nil {
			positive = positive && v.positive
		}
	}
	if positive {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks125{}
	}
	n := 0
	var all plotter.XYs
	for i, s := range picks {
		smp := ttft[cdfKey{seg.Segment, s.Step}]
		if smp == nil || smp.n == 0 {
			continue
		}
		v := slices.Clone(smp.vals)
		slices.Sort(v)
		name := fmt.Sprintf("%s %s (n=%d)", loadText(s.Load), loadName(a), smp.n)
		if smp.sampled() {
			name = fmt.Sprintf("%s %s (n=%d; sample of %d, CDF ±%g)", loadText(s.Load), loadName(a), smp.n, len(v), cdfSampleErr)
		}
		pts := cdfPoints(v)
		if err := addPlainLine(p, name, pts, i, nil); err != nil {
			return nil, err
		}
		all = append(all, pts...)
		n++
	}
	if n == 0 {
		return nil, noData("no successful request of segment %s has a TTFT in records.jsonl", seg.Segment)
	}
	p.Y.Min, p.Y.Max = 0, 1
	cdfAxis(p, all, positive)
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"},
		{Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}}
	return p, nil
}

// cdfAxis ends the CDF's x axis just past its values (5% of the range, or of the
// decades on a log axis), so the curves fill the chart.
func cdfAxis(p *plot.Plot, pts plotter.XYs, logX bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
	}
	if !finite(lo) || !finite(hi) {
		return
	}
	switch {
	case logX && hi > lo:
		pad := math.Min(1.2, math.Pow(hi/lo, 0.05))
		p.X.Min, p.X.Max = lo/pad, hi*pad
	case logX:
		p.X.Min, p.X.Max = lo/1.1, hi*1.1
	case hi > lo:
		p.X.Min, p.X.Max = math.Min(0, lo), hi+0.05*(hi-math.Min(0, lo))
	default:
		p.X.Min, p.X.Max = math.Min(0, lo), hi+math.Max(1, math.Abs(hi))*0.1
	}
}

// cdfPoints turns sorted values into at most cdfMaxPoints CDF points.
func cdfPoints(sorted []float64) plotter.XYs {
	n := len(sorted)
	stride := max(1, n/cdfMaxPoints)
	var pts plotter.XYs
	for i := 0; i < n; i += stride {
		pts = append(pts, plotter.XY{X: sorted[i], Y: float64(i+1) / float64(n)})
	}
	if last := sorted[n-1]; pts[len(pts)-1].Y != 1 {
		pts = append(pts, plotter.XY{X: last, Y: 1})
	}
	if len(pts) == 1 {
		pts = append(pts, plotter.XY{X: pts[0].X, Y: 0})
		slices.Reverse(pts)
	}
	return pts
}

// stepLabel is "segment @ load" for a step.
func stepLabel(a *analysis.Analysis, s analysis.StepStats) string {
	seg := s.Segment
	if seg == "" {
		seg = plan.MixSegment
	}
	return strings.TrimSpace(fmt.Sprintf("%s @ %s %s", seg, loadText(s.Load), loadName(a)))
}
