package report

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// chartRunNames are the run directories under testdata/charts: the README demo on the
// simulator (a users ladder, mix) and a real Ollama run (stories260K, concurrency
// ladder), with their analysis.json, records (per-token fields dropped) and the demo's
// running/waiting/KV gauges.
var chartRunNames = []string{"demo", "ollama"}

// chartRun unpacks testdata/charts/NAME into a temporary run directory and loads it.
func chartRun(t *testing.T, name string) *input {
	t.Helper()
	src, dir := filepath.Join("testdata", "charts", name), t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out := e.Name()
		if strings.HasSuffix(out, ".gz") {
			zr, err := gzip.NewReader(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
			out = strings.TrimSuffix(out, ".gz")
		}
		if err := os.WriteFile(filepath.Join(dir, out), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a analysis.Analysis
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s analysis.json: %v", name, err)
	}
	in, err := loadInput(dir, &a)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// drawnAt evaluates a polyline as the chart draws it at x: straight between vertices
// on the axis' scale (log10 in y when logY).
func drawnAt(pts plotter.XYs, x float64, logY bool) (float64, bool) {
	if !logY {
		return polylineAt(pts, x)
	}
	var logs plotter.XYs
	for _, p := range pts {
		logs = append(logs, plotter.XY{X: p.X, Y: math.Log10(p.Y)})
	}
	y, ok := polylineAt(logs, x)
	return math.Pow(10, y), ok
}

// ttftP95Threshold is the run's TTFT p95 SLA threshold in ms (NaN when none).
func ttftP95Threshold(a *analysis.Analysis) float64 {
	for _, c := range a.Constraints {
		if c.Metric == "ttft" && c.Stat == "p95" && c.ThresholdMs > 0 {
			return c.ThresholdMs
		}
	}
	return math.NaN()
}

// The TTFT p95 line as drawn (on the chart's log axis) crosses the SLA where the
// measured values, interpolated linearly in ms between the steps, cross it (within
// 1%), and that crossing lies in the capacity's range, right of the capacity line:
// the capacity (the largest passing load) sits below the SLA, the first failing load
// above it. Before, the segments were straight on the log axis and met the SLA
// elsewhere than the analysis' interpolation.
func TestTTFTLineCrossesSLAInCapacityRange(t *testing.T) {
	for _, name := range chartRunNames {
		in := chartRun(t, name)
		thr := ttftP95Threshold(in.a)
		checked := 0
		for _, seg := range allSegments(in.a) {
			c := seg.Capacity
			if c.Method != analysis.MethodMeasured || c.FailLoad <= c.PassLoad {
				continue
			}
			var ys []float64
			for _, s := range seg.Steps {
				ys = append(ys, shown(s.TTFTMs).P50, shown(s.TTFTMs).P95, shown(s.TTFTMs).P99)
			}
			logY := useLogY(plot.New(), ys, 20)
			pts := xys(seg.Steps, logY, func(s analysis.StepStats) (float64, float64) { return s.Load, shown(s.TTFTMs).P95 })
			drawn := curveLine(pts, logY)
			pass, _ := polylineAt(pts, c.PassLoad)
			fail, _ := polylineAt(pts, c.FailLoad)
			if !(pass <= thr && fail > thr) {
				t.Fatalf("%s/%s: p95 %v at pass %v, %v at fail %v, SLA %v", name, seg.Segment, pass, c.PassLoad, fail, c.FailLoad, thr)
			}
			cross := c.PassLoad + (thr-pass)/(fail-pass)*(c.FailLoad-c.PassLoad) // linear in ms
			got, ok := drawnAt(drawn, cross, logY)
			if !ok || math.Abs(got-thr) > 0.01*thr {
				t.Errorf("%s/%s (log y %v): drawn p95 at the crossing %.2f = %.1f ms, want the SLA %v ms ±1%%", name, seg.Segment, logY, cross, got, thr)
			}
			if at, _ := drawnAt(drawn, capacityLoad(in.a, c), logY); at > thr {
				t.Errorf("%s/%s: drawn p95 at the capacity line %v = %v ms, above the SLA", name, seg.Segment, capacityLoad(in.a, c), at)
			}
			if cross < c.RangeLow || cross > c.FailLoad {
				t.Errorf("%s/%s: crossing %v outside the capacity range %v–%v (fail %v)", name, seg.Segment, cross, c.RangeLow, c.RangeHigh, c.FailLoad)
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: no segment with a measured capacity bracket was checked", name)
		}
	}
}

// The throughput chart marks the throughput at capacity the report states
// (Capacity.ThroughputAtCapacity) at the capacity load, names it in the legend, and
// joins goodput only across the leading steps that met the SLA, so no straight
// segment from a passing step to a failing one (goodput near 0) runs under the
// capacity point.
func TestThroughputChartShowsThroughputAtCapacity(t *testing.T) {
	for _, name := range chartRunNames {
		in := chartRun(t, name)
		for _, seg := range allSegments(in.a) {
			c := seg.Capacity
			pt, ok := throughputAtCapacityPoint(in.a, c)
			if !ok {
				continue
			}
			if pt.X != capacityLoad(in.a, c) || pt.Y != c.ThroughputAtCapacity {
				t.Errorf("%s/%s: marked (%v, %v), want (%v, %v)", name, seg.Segment, pt.X, pt.Y, capacityLoad(in.a, c), c.ThroughputAtCapacity)
			}
			p, err := ThroughputPlot(in.a, seg)
			if err != nil {
				t.Fatal(err)
			}
			svg, err := RenderSVG(p, ChartWidth, ChartHeight)
			if err != nil {
				t.Fatal(err)
			}
			if want := "at capacity: " + auto(c.ThroughputAtCapacity) + " req/s"; !strings.Contains(string(svg), want) {
				t.Errorf("%s/%s: throughput chart lacks %q", name, seg.Segment, want)
			}
			for _, want := range []string{throughputWindowName, throughputSteadyName} {
				if !strings.Contains(string(svg), want) {
					t.Errorf("%s/%s: throughput chart lacks legend %q", name, seg.Segment, want)
				}
			}
			joined, alone := goodputSeries(seg.Steps)
			for _, s := range seg.Steps {
				for _, j := range joined {
					if j.X == s.Load && !s.MeetsSLA {
						t.Errorf("%s/%s: goodput joined at failing load %v", name, seg.Segment, s.Load)
					}
				}
			}
			if c.Method == analysis.MethodMeasured && c.FailLoad > 0 {
				if last := joined[len(joined)-1]; last.X != c.PassLoad {
					t.Errorf("%s/%s: goodput line ends at %v, want the capacity step %v", name, seg.Segment, last.X, c.PassLoad)
				}
				if len(alone) == 0 || alone[0].X != c.FailLoad {
					t.Errorf("%s/%s: first unjoined goodput point %v, want the failing load %v", name, seg.Segment, alone, c.FailLoad)
				}
			}
		}
	}
	for sched, want := range map[string]string{plan.ScheduleConcurrency: "Little's law", plan.ScheduleUsers: "users sent", plan.ScheduleRate: "offered rate"} {
		if c := throughputCaption(sched); !strings.Contains(c, want) || !strings.Contains(c, "drain") {
			t.Errorf("throughputCaption(%s) does not explain both throughputs (want %q and the drain): %q", sched, want, c)
		}
	}
}

// Every chart of the demo and the Ollama run places its legend where it covers no
// data: inside the data area only on a box that no point, label or line (data series,
// model curve, SLA or capacity line) enters; else right of the data area, inside the
// chart. Before, the Ollama throughput legend hid the points at concurrency 1–4 and
// the server-queue legend hid step labels.
func TestLegendsCoverNoData(t *testing.T) {
	for _, name := range chartRunNames {
		in := chartRun(t, name)
		specs := chartSpecs(in)
		if len(specs) < 6 {
			t.Fatalf("%s: only %d charts", name, len(specs))
		}
		outside := 0
		for _, s := range specs {
			p, err := s.build()
			if err != nil {
				continue // charts without data are left out of the report
			}
			c := draw.New(vgimg.New(ChartWidth, ChartHeight))
			lay := layoutLegend(c, p)
			dc := p.DataCanvas(lay.Plot)
			if lay.Box.Max.X > c.Max.X || lay.Box.Min.X < c.Min.X || lay.Box.Min.Y < c.Min.Y || lay.Box.Max.Y > c.Max.Y {
				t.Errorf("%s %s: legend %v leaves the chart %v", name, s.name, lay.Box, c.Rectangle)
			}
			if !lay.Inside {
				outside++
				if lay.Box.Min.X < dc.Max.X {
					t.Errorf("%s %s: outside legend %v overlaps the data area %v", name, s.name, lay.Box, dc.Rectangle)
				}
				continue
			}
			boxes := canvasBoxes(dc, p.GlyphBoxes(p))
			if len(boxes) < 10 {
				t.Errorf("%s %s: only %d glyph boxes: the series do not report where they draw", name, s.name, len(boxes))
			}
			for _, b := range boxes {
				if hitsAny(lay.Box, []vg.Rectangle{b}) {
					t.Errorf("%s %s: legend %v covers data at %v", name, s.name, lay.Box, b)
					break
				}
			}
			// The step points themselves, from the analysis, not from the plot.
			if s.segment != "" && (s.kind == "throughput" || s.kind == "ttft") {
				fx, fy := p.Transforms(&dc)
				for _, seg := range allSegments(in.a) {
					if seg.Segment != s.segment {
						continue
					}
					for _, st := range seg.Steps {
						y := st.RequestThroughput
						if s.kind == "ttft" {
							y = shown(st.TTFTMs).P95
						}
						x, yy := fx(st.Load), fy(y)
						if x >= lay.Box.Min.X && x <= lay.Box.Max.X && yy >= lay.Box.Min.Y && yy <= lay.Box.Max.Y {
							t.Errorf("%s %s: legend covers the step at load %v", name, s.name, st.Load)
						}
					}
				}
			}
		}
		t.Logf("%s: %d charts, %d with the legend outside", name, len(specs), outside)
	}
}

// The CDF's x axis ends near its data (at most 1.3× past the largest TTFT, and not
// below the smallest ÷ 1.3), not 10–20× past it; the KV cache axis scales to the
// peak usage, with the full cache line only when in range.
func TestCDFAndKVAxesFitTheData(t *testing.T) {
	for _, name := range chartRunNames {
		in := chartRun(t, name)
		records := inputRecords(t, in)
		for _, seg := range allSegments(in.a) {
			p, err := CDFPlot(in.a, seg, records)
			if err != nil {
				// Every segment of both runs has successful requests, also a segment
				// analysed from the mix's records (the demo's short, medium, long).
				t.Errorf("%s cdf %s: %v", name, seg.Segment, err)
				continue
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			picks := map[int]bool{}
			for _, s := range cdfSteps(in.a, seg) {
				picks[s.Step] = true
			}
			for i := range records {
				r := &records[i]
				if picks[r.Step] && recordOfSegment(r, seg) && measured(r) && r.TTFTMs != nil {
					lo, hi = math.Min(lo, *r.TTFTMs), math.Max(hi, *r.TTFTMs)
				}
			}
			if p.X.Max > 1.3*hi || p.X.Max < hi || p.X.Min > lo || p.X.Min < lo/1.3 {
				t.Errorf("%s cdf %s: x axis %v–%v for TTFT %v–%v ms", name, seg.Segment, p.X.Min, p.X.Max, lo, hi)
			}
		}
	}
	in := chartRun(t, "demo")
	peak := maxY(serverKVSeries(in.metrics))
	p, err := ServerKVPlot(in.metrics)
	if err != nil {
		t.Fatal(err)
	}
	if peak <= 0 || peak > 10 || p.Y.Max != kvAxisMax(peak) || p.Y.Max > 4*peak || p.Y.Max < peak {
		t.Errorf("KV axis to %v%% for a peak of %v%%", p.Y.Max, peak)
	}
	if !strings.Contains(p.Title.Text, "off the scale") {
		t.Errorf("KV title %q does not say the full cache is off the scale", p.Title.Text)
	}
	for _, c := range []struct{ peak, want float64 }{{4.6, 10}, {0.1, 1}, {12, 50}, {30, 105}, {45, 105}, {97, 105}} {
		if got := kvAxisMax(c.peak); got != c.want {
			t.Errorf("kvAxisMax(%v) = %v, want %v", c.peak, got, c.want)
		}
	}
}
