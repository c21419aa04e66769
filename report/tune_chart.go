package report

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// The tune report's one chart, the Pareto front: x is the main objective
// (Objectives[0]), y the second; every trial that measured its configuration is a
// grey point, the front's trials are highlighted and joined as a step line in the
// main objective's order (the edge of what the trials attain: no trial lies beyond
// it on both objectives), and the baseline and the recommended trial are marked and
// labelled. With one objective the chart is the main objective per trial number, the
// best so far as a step line. Failed trials are not plotted; the caption counts them.

// Colours of the tune chart.
var (
	tuneGrey     = color.RGBA{R: 150, G: 150, B: 150, A: 255}
	tuneFrontCol = color.RGBA{R: 31, G: 100, B: 180, A: 255}
	tuneBaseCol  = color.RGBA{R: 220, G: 110, B: 0, A: 255}
)

// tunePoint is one plotted trial.
type tunePoint struct {
	trial int
	x, y  float64
}

// tunePlot is what the chart plots: every OK trial with both values, the front
// (sorted by x), the baseline and the recommended trial (nil when not plotted), and
// the counts the caption states.
type tunePlot struct {
	x, y     plan.TuneObjective // the objectives on the axes (x the trial number when byTrial)
	byTrial  bool
	all      []tunePoint
	front    []tunePoint
	base     *tunePoint
	rec      *tunePoint
	failed   int // trials that did not measure their configuration
	unplaced int // OK trials without a value of an axis's objective
}

// tunePoints gathers the chart's points from the trials.
func tunePoints(in *tuneInput) tunePlot {
	d := tunePlot{byTrial: len(in.objectives) < 2}
	d.x = plan.TuneObjective{Metric: in.mainMetric(), Direction: plan.TuneMaximize}
	if len(in.objectives) > 0 {
		d.x = in.objectives[0]
	}
	if d.byTrial {
		d.y = d.x
	} else {
		d.y = in.objectives[1]
	}
	base, rec := -1, -1
	for i := range in.trials {
		t := &in.trials[i]
		if !t.OK() {
			d.failed++
			continue
		}
		pt, ok := d.point(t)
		if !ok {
			d.unplaced++
			continue
		}
		if in.front[t.Trial] {
			d.front = append(d.front, pt)
		}
		if t.Trial == in.result.Recommended {
			rec = len(d.all)
		}
		if t.Trial == in.result.Baseline {
			base = len(d.all)
		}
		d.all = append(d.all, pt)
	}
	if base >= 0 {
		d.base = &d.all[base]
	}
	if rec >= 0 {
		d.rec = &d.all[rec]
	}
	slices.SortStableFunc(d.front, func(a, b tunePoint) int { return cmpFloat(a.x, b.x) })
	return d
}

// point is trial t's position; ok is false when it lacks an axis's value.
func (d *tunePlot) point(t *rundir.Trial) (tunePoint, bool) {
	if d.byTrial {
		y, ok := tuneObjective(t, d.y.Metric)
		return tunePoint{t.Trial, float64(t.Trial), y}, ok
	}
	x, okx := tuneObjective(t, d.x.Metric)
	y, oky := tuneObjective(t, d.y.Metric)
	return tunePoint{t.Trial, x, y}, okx && oky
}

// buildTuneChart draws the Pareto front chart (SVG and PNG); Err says why there is
// none (no trial measured its configuration).
func buildTuneChart(in *tuneInput) Chart {
	d := tunePoints(in)
	c := Chart{Name: TuneChartName, Title: tuneChartTitle(in, d), Kind: TuneChartName, Caption: tuneChartCaption(in, d)}
	p, err := tuneFrontPlot(in, d)
	if err == nil {
		c.SVG, err = RenderSVG(p, ChartWidth, ChartHeight)
	}
	if err == nil {
		c.PNG, err = RenderPNG(p, ChartWidth, ChartHeight, pngDPI)
	}
	c.Err = err
	return c
}

// tuneChartTitle is the chart's title.
func tuneChartTitle(in *tuneInput, d tunePlot) string {
	if d.byTrial {
		return tuneMetricLabel(in, d.y.Metric) + " per trial"
	}
	return "Pareto front: " + tuneMetricLabel(in, d.x.Metric) + " vs " + tuneMetricLabel(in, d.y.Metric)
}

// tuneFrontPlot builds the chart. Errors: nothing to plot (a noDataError), or a
// series gonum rejects.
func tuneFrontPlot(in *tuneInput, d tunePlot) (*plot.Plot, error) {
	switch {
	case len(d.all) == 0 && d.unplaced > 0:
		return nil, noData("no measured trial has a value of every objective plotted")
	case len(d.all) == 0:
		return nil, noData("no trial measured its configuration")
	}
	xLabel := tuneAxisLabel(in, d.x)
	if d.byTrial {
		xLabel = "trial number"
	}
	p := newPlot(tuneChartTitle(in, d), xLabel, tuneAxisLabel(in, d.y))
	if tuneMetricUnit(d.y.Metric) == "ms" {
		useLogY(p, tuneYs(d.all), logSpan)
	}
	if err := addTuneScatter(p, fmt.Sprintf("trials measured (%d)", len(d.all)), tuneXYs(d.all), tuneGrey, draw.CircleGlyph{}, 2.6); err != nil {
		return nil, err
	}
	if err := addTuneFront(p, d); err != nil {
		return nil, err
	}
	if err := addTuneMarks(p, d); err != nil {
		return nil, err
	}
	tuneAxes(p, d)
	return p, nil
}

