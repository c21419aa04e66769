package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmcap/llmcap/analysis"
)

// leftOut reports whether the analysis left step s out of the fit and the capacity
// (the embedded simulator ran late in it: StepStats.SimulatorLate). The charts draw
// such a step as a hollow grey marker outside the lines; the step table says "–".
func leftOut(s analysis.StepStats) bool { return s.SimulatorLate }

// leftOutLegend is the legend entry of the left-out steps' markers.
const leftOutLegend = "left out (ran late)"

// evidenceSteps splits steps into those the analysis counts and those it left out
// (leftOut), each in order.
func evidenceSteps(steps []analysis.StepStats) (kept, out []analysis.StepStats) {
	for _, s := range steps {
		if leftOut(s) {
			out = append(out, s)
		} else {
			kept = append(kept, s)
		}
	}
	return kept, out
}

// leftOutGrey is the colour of the left-out steps' hollow markers.
var leftOutGrey = color.RGBA{R: 140, G: 140, B: 140, A: 255}

// addLeftOut draws the points of left-out steps as hollow grey rings, not joined,
// under one legend entry (none when pts is empty).
func addLeftOut(p *plot.Plot, pts plotter.XYs) error {
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("left-out steps: %w", err)
	}
	s.Color, s.Shape, s.Radius = leftOutGrey, draw.RingGlyph{}, vg.Points(3.5)
	p.Add(s)
	p.Legend.Add(leftOutLegend, s)
	return nil
}

// slaOffScaleFactor: an SLA threshold more than this many times the chart's largest
// value is off the scale: drawing it would flatten the data on the axis floor, so the
// chart leaves the line out and names the threshold in its title instead.
const slaOffScaleFactor = 5.0

// slaOffScale reports whether threshold (ms) is off the scale of values ys (more than
// slaOffScaleFactor × their largest finite value; false when there is none).
func slaOffScale(threshold float64, ys []float64) bool {
	hi := math.Inf(-1)
	for _, y := range ys {
		if finite(y) {
			hi = math.Max(hi, y)
		}
	}
	return finite(threshold) && finite(hi) && hi > 0 && threshold > slaOffScaleFactor*hi
}

// offScaleNote is the title suffix for SLA thresholds left off the scale, e.g.
// " (SLA 2,000 ms is off the scale)"; "" when there is none.
func offScaleNote(thresholdsMs []float64) string {
	if len(thresholdsMs) == 0 {
		return ""
	}
	s := ""
	for i, t := range thresholdsMs {
		if i > 0 {
			s += ", "
		}
		s += auto(t) + " ms"
	}
	verb := "is"
	if len(thresholdsMs) > 1 {
		verb = "are"
	}
	return fmt.Sprintf(" (SLA %s %s off the scale)", s, verb)
}

// slaLines draws the SLA thresholds of metric (and stat, when not "") as dashed red
// lines, except those off the scale of ys, which it returns (for offScaleNote).
func slaLines(p *plot.Plot, a *analysis.Analysis, metric, stat string, ys []float64) (offScale []float64) {
	for _, c := range a.Constraints {
		if c.Metric != metric || (stat != "" && c.Stat != stat) || !(c.ThresholdMs > 0) {
			continue
		}
		if slaOffScale(c.ThresholdMs, ys) {
			offScale = append(offScale, c.ThresholdMs)
			continue
		}
		hline(p, "SLA "+constraintText(c), c.ThresholdMs, slaRed)
	}
	return offScale
}

// mixShare is, for a segment analysed from its share of the mix (FromMix), the mean
// share of the mix's measured requests its steps drew (StepStats.MixShare, 0–1); 0
// for a segment with steps of its own. The model fitted to such a segment predicts
// the whole mix's throughput (its loads are the mix's), so the charts scale it by
// this share to compare it with the segment's own throughputs.
func mixShare(seg analysis.SegmentAnalysis) float64 {
	if !seg.FromMix {
		return 0
	}
	var sum float64
	n := 0
	for _, s := range seg.Steps {
		if s.MixShare > 0 && finite(s.MixShare) {
			sum += s.MixShare
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// modelThroughputName is the throughput chart's legend entry for the model's line:
// for a segment drawn from the mix it says the line is the mix's × the share.
func modelThroughputName(share float64) string {
	if share > 0 {
		return fmt.Sprintf("model throughput (mix × %s share)", shareText(share))
	}
	return "model throughput"
}
