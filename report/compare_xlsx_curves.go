package report

import (
	"fmt"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/compare"
)

// The comparison workbook's Curves sheet: per segment (and the mix) and run, a table of
// its steps (load, TTFT p50 and p95, ITL p95, output tok/s, goodput) in columns A–F,
// and to the right, per segment, native charts of each metric against the load with
// one series per run (the PNG charts' colours): a scatter chart with lines, so runs
// with different ladders are drawn at their own loads.

// cmpCurveMetric is one column of a curve table and its chart.
type cmpCurveMetric struct {
	head, title string
	value       func(compare.CurvePoint) (float64, bool)
}

// cmpCurveMetrics are the curve tables' columns after the load, in order; a latency
// with no successful request is a blank cell (a gap in the chart).
var cmpCurveMetrics = []cmpCurveMetric{
	{"TTFT p50 (ms)", "TTFT p50 vs load", latency(func(p compare.CurvePoint) float64 { return p.TTFTP50Ms })},
	{"TTFT p95 (ms)", "TTFT p95 vs load", latency(func(p compare.CurvePoint) float64 { return p.TTFTP95Ms })},
	{"ITL p95 (ms)", "ITL p95 vs load", latency(func(p compare.CurvePoint) float64 { return p.ITLP95Ms })},
	{"output tok/s", "Output throughput vs load", rate(func(p compare.CurvePoint) float64 { return p.OutputTokensPerS })},
	{"goodput (req/s)", "Goodput vs load", rate(func(p compare.CurvePoint) float64 { return p.GoodputRps })},
}

// Chart placement on the Curves sheet: a band of cmpChartRows rows per segment, the
// charts side by side from column cmpChartCol0, cmpChartCols columns apart.
const (
	cmpChartCol0 = 9 // I
	cmpChartCols = 10
	cmpChartRows = 22
)

// cmpCurveBlock is where one run's table of one segment lies: the row of its label
// (the series' name) and its first and last data rows.
type cmpCurveBlock struct {
	nameRow, first, last int
}

// writeCmpCurvesSheet writes the curve tables and the charts (a note when there is
// nothing to plot). Errors: a chart excelize refuses.
func writeCmpCurvesSheet(f *excelize.File, st styles, c *compare.Comparison) error {
	s := cmpSheet{f, SheetCmpCurves}
	if len(c.Curves) == 0 {
		return f.SetCellValue(s.sheet, "A1", "No segment was measured by every run: no curves to compare.")
	}
	row := 1
	blocks := make([][]cmpCurveBlock, len(c.Curves))
	for i, sc := range c.Curves {
		for _, rc := range sc.Runs {
			b := cmpCurveBlock{nameRow: row}
			s.set(1, row, sc.Segment, st.bold)
			s.set(2, row, rc.Label, st.bold)
			head := []string{cmpLoadLabel(c)}
			for _, m := range cmpCurveMetrics {
				head = append(head, m.head)
			}
			s.header(row+1, head, st.header)
			row += 2
			b.first = row
			for _, p := range rc.Points {
				s.set(1, row, p.Load, 0)
				for k, m := range cmpCurveMetrics {
					if v, ok := m.value(p); ok && finite(v) {
						s.set(2+k, row, v, st.num2)
					}
				}
				row++
			}
			b.last = max(b.first, row-1)
			blocks[i] = append(blocks[i], b)
			row++
		}
	}
	_ = f.SetColWidth(s.sheet, "A", "F", 15)
	for i, sc := range c.Curves {
		if err := addCmpCurveCharts(f, c, sc, blocks[i], 1+i*cmpChartRows); err != nil {
			return err
		}
	}
	numericXValues(f)
	return cacheChartValues(f)
}

// addCmpCurveCharts adds one segment's charts in the band starting at row top.
func addCmpCurveCharts(f *excelize.File, c *compare.Comparison, sc compare.SegmentCurves, blocks []cmpCurveBlock, top int) error {
	sh := SheetCmpCurves
	title := func(s string) excelize.ChartTitle {
		return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s}}}
	}
	for k, m := range cmpCurveMetrics {
		var series []excelize.ChartSeries
		for i, b := range blocks {
			col := func(n int) string {
				return fmt.Sprintf("%s!%s:%s", sh, cellName(n, b.first, true), cellName(n, b.last, true))
			}
			series = append(series, chartSeries(i, fmt.Sprintf("%s!%s", sh, cellName(2, b.nameRow, true)), col(1), col(2+k)))
		}
		cell := cellName(cmpChartCol0+k*cmpChartCols, top, false)
		err := f.AddChart(sh, cell, &excelize.Chart{
			Type: excelize.Scatter, Series: series,
			Title:     title(m.title + ": " + sc.Segment),
			XAxis:     excelize.ChartAxis{Font: axisFont, Title: title(cmpLoadLabel(c))},
			YAxis:     excelize.ChartAxis{Font: axisFont, MajorGridLines: true, Title: title(m.head)},
			Dimension: excelize.ChartDimension{Width: 620, Height: 400},
			Legend:    excelize.ChartLegend{Position: "bottom"}, ShowBlanksAs: "gap",
		})
		if err != nil {
			return fmt.Errorf("curves chart %s %s: %w", m.title, sc.Segment, err)
		}
	}
	return nil
}
