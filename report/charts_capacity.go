package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// How the charts show a capacity. The analysis finds it as the largest load measured
// within the SLA (measured, at_least), or where the fitted model's curve meets the
// SLA (interpolated, model). The charts draw what was computed: a measured capacity
// sits on a step with its bracket shaded (the true capacity lies in it, where the
// measured curve, interpolated linearly in ms between the steps, crosses the SLA); a
// modelled one sits where the model's TTFT p95 curve, drawn with it, meets the SLA.

// capacityRangeCol shades a capacity's range.
var capacityRangeCol = color.NRGBA{R: 20, G: 120, B: 40, A: 40}

// densifyPerSegment is the number of pieces each step-to-step segment of a latency
// curve is drawn with on a log axis, so that a curve linear in ms bends as it should.
const densifyPerSegment = 24

// modelled reports whether a capacity method places the capacity by the fitted model.
func modelled(m analysis.CapacityMethod) bool {
	return m == analysis.MethodInterpolated || m == analysis.MethodModel
}

// capacityLegend names the capacity line: its load and how it was found, e.g.
// "capacity 186 users (measured)" (the caption says more).
func capacityLegend(a *analysis.Analysis, c analysis.Capacity) string {
	v := loadText(capacityLoad(a, c)) + " " + loadName(a)
	switch c.Method {
	case analysis.MethodMeasured:
		return "capacity " + v + " (measured)"
	case analysis.MethodInterpolated:
		return "capacity " + v + " (model, between steps)"
	case analysis.MethodModel:
		return "capacity " + v + " (model projection)"
	case analysis.MethodAtLeast:
		return "capacity ≥ " + v
	}
	return "capacity " + v
}

// capacityRange is a capacity's range in load units when it has a width (lo < hi);
// ok is false for an open or empty one.
func capacityRange(c analysis.Capacity) (lo, hi float64, ok bool) {
	lo, hi = c.RangeLow, c.RangeHigh
	return lo, hi, finite(lo) && finite(hi) && lo > 0 && hi > lo && !c.OpenEnded
}

// shadeCapacityRange shades the capacity's range from y0 to y1, with a legend entry
// ("range 186–191 users").
func shadeCapacityRange(p *plot.Plot, a *analysis.Analysis, c analysis.Capacity, y0, y1 float64) error {
	lo, hi, ok := capacityRange(c)
	if !ok || !finite(y0) || !finite(y1) {
		return nil
	}
	band, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: y0}, {X: hi, Y: y0}, {X: hi, Y: y1}, {X: lo, Y: y1}})
	if err != nil {
		return fmt.Errorf("capacity range: %w", err)
	}
	band.Color, band.LineStyle.Width = capacityRangeCol, 0
	p.Add(band)
	p.Legend.Add(fmt.Sprintf("range %s–%s %s", loadText(lo), loadText(hi), loadName(a)), band)
	return nil
}

// addCurve adds a latency series in palette colour i: markers at the steps, joined
// by a line that is linear in the value between them (densified on a log axis, where
// it then bends).
func addCurve(p *plot.Plot, name string, pts plotter.XYs, i int, logY bool) error {
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(curveLine(pts, logY))
	if err != nil {
		return fmt.Errorf("series %s: %w", name, err)
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("series %s: %w", name, err)
	}
	l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
	l.Width, s.Shape = vg.Points(1.5), plotutil.Shape(i)
	p.Add(dataLine{l}, s)
	p.Legend.Add(name, l, s)
	return nil
}

// curveLine is the polyline addCurve draws through pts: pts densified on a log axis.
func curveLine(pts plotter.XYs, logY bool) plotter.XYs {
	if logY {
		return densify(pts, densifyPerSegment)
	}
	return pts
}

// densify inserts n−1 points, linear in x and y, between each pair of neighbours.
func densify(pts plotter.XYs, n int) plotter.XYs {
	if len(pts) < 2 || n < 2 {
		return pts
	}
	out := make(plotter.XYs, 0, (len(pts)-1)*n+1)
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		for k := 0; k < n; k++ {
			t := float64(k) / float64(n)
			out = append(out, plotter.XY{X: a.X + t*(b.X-a.X), Y: a.Y + t*(b.Y-a.Y)})
		}
	}
	return append(out, pts[len(pts)-1])
}

