package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/llmcap/llmcap/rundir"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// firstURLSamples keeps the samples of the first scraped endpoint carrying engine
// metrics (running requests or KV-cache usage; else the first endpoint), one line per
// series: a GPU exporter listed first in target.metrics_urls is passed over.
func firstURLSamples(samples []rundir.MetricSample) []rundir.MetricSample {
	if len(samples) == 0 {
		return nil
	}
	url := samples[0].URL
	for _, s := range samples { // the engine's endpoint, not a GPU exporter listed before it
		if _, ok := rundir.ServerValue(s, rundir.ServerRequestsRunning); ok {
			url = s.URL
			break
		}
		if _, ok := rundir.ServerValue(s, rundir.ServerKVCacheUsage); ok {
			url = s.URL
			break
		}
	}
	var out []rundir.MetricSample
	for _, s := range samples {
		if s.URL == url {
			out = append(out, s)
		}
	}
	return out
}

// hasEngineGauges reports whether some scrape carries an engine's running or waiting
// requests or its KV cache usage, the server charts' data: a run that scraped only a
// GPU exporter (DCGM) has none, and no server charts.
func hasEngineGauges(samples []rundir.MetricSample) bool {
	for _, s := range samples {
		for _, m := range []rundir.ServerMetric{rundir.ServerRequestsRunning, rundir.ServerRequestsWaiting, rundir.ServerKVCacheUsage} {
			if _, ok := rundir.ServerValue(s, m); ok {
				return true
			}
		}
	}
	return false
}

// serverSeries is one server metric over time (x: seconds since the first sample; y:
// the metric in its rundir unit × scale), one point per sample that carries it. Names
// and units come from rundir's server-metric table, as the analysis reads them.
func serverSeries(samples []rundir.MetricSample, m rundir.ServerMetric, scale float64) plotter.XYs {
	var pts plotter.XYs
	if len(samples) == 0 {
		return nil
	}
	t0 := samples[0].TimeNs
	for _, s := range samples {
		if v, ok := rundir.ServerValue(s, m); ok {
			pts = append(pts, plotter.XY{X: float64(s.TimeNs-t0) / 1e9, Y: v * scale})
		}
	}
	return pts
}

// serverQueueSeries are the running and waiting requests of the first endpoint, the
// series ServerQueuePlot draws.
func serverQueueSeries(samples []rundir.MetricSample) (running, waiting plotter.XYs) {
	s := firstURLSamples(samples)
	return serverSeries(s, rundir.ServerRequestsRunning, 1), serverSeries(s, rundir.ServerRequestsWaiting, 1)
}

// serverKVSeries is the first endpoint's KV cache usage in percent, the series
// ServerKVPlot draws.
func serverKVSeries(samples []rundir.MetricSample) plotter.XYs {
	return serverSeries(firstURLSamples(samples), rundir.ServerKVCacheUsage, 100)
}

// shadeSteps adds alternating background bands for each step's time span (Step ≥ 0),
// from y = 0 to yMax, before the series so they are drawn underneath; with labels, each
// band is labelled (rotated) with its step's label, reading down from the top.
func shadeSteps(p *plot.Plot, samples []rundir.MetricSample, yMax float64, labels map[int]string) error {
	if len(samples) == 0 || !(yMax > 0) {
		return nil
	}
	t0 := samples[0].TimeNs
	band := 0
	var at plotter.XYs
	var names []string
	for i := 0; i < len(samples); {
		j := i
		for j+1 < len(samples) && samples[j+1].Step == samples[i].Step {
			j++
		}
		if samples[i].Step >= 0 && j > i {
			x0, x1 := float64(samples[i].TimeNs-t0)/1e9, float64(samples[j].TimeNs-t0)/1e9
			poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: yMax}, {X: x0, Y: yMax}})
			if err != nil {
				return fmt.Errorf("step band: %w", err)
			}
			poly.Color, poly.LineStyle.Width = shadeCols[band%len(shadeCols)], 0
			p.Add(poly)
			band++
			if l, ok := labels[samples[i].Step]; ok {
				at, names = append(at, plotter.XY{X: (x0 + x1) / 2, Y: yMax}), append(names, l)
			}
		}
		i = j + 1
	}
	return addBandLabels(p, at, names)
}

// addBandLabels writes small vertical labels hanging from the points at.
func addBandLabels(p *plot.Plot, at plotter.XYs, names []string) error {
	if len(at) == 0 {
		return nil
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: names})
	if err != nil {
		return fmt.Errorf("step labels: %w", err)
	}
	for i := range lb.TextStyle {
		st := &lb.TextStyle[i]
		st.Font.Size, st.Font.Variant = vg.Points(5.5), chartFontVariant
		st.Rotation = -math.Pi / 2
		st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
		st.Color = colGreyRGBA
	}
	lb.Offset = vg.Point{Y: -vg.Points(2)}
	p.Add(lb)
	return nil
}

