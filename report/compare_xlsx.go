package report

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/rundir"
)

// The comparison's workbook (compare.xlsx), built like the tune workbook (tune_xlsx.go)
// with the run workbook's styles and chart helpers (xlsx.go, xlsx_charts.go): Summary
// (the verdict, the SLA, what differs, each run's capacity and sizing as numbers),
// Deltas (every row of the delta table: each run's value and requests, each later
// run's Δ, ratio, 95% CI, significance and whether it is better, numbers as numbers),
// Curves (compare_xlsx_curves.go: per segment and run the load and each metric, with
// native charts, one series per run) and Drift (compare_xlsx_drift.go, only with a
// drift section).

// Sheet names of the comparison workbook.
const (
	SheetCmpSummary = "Summary"
	SheetCmpDeltas  = "Deltas"
	SheetCmpCurves  = "Curves"
	SheetCmpDrift   = "Drift"
)

// cmpSummaryWidth is the width of the Summary's merged rows (A–F), in characters.
const cmpSummaryWidth = 34 + 5*20

// writeCompareXLSX writes compare.xlsx to path. Errors: a sheet that cannot be built,
// or the file (naming it).
func writeCompareXLSX(path string, c *compare.Comparison) error {
	f, err := buildCompareXLSX(c)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	return rundir.WriteAtomic(path, func(w io.Writer) error {
		_, err := f.WriteTo(w)
		return err
	})
}

