package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// Chart sizes and resolution. The PNG has the physical size of its PDF cell, so its
// fonts print at their nominal size; ChartDPI keeps it crisp in print.
const (
	ChartWidth  = 17 * vg.Centimeter
	ChartHeight = 8.5 * vg.Centimeter
	ChartDPI    = 200
)

// HalfChartWidth × HalfChartHeight is the canvas of a chart placed at half the page's
// width (two side by side: the PDF's segment and model pages). Drawn with the same
// font sizes and scaled into its 90 mm cell (×0.8), its text prints at about 6.5 pt,
// where the full-size PNG scaled into half the width would print at about 4 pt.
const (
	HalfChartWidth  = 11 * vg.Centimeter
	HalfChartHeight = 5.5 * vg.Centimeter
)

// halfWidthKinds are the chart kinds the PDF places at half width (chartPairs), for
// which buildCharts also renders Chart.PNGHalf.
var halfWidthKinds = map[string]bool{"throughput": true, "itl": true, "fit": true, "pareto": true, "cdf": true}

// pngDPI is the resolution buildCharts renders at (ChartDPI; tests lower it to keep
// the race detector's run short).
var pngDPI = ChartDPI

// chartFontVariant selects Liberation Sans (gonum/plot's default typeface is serif).
const chartFontVariant = "Sans"

// Chart is one rendered chart.
type Chart struct {
	// Name is the file stem under charts/ (e.g. "ttft-short-chat").
	Name string
	// Title is the chart's title; Segment is its segment ("" for cross-segment charts).
	Title   string
	Segment string
	// Kind is ttft, itl, throughput, fit, pareto, cdf, server-queue or server-kv.
	Kind string
	// Caption is one line for the page under the chart that says how to read it (how
	// the capacity was placed, what the two throughputs are); "" when it needs none.
	Caption string
	// SVG and PNG are the rendered bytes (PNG at ChartDPI).
	SVG, PNG []byte
	// PNGHalf is the chart drawn on the compact HalfChartWidth × HalfChartHeight canvas
	// at ChartDPI, for half-width placement (halfWidthKinds; nil for the other kinds).
	// It is not written to charts/.
	PNGHalf []byte
	// Err is set when the chart could not be built or rendered (it is then skipped).
	Err error
}

// chartSpec is a chart to build: the plot constructor runs in a worker.
type chartSpec struct {
	name, title, segment, kind string
	build                      func() (*plot.Plot, error)
	caption                    string
}

// chartSpecs lists every chart the run's data supports, in report order.
func chartSpecs(in *input) []chartSpec {
	a := in.a
	var specs []chartSpec
	for _, seg := range allSegments(a) {
		seg := seg
		slug := slugify(seg.Segment)
		add := func(kind, title string, fn func() (*plot.Plot, error)) {
			specs = append(specs, chartSpec{kind + "-" + slug, title, seg.Segment, kind, fn, chartCaption(kind, seg)})
		}
		if !segmentSucceeded(seg) {
			continue // no data: the PDF says so in one sentence instead
		}
		add("ttft", "TTFT vs load: "+seg.Segment, func() (*plot.Plot, error) { return TTFTPlot(a, seg) })
		add("itl", "ITL vs load: "+seg.Segment, func() (*plot.Plot, error) { return ITLPlot(a, seg) })
		add("throughput", "Throughput and goodput: "+seg.Segment, func() (*plot.Plot, error) { return ThroughputPlot(a, seg) })
		if seg.Fit != nil && len(seg.Fit.Curve) > 0 {
			add("fit", "Model fit: "+seg.Segment, func() (*plot.Plot, error) { return FitPlot(a, seg) })
		}
		if in.requests.count > 0 {
			add("cdf", "TTFT CDF: "+seg.Segment, func() (*plot.Plot, error) { return cdfPlot(a, seg, in.requests.ttft) })
			specs[len(specs)-1].caption = cdfCaption(a, seg, in.requests.ttft)
		}
	}
	if !anySucceeded(a) {
		return specs
	}
	specs = append(specs, chartSpec{"pareto", "Per-user vs total tokens/s", "", "pareto",
		func() (*plot.Plot, error) { return ParetoPlot(a) }, ""})
	if hasEngineGauges(in.metrics) {
		specs = append(specs,
			chartSpec{"server-queue", "Server queue over time", "", "server-queue",
				func() (*plot.Plot, error) { return ServerQueuePlot(in.metrics, stepLabels(a), slotLimit(a)) }, ""},
			chartSpec{"server-kv", "KV cache usage over time", "", "server-kv",
				func() (*plot.Plot, error) { return ServerKVPlot(in.metrics) }, ""})
	}
	return specs
}

// stepLabels maps each step number to a short "segment@load" label for the server charts.
func stepLabels(a *analysis.Analysis) map[int]string {
	out := map[int]string{}
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			out[s.Step] = seg.Segment + "@" + loadText(s.Load)
		}
	}
	return out
}

