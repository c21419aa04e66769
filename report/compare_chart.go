package report

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/rundir"
)

// The comparison's charts: per segment (and the mix) the runs' curves overlaid, one
// colour per run — TTFT p50 (solid) and p95 (dashed), ITL p95, output throughput and
// goodput vs load — as charts/compare-<kind>-<segment>.svg and .png.

// compareChartKind is one overlaid chart: its name stem, title, y label and the
// series (legend suffix, value, dashes) it draws per run.
type compareChartKind struct {
	kind, title, y string
	series         []compareSeries
	logSpan        float64 // switch to a log y axis beyond this span (0: never)
}

type compareSeries struct {
	suffix string
	value  func(compare.CurvePoint) (float64, bool)
	dashes int
}

func latency(f func(compare.CurvePoint) float64) func(compare.CurvePoint) (float64, bool) {
	return func(p compare.CurvePoint) (float64, bool) { return f(p), p.HasLatency && f(p) > 0 }
}

func rate(f func(compare.CurvePoint) float64) func(compare.CurvePoint) (float64, bool) {
	return func(p compare.CurvePoint) (float64, bool) { return f(p), true }
}

// compareChartKinds are the overlaid charts of each segment, in order.
var compareChartKinds = []compareChartKind{
	{kind: "ttft", title: "TTFT vs load", y: "TTFT (ms)", logSpan: 20, series: []compareSeries{
		{" p50", latency(func(p compare.CurvePoint) float64 { return p.TTFTP50Ms }), 0},
		{" p95", latency(func(p compare.CurvePoint) float64 { return p.TTFTP95Ms }), 1}}},
	{kind: "itl", title: "ITL p95 vs load", y: "ITL p95 (ms)", series: []compareSeries{
		{"", latency(func(p compare.CurvePoint) float64 { return p.ITLP95Ms }), 0}}},
	{kind: "throughput", title: "Output throughput vs load", y: "output tokens/s", series: []compareSeries{
		{"", rate(func(p compare.CurvePoint) float64 { return p.OutputTokensPerS }), 0}}},
	{kind: "goodput", title: "Goodput vs load", y: "goodput (req/s within the SLA)", series: []compareSeries{
		{"", rate(func(p compare.CurvePoint) float64 { return p.GoodputRps }), 0}}},
}

// buildCompareCharts builds and renders every overlaid chart (with half, also the
// compact PNG the PDF places two to a row, Chart.PNGHalf, where its legend fits that
// canvas: fitsHalfCanvas); a chart with nothing to plot carries Err and no bytes.
func buildCompareCharts(c *compare.Comparison, half bool) []Chart {
	var out []Chart
	for _, sc := range c.Curves {
		for _, k := range compareChartKinds {
			ch := Chart{Name: "compare-" + k.kind + "-" + slugify(sc.Segment), Title: k.title + ": " + sc.Segment, Segment: sc.Segment, Kind: k.kind}
			p, err := comparePlot(k, sc, cmpLoadLabel(c))
			if err == nil {
				ch.SVG, err = RenderSVG(p, ChartWidth, ChartHeight)
			}
			if err == nil {
				ch.PNG, err = RenderPNG(p, ChartWidth, ChartHeight, pngDPI)
			}
			if err == nil && half && fitsHalfCanvas(p) {
				ch.PNGHalf, err = RenderPNG(p, HalfChartWidth, HalfChartHeight, pngDPI)
			}
			ch.Err = err
			out = append(out, ch)
		}
	}
	return out
}

// comparePlot draws chart kind k of one segment: each run's series in its colour.
func comparePlot(k compareChartKind, sc compare.SegmentCurves, xLabel string) (*plot.Plot, error) {
	p := newPlot(k.title+": "+sc.Segment, xLabel, k.y)
	var ys []float64
	pts := make([][]plotter.XYs, len(sc.Runs))
	n := 0
	for i, rc := range sc.Runs {
		for _, s := range k.series {
			var xy plotter.XYs
			for _, pt := range rc.Points {
				if v, ok := s.value(pt); ok && finite(v) && finite(pt.Load) {
					xy = append(xy, plotter.XY{X: pt.Load, Y: v})
					ys = append(ys, v)
				}
			}
			pts[i] = append(pts[i], xy)
			n += len(xy)
		}
	}
	if n == 0 {
		return nil, noData("no run has a value for %s in segment %s", k.y, sc.Segment)
	}
	logY := k.logSpan > 0 && useLogY(p, ys, k.logSpan)
	for i, rc := range sc.Runs {
		for j, s := range k.series {
			xy := pts[i][j]
			if logY {
				xy = positivePoints(xy)
			}
			if err := addSeries(p, rc.Label+s.suffix, xy, i, s.dashes); err != nil {
				return nil, err
			}
		}
	}
	if !logY {
		p.Y.Min = 0
	}
	return p, nil
}

// positivePoints keeps the points a log axis can show.
func positivePoints(xy plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for _, p := range xy {
		if p.Y > 0 {
			out = append(out, p)
		}
	}
	return out
}

// cmpLoadLabel is the x axis: the runs' ladder when they share one.
func cmpLoadLabel(c *compare.Comparison) string {
	s := c.Runs[0].Schedule
	for _, r := range c.Runs[1:] {
		if r.Schedule != s {
			return "load"
		}
	}
	switch s {
	case "rate":
		return "request rate (req/s)"
	case "users":
		return "users"
	}
	return "concurrency (requests in flight)"
}

// writeCompareCharts writes each drawn chart as SVG and PNG under dir/charts.
func writeCompareCharts(dir string, charts []Chart) ([]string, error) {
	cdir := filepath.Join(dir, DirCharts)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return nil, fmt.Errorf("charts directory: %w", err)
	}
	var out []string
	for _, c := range charts {
		if c.Err != nil || len(c.SVG) == 0 {
			continue
		}
		for _, f := range []struct {
			ext string
			b   []byte
		}{{".svg", c.SVG}, {".png", c.PNG}} {
			path := filepath.Join(cdir, c.Name+f.ext)
			if _, err := rundir.RemoveTemps(path); err != nil {
				return out, err
			}
			if err := rundir.WriteFileAtomic(path, f.b); err != nil {
				return out, err
			}
			out = append(out, path)
		}
	}
	return out, nil
}
