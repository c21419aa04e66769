package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// svgCircle matches a filled circle glyph of a gonum SVG (a path of two arcs):
// "M{cx+r},{cy}A{r},{r} 0 1 1 {cx-r},{cy}…" and its fill colour.
var svgCircle = regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)A([0-9.]+),[0-9.]+ 0 1 1 ([0-9.]+),[0-9.]+A[^"]*" style="fill:#([0-9A-F]{6})" />`)

// svgCircles are the centres of the SVG's filled circles of colour rgb and radius r.
func svgCircles(svg, rgb string, r float64) []plotter.XY {
	var out []plotter.XY
	for _, m := range svgCircle.FindAllStringSubmatch(svg, -1) {
		x1, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		rad, _ := strconv.ParseFloat(m[3], 64)
		x2, _ := strconv.ParseFloat(m[4], 64)
		if m[5] == rgb && math.Abs(rad-r) < 0.01 {
			out = append(out, plotter.XY{X: (x1 + x2) / 2, Y: y})
		}
	}
	return out
}

// TestTuneChartDrawsTheFront: charts/tune-pareto.svg draws the three front trials as
// blue circles (plus the legend's) placed as their values are, relative to each other
// (users 60, 112, 138; TTFT 120, 150, 260 ms), every measured trial as a grey circle
// (8, the failed two left out) and labels the baseline, the recommended trial and the
// other front points.
func TestTuneChartDrawsTheFront(t *testing.T) {
	lowDPI(t)
	dir := writeTuneFixture(t)
	if _, err := WriteTune(dir, []string{"charts"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, DirCharts, TuneChartName+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	blue := svgCircles(svg, "1F64B4", 3.6)
	if len(blue) != 4 {
		t.Fatalf("%d blue circles, want the 3 front points and the legend's: %v", len(blue), blue)
	}
	legend := blue[len(blue)-1] // drawn last
	pts := blue[:3]             // in the main objective's order
	rel := func(a, b, c float64) float64 { return (b - a) / (c - a) }
	if got, want := rel(pts[0].X, pts[1].X, pts[2].X), (112.0-60)/(138-60); math.Abs(got-want) > 0.005 {
		t.Errorf("front x spacing %.4f, want %.4f (users 60, 112, 138): %v", got, want, pts)
	}
	if got, want := rel(pts[0].Y, pts[1].Y, pts[2].Y), (150.0-120)/(260-120); math.Abs(got-want) > 0.005 {
		t.Errorf("front y spacing %.4f, want %.4f (TTFT 120, 150, 260 ms): %v", got, want, pts)
	}
	if legend.X > pts[0].X && legend.Y < pts[2].Y {
		t.Errorf("the last blue circle %v is inside the data: it is not the legend's", legend)
	}
	if grey := svgCircles(svg, "969696", 2.6); len(grey) != 8+1 {
		t.Errorf("%d grey circles, want the 8 measured trials and the legend's", len(grey))
	}
	for _, want := range []string{">recommended #4<", ">baseline #0<", ">#3<", ">#5<", "more is better", "less is better",
		"TTFT p95 at 32 users (ms)", "users within the SLA (users)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	if strings.Contains(svg, ">#4<") {
		t.Error("the recommended trial is labelled twice")
	}
}

// TestTuneFrontStepLine: the step line between front neighbours passes through the
// corner worse than both on each objective, whichever way each objective goes.
func TestTuneFrontStepLine(t *testing.T) {
	maxi, mini := plan.TuneObjective{Direction: plan.TuneMaximize}, plan.TuneObjective{Direction: plan.TuneMinimize}
	front := []tunePoint{{5, 60, 120}, {3, 112, 150}, {4, 138, 260}}
	got := tuneStepLine(front, maxi, mini)
	want := plotter.XYs{{X: 60, Y: 120}, {X: 60, Y: 150}, {X: 112, Y: 150}, {X: 112, Y: 260}, {X: 138, Y: 260}}
	if len(got) != len(want) {
		t.Fatalf("step line %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("vertex %d = %v, want %v", i, got[i], want[i])
		}
	}
	both := tuneStepLine([]tunePoint{{1, 10, 9}, {2, 20, 4}}, maxi, maxi) // users and a second maximised figure
	if both[1] != (plotter.XY{X: 10, Y: 4}) {
		t.Errorf("maximise × maximise corner %v, want (10, 4)", both[1])
	}
}

// TestTuneChartOneObjective: with one objective the chart is the capacity per trial
// number, the best so far as a step line through the measured trials in order.
func TestTuneChartOneObjective(t *testing.T) {
	dir := writeTuneFixture(t)
	res, err := rundir.ReadTuneResult(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.Objectives = res.Objectives[:1]
	if err := rundir.WriteTuneResult(dir, res); err != nil {
		t.Fatal(err)
	}
	in, err := readTuneInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := tunePoints(in)
	if !d.byTrial || len(d.all) != 8 || d.failed != 2 {
		t.Fatalf("one objective: byTrial %v, %d points, %d failed", d.byTrial, len(d.all), d.failed)
	}
	best := tuneBestSoFar(d.all, d.y)
	var tops []float64
	for _, pt := range best {
		if len(tops) == 0 || tops[len(tops)-1] != pt.Y {
			tops = append(tops, pt.Y)
		}
	}
	if want := []float64{100, 128, 138}; !floatsEqual(tops, want) {
		t.Errorf("best so far %v, want %v (trials 0, 1, 4)", tops, want)
	}
	c := buildTuneChart(in)
	if c.Err != nil || !strings.Contains(string(c.SVG), ">trial number<") || c.Title != "users within the SLA per trial" {
		t.Errorf("one-objective chart: %v, title %q", c.Err, c.Title)
	}
}

// floatsEqual reports whether a and b hold the same values.
func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