// slotLimit is the number of requests the server runs at once when known: the
// simulator's max_num_seqs, else the headline ladder's fitted slots (NaN when unknown).
func slotLimit(a *analysis.Analysis) float64 {
	if a.Plan.Target.IsSimulator() && a.Plan.Target.Simulator.MaxNumSeqs > 0 {
		return float64(a.Plan.Target.Simulator.MaxNumSeqs)
	}
	for _, seg := range allSegments(a) {
		if seg.Segment == a.OverallSource && seg.Fit != nil && seg.Fit.Slots > 0 {
			return math.Round(seg.Fit.Slots)
		}
	}
	return math.NaN()
}

// buildCharts builds and renders every chart in parallel; charts whose data is
// unusable carry Err and no bytes.
func buildCharts(in *input) []Chart {
	specs := chartSpecs(in)
	out := make([]Chart, len(specs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i, s := range specs {
		out[i] = Chart{Name: s.name, Title: s.title, Segment: s.segment, Kind: s.kind, Caption: s.caption}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, err := s.build()
			if err == nil {
				out[i].SVG, err = RenderSVG(p, ChartWidth, ChartHeight)
			}
			if err == nil {
				out[i].PNG, err = RenderPNG(p, ChartWidth, ChartHeight, pngDPI)
			}
			if err == nil && halfWidthKinds[s.kind] && fitsHalfCanvas(p) {
				out[i].PNGHalf, err = RenderPNG(p, HalfChartWidth, HalfChartHeight, pngDPI)
			}
			out[i].Err = err
		}()
	}
	wg.Wait()
	return out
}

// fitsHalfCanvas reports whether p's legend lies inside its data area on the compact
// HalfChartWidth × HalfChartHeight canvas, shrinking the legend's text to 80% when that
// makes it fit (p's legend keeps the smaller text: call it after the full-size
// renders). A legend placed beside the plot there squeezes the data into a sliver and
// clips the title and axis label, so such a chart has no compact PNG and the PDF
// scales the full-size one down instead (see halfPNG).
func fitsHalfCanvas(p *plot.Plot) (ok bool) {
	defer func() {
		if recover() != nil { // a degenerate axis: no compact PNG
			ok = false
		}
	}()
	c := draw.New(vgsvg.New(HalfChartWidth, HalfChartHeight))
	if layoutLegend(c, p).Inside {
		return true
	}
	p.Legend.TextStyle.Font.Size *= 0.8
	return layoutLegend(c, p).Inside
}

// writeCharts writes each chart as NAME.svg and NAME.png into dir.
func writeCharts(dir string, charts []Chart) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range charts {
		if c.Err != nil {
			continue
		}
		if err := rundir.WriteFileAtomic(filepath.Join(dir, c.Name+".svg"), c.SVG); err != nil {
			return err
		}
		if err := rundir.WriteFileAtomic(filepath.Join(dir, c.Name+".png"), c.PNG); err != nil {
			return err
		}
	}
	return nil
}

// RenderSVG draws p as SVG text of size w×h (fonts referenced, not embedded).
func RenderSVG(p *plot.Plot, w, h vg.Length) (out []byte, err error) {
	defer recoverDraw(&err)
	c := vgsvg.New(w, h)
	drawChart(draw.New(c), p)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("render svg: %w", err)
	}
	return buf.Bytes(), nil
}

// RenderPNG draws p as a PNG of physical size w×h at dpi dots per inch.
func RenderPNG(p *plot.Plot, w, h vg.Length, dpi int) (out []byte, err error) {
	defer recoverDraw(&err)
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	drawChart(draw.New(c), p)
	b, err := encodePNG(c.Image())
	if err != nil {
		return nil, fmt.Errorf("render png: %w", err)
	}
	return b, nil
}

// recoverDraw turns a panic inside gonum/plot's drawing (e.g. a degenerate log axis)
// into an error.
func recoverDraw(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("draw chart: %v", r)
	}
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugify turns a segment name into a file-name-safe stem.
func slugify(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "segment"
	}
	return s
}

// newPlot is a plot with a title, axis labels and a grid (drawChart places the legend).
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Add(plotter.NewGrid())
	p.Title.TextStyle.Font.Size, p.Title.TextStyle.Font.Variant = vg.Points(11), chartFontVariant
	p.Legend.TextStyle.Font.Size, p.Legend.TextStyle.Font.Variant = vg.Points(8), chartFontVariant
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size, ax.Label.TextStyle.Font.Variant = vg.Points(9), chartFontVariant
		ax.Tick.Label.Font.Size, ax.Tick.Label.Font.Variant = vg.Points(8), chartFontVariant
		ax.Tick.Marker = niceTicks{}
	}
	return p
}

// niceTicks labels a linear axis every 1, 2, 2.5 or 5 × 10^k, about six labels per
// axis (gonum's default gives as few as three), with the fewest digits ("25").
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo) || !finite(hi) || !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
	}
	return ticks
}