// addTuneFront draws the front's step line and points (two objectives), or the best
// so far per trial and the front's points (one objective).
func addTuneFront(p *plot.Plot, d tunePlot) error {
	name := "Pareto front (" + plural(len(d.front), "trial") + ")"
	line := tuneStepLine(d.front, d.x, d.y)
	if d.byTrial {
		name, line = "best", tuneBestSoFar(d.all, d.y)
	}
	if len(line) > 1 {
		l, err := plotter.NewLine(line)
		if err != nil {
			return fmt.Errorf("tune front line: %w", err)
		}
		l.Color, l.Width = tuneFrontCol, vg.Points(1.4)
		p.Add(dataLine{l})
		if d.byTrial {
			p.Legend.Add("best so far", l)
		}
	}
	if len(d.front) == 0 {
		return nil
	}
	if err := addTuneScatter(p, name, tuneXYs(d.front), tuneFrontCol, draw.CircleGlyph{}, 3.6); err != nil {
		return err
	}
	for _, pt := range d.front {
		if (d.rec != nil && pt.trial == d.rec.trial) || (d.base != nil && pt.trial == d.base.trial) {
			continue // labelled with its mark
		}
		if err := addTuneLabel(p, pt, fmt.Sprintf("#%d", pt.trial), tuneFrontCol, 0); err != nil {
			return err
		}
	}
	return nil
}

// addTuneMarks marks and labels the baseline (an orange square) and the recommended
// trial (a green ring); a trial that is both gets both, labelled once.
func addTuneMarks(p *plot.Plot, d tunePlot) error {
	same := d.base != nil && d.rec != nil && d.base.trial == d.rec.trial
	if b := d.base; b != nil {
		if err := addTuneScatter(p, fmt.Sprintf("baseline (#%d)", b.trial), tuneXYs([]tunePoint{*b}), tuneBaseCol, draw.BoxGlyph{}, 4.2); err != nil {
			return err
		}
		text := fmt.Sprintf("baseline #%d", b.trial)
		if same {
			text = fmt.Sprintf("baseline = recommended #%d", b.trial)
		}
		if err := addTuneLabel(p, *b, text, tuneBaseCol, -1); err != nil {
			return err
		}
	}
	if r := d.rec; r != nil {
		if err := addTuneScatter(p, fmt.Sprintf("recommended (#%d)", r.trial), tuneXYs([]tunePoint{*r}), capacityCol, draw.RingGlyph{}, 6.5); err != nil {
			return err
		}
		if !same {
			return addTuneLabel(p, *r, fmt.Sprintf("recommended #%d", r.trial), capacityCol, 1)
		}
	}
	return nil
}

// addTuneScatter adds pts as markers of one colour, glyph and radius (points) with a
// legend entry, whose marker is at most tuneLegendRadius (a larger one would print
// over the entries next to it).
func addTuneScatter(p *plot.Plot, name string, pts plotter.XYs, c color.Color, g draw.GlyphDrawer, radius float64) error {
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("tune chart %s: %w", name, err)
	}
	s.Color, s.Shape, s.Radius = c, g, vg.Points(radius)
	p.Add(s)
	thumb := *s
	thumb.Radius = min(s.Radius, vg.Points(tuneLegendRadius))
	p.Legend.Add(name, &thumb)
	return nil
}

// tuneLegendRadius is the largest marker radius in the legend, in points.
const tuneLegendRadius = 3.6

// addTuneLabel writes text beside pt in colour c: up-right of it (line 0), a line
// above (1) or below (-1).
func addTuneLabel(p *plot.Plot, pt tunePoint, text string, c color.Color, line int) error {
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: pt.x, Y: pt.y}}, Labels: []string{text}})
	if err != nil {
		return fmt.Errorf("tune chart label: %w", err)
	}
	for j := range lb.TextStyle {
		lb.TextStyle[j].Font.Size, lb.TextStyle[j].Font.Variant = vg.Points(7), chartFontVariant
		lb.TextStyle[j].Color = c
	}
	lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(1.5 + 8*float64(line))}
	p.Add(lb)
	return nil
}

