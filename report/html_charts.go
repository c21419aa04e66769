package report

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/llmcap/llmcap/analysis"
)

// hitRadiusPt is the radius of a chart point's invisible hover target, in SVG points.
const hitRadiusPt = 5

// svgProlog matches what precedes a gonum SVG's root element (XML declaration, comment).
var svgProlog = regexp.MustCompile(`(?s)^.*?<svg `)

// svgSize matches the root element's fixed width and height.
var svgSize = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)

// htmlCharts turns the rendered charts into inline SVG keyed by name; the step charts
// (TTFT, ITL, throughput vs load) get a hover target with its values on every point.
func htmlCharts(in *input, charts []Chart) map[string]htmlChart {
	builds := map[string]chartSpec{}
	for _, s := range chartSpecs(in) {
		builds[s.name] = s
	}
	out := map[string]htmlChart{}
	for _, c := range charts {
		hc := htmlChart{Name: c.Name, Title: chartLabel(c), Caption: c.Caption}
		if c.Err != nil || len(c.SVG) == 0 {
			hc.Missing = chartMissingText(c)
			out[c.Name] = hc
			continue
		}
		var hits []hitPoint
		if seg, ok := segmentByName(in.a, c.Segment); ok {
			if spec, ok := builds[c.Name]; ok {
				hits = chartHits(in.a, seg, spec)
			}
		}
		hc.SVG = inlineSVG(c, hits)
		out[c.Name] = hc
	}
	return out
}

// segmentByName is the segment (or the mix) named name.
func segmentByName(a *analysis.Analysis, name string) (analysis.SegmentAnalysis, bool) {
	for _, s := range allSegments(a) {
		if s.Segment == name && name != "" {
			return s, true
		}
	}
	return analysis.SegmentAnalysis{}, false
}

// inlineSVG is a gonum SVG ready to sit in the page: no XML prolog, scaling with the
// page (its viewBox kept), labelled with its title, with the hover targets appended.
func inlineSVG(c Chart, hits []hitPoint) template.HTML {
	s := svgProlog.ReplaceAllString(string(c.SVG), "<svg ")
	s = svgSize.ReplaceAllString(s, fmt.Sprintf(`<svg class="chart" role="img" data-chart="%s" aria-label="%s"`,
		template.HTMLEscapeString(c.Name), template.HTMLEscapeString(chartLabel(c))))
	if len(hits) > 0 {
		var b strings.Builder
		b.WriteString(`<g class="hits">`)
		for _, h := range hits {
			tip := template.HTMLEscapeString(h.tip)
			fmt.Fprintf(&b, `<circle class="hit" cx="%.2f" cy="%.2f" r="%d" data-tip="%s"><title>%s</title></circle>`, h.x, h.y, hitRadiusPt, tip, tip)
		}
		b.WriteString(`</g>`)
		if i := strings.LastIndex(s, "</svg>"); i >= 0 {
			s = s[:i] + b.String() + s[i:]
		}
	}
	return template.HTML(s) // gonum's own markup (titles escaped by its writer) and ours, escaped above
}

// hitPoint is a hover target in the SVG's coordinates (points, y down) and its text.
type hitPoint struct {
	x, y float64
	tip  string
}

// hitValue is one plotted value of a step and its label ("TTFT p95").
type hitValue struct {
	label, unit string
	v           float64
}

// stepValues are the values a step chart of kind plots for step s (nil for charts
// without per-step points).
func stepValues(kind string, s analysis.StepStats) []hitValue {
	switch kind {
	case "ttft":
		t := shown(s.TTFTMs)
		return []hitValue{{"TTFT p50", "ms", t.P50}, {"TTFT p95", "ms", t.P95}, {"TTFT p99", "ms", t.P99}}
	case "itl":
		t := shown(s.ITLMs)
		return []hitValue{{"ITL p50", "ms", t.P50}, {"ITL p95", "ms", t.P95}}
	case "throughput":
		return []hitValue{{"throughput", "req/s", s.RequestThroughput}, {"steady-state throughput", "req/s", s.LittleThroughputRps},
			{"goodput", "req/s", s.Goodput}}
	}
	return nil
}

// chartHits places a hover target on each plotted value of each step, through the
// same plot's data transform as its SVG (rebuilt from spec, laid out at the chart's
// size), so the targets sit on the drawn points on linear and log axes alike.
func chartHits(a *analysis.Analysis, seg analysis.SegmentAnalysis, spec chartSpec) (hits []hitPoint) {
	if stepValues(spec.kind, analysis.StepStats{}) == nil {
		return nil
	}
	defer func() {
		if recover() != nil { // a degenerate axis: the chart stays, without hover targets
			hits = nil
		}
	}()
	p, err := spec.build()
	if err != nil {
		return nil
	}
	c := draw.New(vgsvg.New(ChartWidth, ChartHeight))
	da := p.DataCanvas(layoutLegend(c, p).Plot) // the canvas drawChart draws the plot on
	trX, trY := p.Transforms(&da)
	_, logY := p.Y.Scale.(plot.LogScale)
	_, logX := p.X.Scale.(plot.LogScale)
	h := float64(ChartHeight.Points())
	for _, s := range seg.Steps {
		vals := stepValues(spec.kind, s)
		for _, v := range vals {
			if !finite(v.v) || !finite(s.Load) || (logY && v.v <= 0) || (logX && s.Load <= 0) ||
				v.v < p.Y.Min || v.v > p.Y.Max || s.Load < p.X.Min || s.Load > p.X.Max {
				continue
			}
			hits = append(hits, hitPoint{x: float64(trX(s.Load).Points()), y: h - float64(trY(v.v).Points()), tip: stepTip(a, s, v, vals)})
		}
	}
	return hits
}

// stepTip is the hover text of value v of step s: the value and the load, then every
// value the chart shows for that step and its verdict: "TTFT p95 300 ms at concurrency
// 16 (TTFT p50 120 ms, TTFT p95 300 ms, TTFT p99 410 ms; SLA met)".
func stepTip(a *analysis.Analysis, s analysis.StepStats, v hitValue, vals []hitValue) string {
	var b strings.Builder
	load := loadName(a) + " " + loadText(s.Load)
	if isRate(a) {
		load = loadText(s.Load) + " req/s"
	}
	fmt.Fprintf(&b, "%s %s %s at %s (", v.label, auto(v.v), v.unit, load)
	for i, o := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s %s", o.label, auto(o.v), o.unit)
	}
	if s.MeetsSLA {
		b.WriteString("; SLA met)")
	} else {
		b.WriteString("; SLA broken)")
	}
	return b.String()
}