// loadAxis labels the x axis at the measured loads (when there are at most 12 of
// them) and ends it just past the largest of them (or the capacity, if beyond), so
// model curves do not stretch the axis past the data.
func loadAxis(p *plot.Plot, a *analysis.Analysis, seg analysis.SegmentAnalysis) {
	var loads []float64
	for _, s := range seg.Steps {
		if finite(s.Load) && !slices.Contains(loads, s.Load) {
			loads = append(loads, s.Load)
		}
	}
	if len(loads) == 0 {
		return
	}
	slices.Sort(loads)
	hi := loads[len(loads)-1]
	if c := capacityLoad(a, seg.Capacity); finite(c) {
		hi = max(hi, c)
	}
	p.X.Min, p.X.Max = 0, 1.05*hi
	if len(loads) > 12 {
		return
	}
	p.X.Tick.Marker = loadTicks(loads, p.X.Max-p.X.Min)
}

// loadTicks marks each load (sorted), labelled unless it lies within 4% of the axis
// span of the last labelled one (neighbouring labels would print over each other).
func loadTicks(loads []float64, span float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	last := math.Inf(-1)
	for _, l := range loads {
		t := plot.Tick{Value: l}
		if l-last >= 0.04*span {
			t.Label, last = loadText(l), l
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// legendEntries and legendTextWidth measure the legend through its own Rectangle
// (entries are unexported): the height of one entry is the text height.
func legendEntries(p *plot.Plot) int {
	l := p.Legend
	enth := l.TextStyle.Rectangle("Mg").Max.Y
	r := l.Rectangle(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: 1000, Y: 1000}}})
	h := r.Max.Y - r.Min.Y
	if h <= 0 || enth <= 0 {
		return 0
	}
	return int(math.Round(float64((h + l.Padding) / (enth + l.Padding))))
}

// legendTextWidth is the widest legend entry's thumbnail plus text width, less the
// thumbnail (see legendBackground).
func legendTextWidth(p *plot.Plot) vg.Length {
	l := p.Legend
	r := l.Rectangle(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: 1000, Y: 1000}}})
	return r.Max.X - r.Min.X - l.ThumbnailWidth
}

// xys builds points from f over the steps, dropping non-finite points (and non-positive
// ones when positive is set, for log axes).
func xys(steps []analysis.StepStats, positive bool, f func(analysis.StepStats) (float64, float64)) plotter.XYs {
	var out plotter.XYs
	for _, s := range steps {
		x, y := f(s)
		if !finite(x) || !finite(y) || (positive && (x <= 0 || y <= 0)) {
			continue
		}
		out = append(out, plotter.XY{X: x, Y: y})
	}
	return out
}

// addSeries adds a line+points series in palette colour i (shape i, dashes d) if it has points.
func addSeries(p *plot.Plot, name string, pts plotter.XYs, i, d int) error {
	if len(pts) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("series %s: %w", name, err)
	}
	l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
	l.Dashes = plotutil.Dashes(d)
	l.Width = vg.Points(1.5)
	s.Shape = plotutil.Shape(i)
	p.Add(dataLine{l}, s)
	p.Legend.Add(name, l, s)
	return nil
}

// hline adds a dashed horizontal reference line at y.
func hline(p *plot.Plot, name string, y float64, c color.Color) {
	if !finite(y) {
		return
	}
	f := plotter.NewFunction(func(float64) float64 { return y })
	f.Color, f.Width, f.Dashes = c, vg.Points(1.2), []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(refLine{f, y})
	p.Legend.Add(name, f)
}

// vline adds a dashed vertical line at x from y0 to y1, with a legend entry.
func vline(p *plot.Plot, name string, x, y0, y1 float64, c color.Color) error {
	if !finite(x) || !finite(y0) || !finite(y1) {
		return nil
	}
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}})
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = c, vg.Points(1.2), []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(dataLine{l})
	p.Legend.Add(name, l)
	return nil
}

// useLogY switches the y axis to log10 when every finite value is positive and they
// span more than a factor of span (never when there is no finite value).
func useLogY(p *plot.Plot, ys []float64, span float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range ys {
		if !finite(y) {
			continue
		}
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	// No finite value (lo = +Inf) must not pass: a log axis over no data panics.
	if !finite(lo) || !(lo > 0) || hi/lo < span {
		return false
	}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks125{}
	return true
}

// logTicks125 marks a log axis at 1, 2 and 5 × 10^k (labelled) and the other integer
// multiples (unlabelled), so a range of less than a decade still gets labels.
type logTicks125 struct{}

// Ticks implements plot.Ticker.
func (logTicks125) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1.0; m <= 9; m++ {
			v := m * base
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

var (
	slaRed      = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	capacityCol = color.RGBA{R: 20, G: 120, B: 40, A: 255}
	bandCol     = color.NRGBA{R: 70, G: 130, B: 200, A: 70}
	shadeCols   = []color.Color{color.RGBA{R: 235, G: 235, B: 245, A: 255}, color.RGBA{R: 245, G: 245, B: 230, A: 255}}
)
