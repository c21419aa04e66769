package report

import (
	"fmt"

	"github.com/xuri/excelize/v2"
)

// The tune workbook's Front sheet: the plotted trials (A–D) and the front in the main
// objective's order (F–H), with a native scatter chart of both (the same points as
// the PDF's chart: x the main objective, y the second; with one objective, x the trial
// number).

// Front sheet columns (1-based).
const (
	frontColTrial  = 1 // A: every plotted trial
	frontColX      = 2
	frontColY      = 3
	frontColOnLine = 4
	frontColFTrial = 6 // F: the front, in the main objective's order
	frontColFX     = 7
	frontColFY     = 8
	frontChartCell = "J2"
	frontRow0      = 3 // the first data row (row 1 names the two tables, row 2 is their header)
)

// Native chart colours (RRGGBB), as the PDF chart's.
const (
	xlsxTuneGrey  = "969696"
	xlsxTuneFront = "1F64B4"
)

// writeTuneFrontSheet writes the Front sheet's tables and its chart (a note instead
// when nothing is plotted).
func writeTuneFrontSheet(f *excelize.File, st tuneStyles, in *tuneInput) error {
	sh := SheetTuneFront
	d := tunePoints(in)
	if len(d.all) == 0 {
		return f.SetCellValue(sh, "A1", "No trial measured its configuration: nothing to plot.")
	}
	xName, yName := tuneMetricHeader(in, d.x.Metric), tuneMetricHeader(in, d.y.Metric)
	if d.byTrial {
		xName = "trial number"
	}
	set := func(col, row int, v any, style int) {
		cell := cellName(col, row, false)
		_ = f.SetCellValue(sh, cell, v)
		if style != 0 {
			_ = f.SetCellStyle(sh, cell, cell, style)
		}
	}
	line, lineName := d.front, "Pareto front"
	if d.byTrial {
		line, lineName = tuneBestPoints(d), "best so far"
	}
	set(frontColTrial, 1, "plotted trials", st.bold) // the series' names
	set(frontColFTrial, 1, lineName, st.bold)
	for i, h := range []string{"trial", xName, yName, "on the front"} {
		set(frontColTrial+i, 2, h, st.header)
	}
	for i, h := range []string{"trial", xName, yName} {
		set(frontColFTrial+i, 2, h, st.header)
	}
	for i, pt := range d.all {
		set(frontColTrial, i+frontRow0, pt.trial, 0)
		set(frontColX, i+frontRow0, pt.x, st.num2)
		set(frontColY, i+frontRow0, pt.y, st.num2)
		set(frontColOnLine, i+frontRow0, yesNo(in.front[pt.trial]), 0)
	}
	for i, pt := range line {
		set(frontColFTrial, i+frontRow0, pt.trial, 0)
		set(frontColFX, i+frontRow0, pt.x, st.num2)
		set(frontColFY, i+frontRow0, pt.y, st.num2)
	}
	_ = f.SetColWidth(sh, "A", "H", 16)
	_ = f.SetColWidth(sh, "E", "E", 3)
	if err := addTuneFrontChart(f, in, d, len(d.all), len(line), xName, yName); err != nil {
		return err
	}
	return fitToPage(f, sh, "A1:U24", true)
}

// tuneBestPoints are, with one objective, the trials that set a new best in turn (the
// chart's best-so-far line through them).
func tuneBestPoints(d tunePlot) []tunePoint {
	var out []tunePoint
	for _, pt := range d.all {
		if len(out) == 0 || (d.y.Maximizes() && pt.y > out[len(out)-1].y) || (!d.y.Maximizes() && pt.y < out[len(out)-1].y) {
			out = append(out, pt)
		}
	}
	return out
}

// addTuneFrontChart adds the scatter chart: every plotted trial as grey markers, the
// front (or best so far) as a blue line with markers.
func addTuneFrontChart(f *excelize.File, in *tuneInput, d tunePlot, nAll, nLine int, xName, yName string) error {
	sh := SheetTuneFront
	ref := func(col, n int) string {
		return fmt.Sprintf("%s!%s:%s", sh, cellName(col, frontRow0, true), cellName(col, frontRow0+n-1, true))
	}
	name := func(col int) string { return fmt.Sprintf("%s!%s", sh, cellName(col, 1, true)) }
	series := []excelize.ChartSeries{tuneSeries(name(frontColTrial), ref(frontColX, nAll), ref(frontColY, nAll), xlsxTuneGrey, false)}
	if nLine > 0 {
		series = append(series, tuneSeries(name(frontColFTrial), ref(frontColFX, nLine), ref(frontColFY, nLine), xlsxTuneFront, true))
	}
	title := func(s string) excelize.ChartTitle {
		return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s}}}
	}
	err := f.AddChart(sh, frontChartCell, &excelize.Chart{
		Type: excelize.Scatter, Series: series,
		Title:     title(tuneChartTitle(in, d)),
		XAxis:     excelize.ChartAxis{Font: axisFont, MajorGridLines: true, Title: title(xName)},
		YAxis:     excelize.ChartAxis{Font: axisFont, MajorGridLines: true, Title: title(yName)},
		Dimension: excelize.ChartDimension{Width: 760, Height: 420},
		Legend:    excelize.ChartLegend{Position: "bottom"}, ShowBlanksAs: "gap",
	})
	if err != nil {
		return fmt.Errorf("front chart: %w", err)
	}
	numericXValues(f)
	return cacheChartValues(f)
}

// tuneSeries is one native series (its name a cell reference) with every part spelled
// out (see chartSeries): markers of colour rgb, joined by a solid line when line is set.
func tuneSeries(name, xRef, yRef, rgb string, line bool) excelize.ChartSeries {
	fill := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{rgb}}
	lo := excelize.LineOptions{Type: excelize.LineNone}
	size := 6
	if line {
		lo, size = excelize.LineOptions{Type: excelize.LineSolid, Width: 1.75}, 8
	}
	return excelize.ChartSeries{
		Name: name, Categories: xRef, Values: yRef, Fill: fill, Line: lo,
		Marker: excelize.ChartMarker{Symbol: "circle", Size: size, Fill: fill,
			Border: excelize.LineOptions{Type: excelize.LineSolid, Fill: fill, Width: 0.75}},
	}
}
