package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
	"gonum.org/v1/plot/plotutil"

	"github.com/llmcap/llmcap/analysis"
)

// chartMarkerSymbols are the native charts' marker symbols, one per series in turn.
var chartMarkerSymbols = []string{"circle", "square", "triangle", "diamond", "x", "star"}

// chartSeriesRGB is series i's colour as RRGGBB hex: the PDF charts' palette
// (gonum's plotutil.Color), so a segment has the same colour in both reports.
func chartSeriesRGB(i int) string {
	c := color.RGBAModel.Convert(plotutil.Color(i)).(color.RGBA)
	return fmt.Sprintf("%02X%02X%02X", c.R, c.G, c.B)
}

// chartSeries is one segment's native chart series: an explicit solid line, a filled
// marker and a colour. excelize's defaults for a scatter series are a line with
// <a:noFill/> and a marker whose fill is empty, which LibreOffice (and previewers that
// do not apply the theme) draw as nothing; every part is therefore spelled out.
func chartSeries(i int, name, xRef, yRef string) excelize.ChartSeries {
	rgb := chartSeriesRGB(i)
	fill := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{rgb}}
	return excelize.ChartSeries{
		Name: name, Categories: xRef, Values: yRef,
		Fill: fill, // the series colour: excelize draws the solid line with it
		Line: excelize.LineOptions{Type: excelize.LineSolid, Width: 1.75, Smooth: false},
		Marker: excelize.ChartMarker{Symbol: chartMarkerSymbols[i%len(chartMarkerSymbols)], Size: 6, Fill: fill,
			Border: excelize.LineOptions{Type: excelize.LineSolid, Fill: fill, Width: 0.75}},
	}
}

// writeChartsSheet adds native scatter charts (TTFT p95, throughput and ITL p95 vs
// load, one series per segment) that reference the Steps sheet. They live on their own
// normal sheet: charts on a stream-written sheet are silently dropped by excelize.
func writeChartsSheet(f *excelize.File, a *analysis.Analysis) error {
	names, first, last := segmentRows(a)
	if len(names) == 0 {
		return f.SetCellValue(SheetCharts, "A1", "No steps to chart.")
	}
	if !anySucceeded(a) {
		return f.SetCellValue(SheetCharts, "A1", noSuccessText+".")
	}
	logX := !isRate(a)
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			logX = logX && s.Load >= 1
		}
	}
	ttftLog := 0.0
	if ttftSpan(a) > logSpan {
		ttftLog = 10
	}
	charts := []struct {
		cell, title, yTitle string
		col                 int
		logY                float64 // the y axis's log base (0: linear)
	}{
		{"A1", "TTFT p95 vs load", "TTFT p95 (ms)", stepsColTTFTp95, ttftLog},
		{"A22", "Throughput vs load", "requests/s", stepsColThroughput, 0},
		{"A43", "ITL p95 vs load", "ITL p95 (ms)", stepsColITLp95, 0},
	}
	for _, c := range charts {
		var series []excelize.ChartSeries
		for i := range names {
			series = append(series, chartSeries(i,
				fmt.Sprintf("%s!%s", SheetSteps, cellName(1, first[i], true)), // the segment's name cell
				fmt.Sprintf("%s!%s:%s", SheetSteps, cellName(stepsColLoad, first[i], true), cellName(stepsColLoad, last[i], true)),
				fmt.Sprintf("%s!%s:%s", SheetSteps, cellName(c.col, first[i], true), cellName(c.col, last[i], true))))
		}
		xAxis := excelize.ChartAxis{Font: axisFont, Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: loadLabel(a)}}}}
		if logX {
			xAxis.LogBase = 2
		}
		err := f.AddChart(SheetCharts, c.cell, &excelize.Chart{
			Type: excelize.Scatter, Series: series,
			Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: c.title}}},
			XAxis: xAxis,
			YAxis: excelize.ChartAxis{MajorGridLines: true, LogBase: c.logY, Font: axisFont,
				Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: c.yTitle}}}},
			Dimension: excelize.ChartDimension{Width: 720, Height: 400},
			Legend:    excelize.ChartLegend{Position: "bottom"}, ShowBlanksAs: "gap",
		})
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.title, err)
		}
	}
	numericXValues(f)
	if err := cacheChartValues(f); err != nil {
		return err
	}
	return fitToPage(f, SheetCharts, "A1:L63", false)
}

// axisFont is the native charts' tick labels: dark, not the pale default.
var axisFont = excelize.Font{Color: "333333", Size: 9}

// logSpan is the ratio of the largest to the smallest TTFT p95 above which the TTFT
// chart's y axis is logarithmic: a queue's TTFT grows by orders of magnitude past
// capacity, which a linear axis flattens to zero below the knee.
const logSpan = 20

