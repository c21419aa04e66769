package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Legend placement: the legend goes into a corner of the data area that holds no
// data (no point, label, or line of a data series or reference line), else outside
// the data area, right of it. Every series the charts draw reports where it draws
// through GlyphBoxes (dataLine, refLine, scatters and labels), which is what the
// placement checks against.

// legendPad is the white margin around the legend's entries, in the box that hides
// the grid under an inside legend and in the collision check.
const legendPad = vg.Length(4)

// legendGap separates a legend placed outside from the data area.
const legendGap = vg.Length(6)

// legendLayout is where a chart's legend goes on a canvas: Box is the legend with its
// margin, in canvas coordinates; Inside says whether it lies in a data corner (top,
// left say which), else it lies right of the data area, which Plot is then narrowed to.
type legendLayout struct {
	Box       vg.Rectangle
	Inside    bool
	Top, Left bool
	// Plot is the canvas the plot itself is drawn on (all of c when Inside).
	Plot draw.Canvas
}

// layoutLegend places p's legend on c: the first corner of the data area (top left,
// top right, bottom right, bottom left) whose legend box holds none of p's glyph
// boxes, else right of a narrowed plot. A legend without entries is Inside with an
// empty Box.
func layoutLegend(c draw.Canvas, p *plot.Plot) legendLayout {
	n := legendEntries(p)
	if n == 0 {
		return legendLayout{Inside: true, Top: true, Left: true, Plot: c}
	}
	w, h := legendSize(p, n)
	dc := p.DataCanvas(c)
	boxes := canvasBoxes(dc, p.GlyphBoxes(p))
	for _, k := range []struct{ top, left bool }{{true, true}, {true, false}, {false, false}, {false, true}} {
		r := cornerBox(dc.Rectangle, w, h, k.top, k.left)
		if fits(r, dc.Rectangle) && !hitsAny(r, boxes) {
			return legendLayout{Box: r, Inside: true, Top: k.top, Left: k.left, Plot: c}
		}
	}
	pc := c
	pc.Max.X -= w + legendGap
	pdc := p.DataCanvas(pc)
	x0 := pc.Max.X + legendGap
	r := vg.Rectangle{Min: vg.Point{X: x0, Y: pdc.Max.Y - h}, Max: vg.Point{X: x0 + w, Y: pdc.Max.Y}}
	return legendLayout{Box: r, Top: true, Left: true, Plot: pc}
}

// legendSize is the legend's width and height with its margin (n entries).
func legendSize(p *plot.Plot, n int) (w, h vg.Length) {
	l := p.Legend
	enth := l.TextStyle.Rectangle("Mg").Max.Y
	w = l.ThumbnailWidth + legendTextWidth(p) + 2*legendPad
	h = vg.Length(n)*enth + vg.Length(n-1)*l.Padding + l.TextStyle.FontExtents().Descent + 2*legendPad
	return w, h
}

// cornerBox is a w×h box in a corner of r, inset by 2 points from its edges.
func cornerBox(r vg.Rectangle, w, h vg.Length, top, left bool) vg.Rectangle {
	const inset = vg.Length(2)
	var b vg.Rectangle
	b.Min.X = r.Min.X + inset
	if !left {
		b.Min.X = r.Max.X - inset - w
	}
	b.Min.Y = r.Min.Y + inset
	if top {
		b.Min.Y = r.Max.Y - inset - h
	}
	b.Max = vg.Point{X: b.Min.X + w, Y: b.Min.Y + h}
	return b
}

// fits reports whether b lies within r.
func fits(b, r vg.Rectangle) bool {
	return b.Min.X >= r.Min.X && b.Max.X <= r.Max.X && b.Min.Y >= r.Min.Y && b.Max.Y <= r.Max.Y
}