// ServerQueuePlot is the server's running and waiting requests over time, with the
// sweep's steps shaded and labelled (labels: step → "segment@load"; nil for none) and
// the slot limit (max_num_seqs; NaN when unknown) as a dashed line. It reads
// server-metrics.jsonl, first endpoint only.
func ServerQueuePlot(samples []rundir.MetricSample, labels map[int]string, slots float64) (*plot.Plot, error) {
	s := firstURLSamples(samples)
	running, waiting := serverQueueSeries(samples)
	if len(running)+len(waiting) == 0 {
		return nil, fmt.Errorf("server metrics: no running/waiting request gauges")
	}
	p := newPlot("Server queue (steps shaded, labelled segment@load)", "time since first scrape (s)", "requests")
	top := maxY(running, waiting)
	if finite(slots) {
		top = max(top, slots)
	}
	// The bands reach above the data: the step labels hang in that space.
	if err := shadeSteps(p, s, 1.45*top, labels); err != nil {
		return nil, err
	}
	if err := addPlainLine(p, "running", running, 0, nil); err != nil {
		return nil, err
	}
	// Waiting is dashed, so where it equals running both stay visible.
	if err := addPlainLine(p, "waiting (queued)", waiting, 3, []vg.Length{vg.Points(4), vg.Points(3)}); err != nil {
		return nil, err
	}
	if finite(slots) && slots > 0 {
		hline(p, fmt.Sprintf("slot limit %s (max_num_seqs)", loadText(slots)), slots, colGreyRGBA)
		p.Y.Tick.Marker = withTick{niceTicks{}, slots}
	}
	p.Y.Min, p.Y.Max = 0, 1.45*top
	return p, nil
}

// withTick is a ticker that adds one labelled tick at v (e.g. the slot limit).
type withTick struct {
	plot.Ticker
	v float64
}

// Ticks implements plot.Ticker.
func (w withTick) Ticks(lo, hi float64) []plot.Tick {
	ticks := w.Ticker.Ticks(lo, hi)
	for _, t := range ticks {
		if t.Value == w.v {
			return ticks
		}
	}
	if w.v < lo || w.v > hi {
		return ticks
	}
	return append(ticks, plot.Tick{Value: w.v, Label: strconv.FormatFloat(w.v, 'g', 6, 64)})
}

// ServerKVPlot is the server's KV cache usage (%) over time with the steps shaded. The
// y axis scales to the data (kvAxisMax); the full cache, 100%, is a dashed line when
// in range, else the title says it is off the scale.
func ServerKVPlot(samples []rundir.MetricSample) (*plot.Plot, error) {
	s := firstURLSamples(samples)
	kv := serverKVSeries(samples)
	if len(kv) == 0 {
		return nil, fmt.Errorf("server metrics: no KV cache usage gauge")
	}
	peak := maxY(kv)
	top := kvAxisMax(peak)
	title := "KV cache usage (steps shaded)"
	if top < 100 {
		title = fmt.Sprintf("KV cache usage (steps shaded; peak %s%%, full cache = 100%% is off the scale)", auto(peak))
	}
	p := newPlot(title, "time since first scrape (s)", "KV cache usage (%)")
	if err := shadeSteps(p, s, top, nil); err != nil {
		return nil, err
	}
	if err := addPlainLine(p, "KV cache usage", kv, 4, nil); err != nil {
		return nil, err
	}
	if top >= 100 {
		hline(p, "full cache (100%)", 100, slaRed)
	}
	p.Y.Min, p.Y.Max = 0, top
	return p, nil
}

// kvAxisMax is the top of the KV cache axis (%) for a peak usage: twice the peak
// rounded up to 1, 2 or 5 × 10^k (at least 1%), or 105% (100% in view) once that
// would reach 80% or round up to 100%.
func kvAxisMax(peakPct float64) float64 {
	want := 2 * math.Max(peakPct, 0.5)
	if want >= 80 || !finite(want) {
		return 105
	}
	mag := math.Pow(10, math.Floor(math.Log10(want)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v := m * mag; v >= want*(1-1e-9) && v < 100 {
			return v
		}
	}
	return 105 // the axis reaches 100%: show the full cache
}

// maxY is the largest finite y over the series (0 when empty).
func maxY(series ...plotter.XYs) float64 {
	m := 0.0
	for _, s := range series {
		for _, pt := range s {
			if finite(pt.Y) {
				m = math.Max(m, pt.Y)
			}
		}
	}
	return m
}

// colGreyRGBA is the colour of chart annotations.
var colGreyRGBA = color.RGBA{R: 90, G: 90, B: 90, A: 255}