// ttftSpan is the ratio of the largest to the smallest positive TTFT p95 of every
// step charted (0 with none).
func ttftSpan(a *analysis.Analysis) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			if v := shown(s.TTFTMs).P95; finite(v) && v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == 0 {
		return 0
	}
	return hi / lo
}

// xValStrRef matches a scatter series' x values written as a text reference.
var xValStrRef = regexp.MustCompile(`<xVal><strRef>(<f>[^<]*</f>)</strRef></xVal>`)

// numericXValues rewrites the scatter charts' x values from text references (how
// excelize writes them) to numeric references, so spreadsheet programs plot the
// points against the load's value rather than as evenly spaced categories.
func numericXValues(f *excelize.File) {
	eachChartPart(f, func(b []byte) []byte {
		return xValStrRef.ReplaceAll(b, []byte(`<xVal><numRef>$1</numRef></xVal>`))
	})
}

// eachChartPart replaces the XML of every chart part (xl/charts/chartN.xml) of f by
// edit's result.
func eachChartPart(f *excelize.File, edit func([]byte) []byte) {
	f.Pkg.Range(func(k, v any) bool {
		name, _ := k.(string)
		b, ok := v.([]byte)
		if ok && strings.HasPrefix(name, "xl/charts/chart") {
			f.Pkg.Store(name, edit(b))
		}
		return true
	})
}

// chartRef matches a chart's cell reference (series name, x or y values) with no
// cached values or excelize's empty <numCache>.
var chartRef = regexp.MustCompile(`<(numRef|strRef)><f>([^<]*)</f>(?:<numCache><formatCode></formatCode></numCache>)?</(?:numRef|strRef)>`)

// cacheChartValues writes each chart reference's cached values (<numCache>,
// <strCache>) from the cells it refers to. excelize writes only the reference, with an
// empty cache; Excel and LibreOffice re-read the cells, but previewers and converters
// that draw from the cache (as the file format allows) then show an empty chart. The
// cache holds exactly the referenced cells' values: a blank or text cell is a gap
// (no point), as in the chart's "show blanks as gap".
func cacheChartValues(f *excelize.File) error {
	var firstErr error
	eachChartPart(f, func(b []byte) []byte {
		return chartRef.ReplaceAllFunc(b, func(m []byte) []byte {
			sub := chartRef.FindSubmatch(m)
			cache, err := chartCache(f, string(sub[1]), string(sub[2]))
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return m
			}
			return []byte("<" + string(sub[1]) + "><f>" + string(sub[2]) + "</f>" + cache + "</" + string(sub[1]) + ">")
		})
	})
	if firstErr != nil {
		return fmt.Errorf("chart cache: %w", firstErr)
	}
	return nil
}

// chartCache builds the cache element of one reference: kind is numRef or strRef,
// ref a sheet range such as Steps!$D$2:$D$9 (or one cell).
func chartCache(f *excelize.File, kind, ref string) (string, error) {
	sheet, cells, err := refCells(ref)
	if err != nil {
		return "", err
	}
	var pts strings.Builder
	for i, cell := range cells {
		raw, err := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
		if err != nil {
			return "", fmt.Errorf("%s: %w", ref, err)
		}
		if kind == "numRef" {
			x, perr := strconv.ParseFloat(raw, 64)
			if perr != nil || !finite(x) {
				continue // a gap
			}
			raw = strconv.FormatFloat(x, 'g', -1, 64)
		}
		fmt.Fprintf(&pts, `<pt idx="%d"><v>%s</v></pt>`, i, xmlText(raw))
	}
	if kind == "numRef" {
		return fmt.Sprintf(`<numCache><formatCode>General</formatCode><ptCount val="%d"></ptCount>%s</numCache>`, len(cells), pts.String()), nil
	}
	return fmt.Sprintf(`<strCache><ptCount val="%d"></ptCount>%s</strCache>`, len(cells), pts.String()), nil
}

// refCells splits a one-column or one-row range reference (Sheet!$A$1:$A$9 or
// Sheet!$A$1) into its sheet and cell names, in order.
func refCells(ref string) (string, []string, error) {
	sheet, rng, ok := strings.Cut(ref, "!")
	if !ok {
		return "", nil, fmt.Errorf("reference %q has no sheet", ref)
	}
	from, to, _ := strings.Cut(strings.ReplaceAll(rng, "$", ""), ":")
	if to == "" {
		to = from
	}
	c0, r0, err := excelize.CellNameToCoordinates(from)
	if err != nil {
		return "", nil, fmt.Errorf("reference %q: %w", ref, err)
	}
	c1, r1, err := excelize.CellNameToCoordinates(to)
	if err != nil {
		return "", nil, fmt.Errorf("reference %q: %w", ref, err)
	}
	var cells []string
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			cells = append(cells, cellName(c, r, false))
		}
	}
	return strings.Trim(sheet, "'"), cells, nil
}

// xmlText escapes s for XML character data.
func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