// buildCompareXLSX builds the workbook in memory.
func buildCompareXLSX(c *compare.Comparison) (*excelize.File, error) {
	f := excelize.NewFile()
	sheets := []string{SheetCmpDeltas, SheetCmpCurves}
	if c.Drift != nil {
		sheets = append(sheets, SheetCmpDrift)
	}
	err := f.SetSheetName("Sheet1", SheetCmpSummary)
	for _, name := range sheets {
		if err == nil {
			_, err = f.NewSheet(name)
		}
	}
	var st styles
	if err == nil {
		st, err = newStyles(f)
	}
	steps := []func() error{
		func() error { return writeCmpSummarySheet(f, st, c) },
		func() error { return writeCmpDeltasSheet(f, st, c) },
		func() error { return writeCmpCurvesSheet(f, st, c) },
		func() error { return writeCmpDriftSheet(f, st, c.Drift) },
	}
	for i := 0; err == nil && i < len(steps); i++ {
		err = steps[i]()
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	f.SetActiveSheet(0)
	return f, nil
}

// cmpSheet writes cells of one sheet: set stores v (a number stays a number) with
// style (0: none).
type cmpSheet struct {
	f     *excelize.File
	sheet string
}

func (s cmpSheet) set(col, row int, v any, style int) {
	cell := cellName(col, row, false)
	_ = s.f.SetCellValue(s.sheet, cell, v)
	if style != 0 {
		_ = s.f.SetCellStyle(s.sheet, cell, cell, style)
	}
}

// merged writes v across columns A–F of row, wrapped, the row as tall as its text.
func (s cmpSheet) merged(row int, v string, style int, fontPt float64) {
	s.set(1, row, v, style)
	_ = s.f.MergeCell(s.sheet, cellName(1, row, false), cellName(6, row, false))
	_ = s.f.SetRowHeight(s.sheet, row, wrappedRowHeight(v, cmpSummaryWidth, fontPt))
}

// header writes cells as a header row at row from column 1.
func (s cmpSheet) header(row int, cells []string, style int) {
	for i, h := range cells {
		s.set(i+1, row, h, style)
	}
}

// writeCmpSummarySheet writes the Summary: the title, the verdict, the SLA and the
// runs, what differs, then each run's capacity (a column per run, numbers as numbers).
func writeCmpSummarySheet(f *excelize.File, st styles, c *compare.Comparison) error {
	s := cmpSheet{f, SheetCmpSummary}
	if err := f.SetCellValue(s.sheet, "A1", cmpPDFTitle(c)); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	_ = f.SetCellStyle(s.sheet, "A1", "A1", st.title)
	_ = f.SetColWidth(s.sheet, "A", "A", 34)
	_ = f.SetColWidth(s.sheet, "B", cellCol(1+len(c.Labels)), 60) // the capacity rows' words ("interpolated by the queueing model between measured steps") on one line
	s.merged(3, c.Verdict.Sentence, st.boldWrap, 12)
	s.merged(4, cmpSLAText(c), st.wrap, 11)
	s.merged(5, cmpRunsLine(c), st.wrap, 11)
	row := 7
	s.set(1, row, cmpHeadPlan, st.bold)
	row++
	if len(c.PlanDiff) == 0 {
		s.set(1, row, cmpNoPlanDiff, 0)
		row++
	} else {
		t := cmpPlanTable(c)
		s.header(row, t.head, st.header)
		for _, r := range t.rows {
			row++
			for j, v := range r {
				s.set(j+1, row, v, st.wrap)
			}
		}
		row++
	}
	row++
	s.set(1, row, cmpHeadRuns, st.bold)
	row++
	s.header(row, append([]string{""}, c.Labels...), st.header)
	for _, line := range cmpCapacityLines(c, st) {
		row++
		s.set(1, row, line.name, st.bold)
		for i, r := range c.Runs {
			if v := line.value(r); v != nil {
				s.set(i+2, row, v, line.style)
			}
		}
	}
	for i, n := range c.Notes {
		s.merged(row+2+i, "⚠ "+n, st.wrap, 11)
	}
	return fitToPage(f, s.sheet, "A1:"+cellName(max(6, 1+len(c.Labels)), row+1+len(c.Notes), false), false)
}

// cellCol is the column name of 1-based column n ("B").
func cellCol(n int) string {
	name, _ := excelize.ColumnNumberToName(n)
	return name
}

// cmpCapacityLine is one row of the Summary's capacity table: its name, each run's
// value (nil: blank) and the value's style.
type cmpCapacityLine struct {
	name  string
	value func(compare.RunSummary) any
	style int
}

// cmpCapacityLines are the capacity table's rows: the capacity and its range on the
// ladder's axis, its words, basis, method, bottleneck, binding bound, users, think
// time, throughput, the sizing per target users (replicas, GPUs, USD a month) and the
// cost per 1M output tokens.
func cmpCapacityLines(c *compare.Comparison, st styles) []cmpCapacityLine {
	text := func(name string, f func(compare.RunSummary) string) cmpCapacityLine {
		return cmpCapacityLine{name, func(r compare.RunSummary) any { return f(r) }, st.wrap}
	}
	number := func(name string, style int, f func(compare.RunSummary) (float64, bool)) cmpCapacityLine {
		return cmpCapacityLine{name, func(r compare.RunSummary) any {
			if v, ok := f(r); ok {
				return v
			}
			return nil
		}, style}
	}
	hasCap := func(r compare.RunSummary) bool { return r.Basis != compare.BasisNone }
	lines := []cmpCapacityLine{
		text("capacity within the SLA", cmpCapacityText),
		number("capacity (ladder's load)", st.num2, func(r compare.RunSummary) (float64, bool) { return r.Capacity, hasCap(r) }),
		number("range low", st.num2, func(r compare.RunSummary) (float64, bool) { return r.RangeLow, hasCap(r) }),
		number("range high (blank: no upper bound)", st.num2, func(r compare.RunSummary) (float64, bool) { return r.RangeHigh, hasCap(r) && !r.OpenEnded }),
		text("range kind", func(r compare.RunSummary) string { return orDash(r.RangeKind) }),
		text("basis", func(r compare.RunSummary) string { return string(r.Basis) }),
		text("method", func(r compare.RunSummary) string { return methodText(r.Method) }),
		text("bottleneck", cmpBottleneck),
		text("binding constraint", func(r compare.RunSummary) string { return orDash(r.Limiting) }),
		number("users within the SLA", st.int0, func(r compare.RunSummary) (float64, bool) { return float64(r.Users), r.Users > 0 }),
		text("users source", func(r compare.RunSummary) string { return orDash(r.UsersSource) }),
		number("think time (s)", st.num1, func(r compare.RunSummary) (float64, bool) { return r.ThinkTimeS, r.Users > 0 }),
		number("output tok/s at capacity", st.num1, func(r compare.RunSummary) (float64, bool) { return r.OutputTokensPerS, hasCap(r) }),
	}
	for _, k := range cmpTargets(c) {
		w := func(r compare.RunSummary) (int, float64, float64, bool) {
			for _, s := range r.Sizing {
				if s.TargetUsers == k {
					return s.Replicas, float64(s.GPUs), s.CostPerMonthUSD, true
				}
			}
			return 0, 0, 0, false
		}
		users := num(float64(k), 0)
		lines = append(lines,
			number("replicas for "+users+" users", st.int0, func(r compare.RunSummary) (float64, bool) { n, _, _, ok := w(r); return float64(n), ok }),
			number("GPUs for "+users+" users", st.int0, func(r compare.RunSummary) (float64, bool) { _, g, _, ok := w(r); return g, ok }),
			number("USD a month for "+users+" users", st.usd, func(r compare.RunSummary) (float64, bool) { _, _, usd, ok := w(r); return usd, ok && usd > 0 }))
	}
	return append(lines, number("USD per 1M output tokens", st.usd2, func(r compare.RunSummary) (float64, bool) {
		v := r.CostPerMOutputUSD()
		return v, v > 0
	}))
}

// writeCmpDeltasSheet writes the Deltas sheet: a header row, then one row per segment,
// load and metric of the delta table (so its data rows are the table's rows), each run's
// value and requests, then per later run its Δ, ratio, 95% CI low and high (numbers;
// blank with no data), significance and better (TRUE/FALSE, only when significant).
func writeCmpDeltasSheet(f *excelize.File, st styles, c *compare.Comparison) error {
	s := cmpSheet{f, SheetCmpDeltas}
	head := []string{"segment", "load", "metric"}
	for _, l := range c.Labels {
		head = append(head, l)
	}
	for _, l := range c.Labels {
		head = append(head, "requests "+l)
	}
	for _, l := range c.Labels[1:] {
		head = append(head, "Δ "+l, "ratio "+l, "CI low "+l, "CI high "+l, "significance "+l, "better "+l)
	}
	s.header(1, head, st.header)
	row := 1
	for _, d := range c.Deltas {
		for _, md := range d.Metrics {
			row++
			cmpDeltaRow(s, st, row, d, md)
		}
	}
	_ = f.SetColWidth(s.sheet, "A", "C", 16)
	_ = f.SetColWidth(s.sheet, "D", cellCol(len(head)), 13)
	if err := f.AutoFilter(s.sheet, "A1:"+cellName(len(head), max(2, row), false), nil); err != nil {
		return fmt.Errorf("deltas filter: %w", err)
	}
	if err := f.SetPanes(s.sheet, &excelize.Panes{Freeze: true, XSplit: 3, YSplit: 1, TopLeftCell: "D2", ActivePane: "bottomRight"}); err != nil {
		return fmt.Errorf("deltas panes: %w", err)
	}
	return printTable(f, s.sheet)
}

// cmpDeltaRow writes one metric's row of the Deltas sheet.
func cmpDeltaRow(s cmpSheet, st styles, row int, d compare.LoadDelta, md compare.MetricDelta) {
	n := len(md.Values)
	s.set(1, row, d.Segment, 0)
	s.set(2, row, d.Load, 0)
	s.set(3, row, cmpMetricText(md.Metric), 0)
	for i, v := range md.Values {
		if md.N[i] > 0 && finite(v) {
			s.set(4+i, row, v, st.num2)
		}
		s.set(4+n+i, row, md.N[i], st.int0)
	}
	for j, df := range md.Diffs {
		col := 4 + 2*n + 6*j
		if df.Significance != compare.NoData {
			for k, v := range []float64{df.Diff, df.Ratio, df.Low, df.High} {
				if finite(v) && (k != 1 || v > 0) { // a ratio of 0: the baseline's value is 0
					s.set(col+k, row, v, []int{st.num2, st.num3, st.num2, st.num2}[k])
				}
			}
		}
		s.set(col+4, row, string(df.Significance), 0)
		if df.Significance == compare.Significant {
			s.set(col+5, row, df.Better, 0)
		}
	}
}