// canvasBoxes turns glyph boxes (normalised positions plus an extent) into canvas
// rectangles on the data canvas dc; a zero-size box is a point.
func canvasBoxes(dc draw.Canvas, gbs []plot.GlyphBox) []vg.Rectangle {
	out := make([]vg.Rectangle, 0, len(gbs))
	for _, b := range gbs {
		if !finite(b.X) || !finite(b.Y) {
			continue
		}
		at := vg.Point{X: dc.X(b.X), Y: dc.Y(b.Y)}
		out = append(out, vg.Rectangle{Min: at.Add(b.Min), Max: at.Add(b.Max)})
	}
	return out
}

// hitsAny reports whether r overlaps (or touches) one of boxes.
func hitsAny(r vg.Rectangle, boxes []vg.Rectangle) bool {
	for _, b := range boxes {
		if b.Min.X <= r.Max.X && b.Max.X >= r.Min.X && b.Min.Y <= r.Max.Y && b.Max.Y >= r.Min.Y {
			return true
		}
	}
	return false
}

// drawChart draws p on c with its legend placed by layoutLegend; an inside legend
// gets a white box that hides the grid under it. p's legend is restored afterwards.
func drawChart(c draw.Canvas, p *plot.Plot) {
	lay := layoutLegend(c, p)
	leg := p.Legend
	empty := plot.NewLegend()
	p.Legend = empty
	defer func() { p.Legend = leg }()
	p.Draw(lay.Plot)
	if lay.Box == (vg.Rectangle{}) {
		return
	}
	if lay.Inside {
		c.SetColor(color.White)
		c.Fill(lay.Box.Path())
	}
	inner := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: lay.Box.Min.Add(vg.Point{X: legendPad, Y: legendPad}),
		Max: lay.Box.Max.Sub(vg.Point{X: legendPad, Y: legendPad}),
	}}
	leg.Top, leg.Left = true, lay.Left || !lay.Inside
	leg.XOffs, leg.YOffs = 0, 0
	leg.Draw(inner)
}

// dataLine is a line of a data series or model curve: a plotter.Line that reports the
// points along it (every half percent of the axes) as zero-size glyph boxes, so the
// legend placement sees the line, not only its vertices. Zero-size boxes do not pad
// the axes.
type dataLine struct{ *plotter.Line }

// GlyphBoxes implements plot.GlyphBoxer.
func (l dataLine) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	for i := range l.XYs {
		x1, y1 := p.X.Norm(l.XYs[i].X), p.Y.Norm(l.XYs[i].Y)
		if i == 0 {
			out = append(out, plot.GlyphBox{X: x1, Y: y1})
			continue
		}
		x0, y0 := p.X.Norm(l.XYs[i-1].X), p.Y.Norm(l.XYs[i-1].Y)
		out = appendSegment(out, x0, y0, x1, y1)
	}
	return out
}

// appendSegment appends points every 0.5% along the normalised segment (x0, y0)–(x1, y1),
// clipped to the unit square, ending at (x1, y1).
func appendSegment(out []plot.GlyphBox, x0, y0, x1, y1 float64) []plot.GlyphBox {
	if !finite(x0) || !finite(y0) || !finite(x1) || !finite(y1) {
		return out
	}
	n := int(math.Ceil(math.Max(math.Abs(x1-x0), math.Abs(y1-y0)) / 0.005))
	n = min(max(n, 1), 4000)
	for k := 1; k <= n; k++ {
		t := float64(k) / float64(n)
		x, y := x0+t*(x1-x0), y0+t*(y1-y0)
		if x >= 0 && x <= 1 && y >= 0 && y <= 1 {
			out = append(out, plot.GlyphBox{X: x, Y: y})
		}
	}
	return out
}

// refLine is a horizontal reference line at Y (an SLA threshold, a slot limit) across
// the plot, reporting its points like dataLine.
type refLine struct {
	*plotter.Function
	Y float64
}

// GlyphBoxes implements plot.GlyphBoxer.
func (l refLine) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	y := p.Y.Norm(l.Y)
	return appendSegment([]plot.GlyphBox{{X: 0, Y: y}}, 0, y, 1, y)
}