// polylineAt evaluates the polyline pts (sorted by x) at x, linearly between its
// vertices; ok is false outside its x range.
func polylineAt(pts plotter.XYs, x float64) (y float64, ok bool) {
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		if x >= a.X && x <= b.X {
			if b.X == a.X {
				return a.Y, true
			}
			return a.Y + (x-a.X)/(b.X-a.X)*(b.Y-a.Y), true
		}
	}
	if len(pts) == 1 && pts[0].X == x {
		return pts[0].Y, true
	}
	return 0, false
}

// markThroughputAtCapacity marks the report's throughput at capacity (steady-state
// N / R at the capacity point, Capacity.ThroughputAtCapacity) as a star, with its value
// in the legend, so the chart shows the figure the text states.
func markThroughputAtCapacity(p *plot.Plot, a *analysis.Analysis, c analysis.Capacity) error {
	pt, ok := throughputAtCapacityPoint(a, c)
	if !ok {
		return nil
	}
	s, err := plotter.NewScatter(plotter.XYs{pt})
	if err != nil {
		return fmt.Errorf("throughput at capacity: %w", err)
	}
	s.Color, s.Shape, s.Radius = capacityCol, draw.PyramidGlyph{}, vg.Points(4.5)
	p.Add(s)
	p.Legend.Add(fmt.Sprintf("at capacity: %s req/s", auto(pt.Y)), s)
	return nil
}

// throughputAtCapacityPoint is (capacity load, Capacity.ThroughputAtCapacity); ok is
// false when either is unknown.
func throughputAtCapacityPoint(a *analysis.Analysis, c analysis.Capacity) (plotter.XY, bool) {
	x, y := capacityLoad(a, c), c.ThroughputAtCapacity
	return plotter.XY{X: x, Y: y}, finite(x) && finite(y) && y > 0
}

// chartCaption is the caption of a segment chart of kind (see Chart.Caption): for
// ttft, how its capacity line was placed; for throughput, throughputCaption of the
// segment's schedule.
func chartCaption(kind string, seg analysis.SegmentAnalysis) string {
	c := seg.Capacity
	switch kind {
	case "throughput":
		return throughputCaption(stepsSchedule(seg))
	case "ttft":
		return capacityCaption(c, stepsSchedule(seg))
	}
	return ""
}

// capacityCaption says how the TTFT chart's capacity line was placed, by method; on a
// closed loop (sched not rate) a capacity the model places between or beyond the steps
// is rounded down to a whole load, which the words say.
func capacityCaption(c analysis.Capacity, sched string) string {
	const lines = "Between steps the lines join the measured points linearly in ms, so they bend on a log axis."
	whole := ""
	if sched != plan.ScheduleRate {
		whole = ", rounded down to a whole load"
	}
	switch c.Method {
	case analysis.MethodMeasured:
		return "Capacity is the largest load measured within the SLA; the true limit lies in the shaded range, " +
			"where the TTFT line crosses the SLA. " + lines
	case analysis.MethodInterpolated:
		return "Capacity is where the fitted model's TTFT p95 (dashed) meets the SLA" + whole + ", between the last step that " +
			"met it and the first that broke it. " + lines
	case analysis.MethodModel:
		return "Every step met the SLA; the capacity is the fitted model's projection (dashed), where its TTFT p95 meets the SLA" + whole + "."
	case analysis.MethodAtLeast:
		return "Every step met the SLA, so the capacity is at least the highest load tested."
	}
	return ""
}

// stepsSchedule is the schedule of seg's steps (concurrency without steps).
func stepsSchedule(seg analysis.SegmentAnalysis) string {
	if len(seg.Steps) > 0 {
		return seg.Steps[0].Schedule
	}
	return plan.ScheduleConcurrency
}