// tuneStepLine is the front's staircase: between neighbours (sorted by x) it passes
// through the corner that is worse than both on each objective, so it bounds what the
// trials attain.
func tuneStepLine(front []tunePoint, xo, yo plan.TuneObjective) plotter.XYs {
	var out plotter.XYs
	for i, pt := range front {
		if i > 0 {
			prev := front[i-1]
			out = append(out, plotter.XY{X: worse(xo, prev.x, pt.x), Y: worse(yo, prev.y, pt.y)})
		}
		out = append(out, plotter.XY{X: pt.x, Y: pt.y})
	}
	return out
}

// worse is the worse of a and b on objective o.
func worse(o plan.TuneObjective, a, b float64) float64 {
	if o.Maximizes() {
		return min(a, b)
	}
	return max(a, b)
}

// tuneBestSoFar is the best value of objective o over the trials so far, as a step
// line over the trial numbers (all is in trial order).
func tuneBestSoFar(all []tunePoint, o plan.TuneObjective) plotter.XYs {
	var out plotter.XYs
	for i, pt := range all {
		best := pt.y
		if i > 0 {
			last := out[len(out)-1].Y
			best = last
			if (o.Maximizes() && pt.y > last) || (!o.Maximizes() && pt.y < last) {
				best = pt.y
			}
			out = append(out, plotter.XY{X: pt.x, Y: last})
		}
		out = append(out, plotter.XY{X: pt.x, Y: best})
	}
	return out
}

// tuneAxes pads the axes around the points, with room right of the last for its label.
func tuneAxes(p *plot.Plot, d tunePlot) {
	pad := func(lo, hi, below, above float64) (float64, float64) {
		span := hi - lo
		if span <= 0 {
			span = max(1, 0.2*max(hi, -hi))
		}
		return lo - below*span, hi + above*span
	}
	xs, ys := tuneXs(d.all), tuneYs(d.all)
	p.X.Min, p.X.Max = pad(slices.Min(xs), slices.Max(xs), 0.06, 0.2)
	if d.byTrial {
		p.X.Min = min(p.X.Min, -0.5)
		p.X.Tick.Marker = trialTicks{}
	}
	if _, logY := p.Y.Scale.(plot.LogScale); !logY {
		p.Y.Min, p.Y.Max = pad(slices.Min(ys), slices.Max(ys), 0.12, 0.15)
	}
}

// trialTicks labels a trial-number axis at whole numbers only.
type trialTicks struct{}

// Ticks implements plot.Ticker.
func (trialTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (niceTicks{}).Ticks(lo, hi) {
		if t.Value == float64(int(t.Value)) && t.Value >= 0 {
			out = append(out, t)
		}
	}
	return out
}

// tuneXYs, tuneXs and tuneYs are the points' coordinates.
func tuneXYs(pts []tunePoint) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		out[i] = plotter.XY{X: pt.x, Y: pt.y}
	}
	return out
}

func tuneXs(pts []tunePoint) []float64 {
	out := make([]float64, len(pts))
	for i, pt := range pts {
		out[i] = pt.x
	}
	return out
}

func tuneYs(pts []tunePoint) []float64 {
	out := make([]float64, len(pts))
	for i, pt := range pts {
		out[i] = pt.y
	}
	return out
}

// tuneChartCaption says how to read the chart, with what it leaves out.
func tuneChartCaption(in *tuneInput, d tunePlot) string {
	var b strings.Builder
	if d.byTrial {
		fmt.Fprintf(&b, "Each grey point is a trial that measured its configuration (%d); the blue line is the best %s so far.",
			len(d.all), tuneMetricLabel(in, d.y.Metric))
	} else {
		fmt.Fprintf(&b, "Each grey point is a trial that measured its configuration (%d). The blue step line joins the Pareto front "+
			"(%s): no trial is better than a front trial on both objectives.", len(d.all), tuneFrontText(in))
	}
	if d.failed > 0 {
		fmt.Fprintf(&b, " %s not plotted.", tuneFailedWords(d.failed))
	}
	if d.unplaced > 0 {
		fmt.Fprintf(&b, " %s without a value of an objective %s not plotted.", plural(d.unplaced, "trial"), isAre(d.unplaced))
	}
	return b.String()
}

// tuneFailedWords is "1 failed trial is" or "2 failed trials are".
func tuneFailedWords(n int) string {
	return plural(n, "failed trial") + " " + isAre(n)
}

// isAre is "is" for one, else "are".
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// writeTuneChartFiles writes the chart as charts/tune-pareto.svg and .png and returns
// their paths (none when there is no chart).
func writeTuneChartFiles(dir string, c Chart) ([]string, error) {
	if c.Err != nil || len(c.SVG) == 0 {
		return nil, nil
	}
	cdir := filepath.Join(dir, DirCharts)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return nil, fmt.Errorf("charts directory: %w", err)
	}
	var out []string
	for _, f := range []struct {
		ext string
		b   []byte
	}{{".svg", c.SVG}, {".png", c.PNG}} {
		path := filepath.Join(cdir, c.Name+f.ext)
		if err := rundir.WriteFileAtomic(path, f.b); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}
