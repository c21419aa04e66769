package report

import (
	"fmt"
	"strconv"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// sheetColumn is one column of a data sheet: header (with unit), style and width.
type sheetColumn struct {
	header string
	style  int
	width  float64
}

// stepsColumns are the Steps sheet's columns, the telemetry ones (telemetryColumns)
// last when the run has them; the order matches stepsRow.
func stepsColumns(st styles, a *analysis.Analysis) []sheetColumn {
	return append([]sheetColumn{
		{"segment", 0, 16}, {"step", 0, 6}, {"schedule", 0, 12}, {"load (" + loadName(a) + ")", loadStyle(st, a), 12},
		{"requests", st.int0, 10}, {"errors", st.int0, 8}, {"error rate", st.pctl, 10},
		{"TTFT p50 (ms)", st.ms, 12}, {"TTFT p95 (ms)", st.ms, 12}, {"TTFT p99 (ms)", st.ms, 12}, {"TTFO p95 (ms)", st.ms, 12},
		{"ITL p50 (ms)", st.ms, 11}, {"ITL p95 (ms)", st.ms, 11}, {"E2E p50 (ms)", st.ms, 12}, {"E2E p95 (ms)", st.ms, 12},
		{"throughput (req/s)", st.rps, 14}, {"steady-state throughput N/R (req/s)", st.rps, 16}, {"output tokens/s", st.tokps, 14}, {"goodput (req/s)", st.rps, 14},
		{"good fraction", st.pctl, 10}, {"per-user output tokens/s", st.num1, 13}, {"steady state", 0, 10},
		{"meets SLA", 0, 10}, {"regime", 0, 10}, {"SLA violations", 0, 40},
		{"warm-up requests", st.int0, 10}, {"unfinished", st.int0, 10}, {"achieved rate (req/s)", st.rps, 14},
	}, telemetryColumns(st, a)...)
}

// loadStyle is the number format of load cells: whole concurrency, or req/s with decimals.
func loadStyle(st styles, a *analysis.Analysis) int {
	if isRate(a) {
		return st.num2
	}
	return st.int0
}

// Column numbers (1-based) of the Steps sheet used by the native charts.
const (
	stepsColLoad       = 4
	stepsColTTFTp95    = 9
	stepsColITLp95     = 13
	stepsColThroughput = 16
)

// stepsRow is one step's cell values, in stepsColumns order (NaN as empty).
func stepsRow(seg string, s analysis.StepStats) []any {
	v := func(x float64) any {
		if !finite(x) {
			return nil
		}
		return x
	}
	violations := ""
	for i, x := range s.SLAViolations {
		if i > 0 {
			violations += "; "
		}
		violations += x
	}
	ttft, ttfo, itl, e2e := shown(s.TTFTMs), shown(s.TTFOMs), shown(s.ITLMs), shown(s.E2EMs)
	return []any{seg, stepNumber(s.Step), s.Schedule, v(s.Load), s.Requests, s.Errors, v(s.ErrorRate),
		v(ttft.P50), v(ttft.P95), v(ttft.P99), v(ttfo.P95), v(itl.P50), v(itl.P95),
		v(e2e.P50), v(e2e.P95), v(s.RequestThroughput), positive(s.LittleThroughputRps), v(s.OutputTokenThroughput), v(s.Goodput),
		v(s.GoodFraction), v(s.PerUserOutputTokensPerS), s.SteadyState, s.MeetsSLA, string(s.Regime), violations,
		s.WarmupRequests, s.Unfinished, positive(s.AchievedRateRps)}
}

// segmentRows maps each segment (in allSegments order) to its first and last row on
// the Steps sheet (row 1 is the header); segments without steps are absent.
func segmentRows(a *analysis.Analysis) (names []string, first, last []int) {
	r := 2
	for _, seg := range allSegments(a) {
		if len(seg.Steps) == 0 {
			continue
		}
		names, first, last = append(names, seg.Segment), append(first, r), append(last, r+len(seg.Steps)-1)
		r += len(seg.Steps)
	}
	return names, first, last
}

// writeTable writes a header row and data rows at the top of a normal sheet, styles
// each column, adds a filterable table, freezes the header row and sets
// its print setup (printTable).
func writeTable(f *excelize.File, sheet, tableName string, cols []sheetColumn, rows [][]any) error {
	hdr := make([]any, len(cols))
	for i, c := range cols {
		hdr[i] = c.header
	}
	if err := f.SetSheetRow(sheet, "A1", &hdr); err != nil {
		return fmt.Errorf("%s header: %w", sheet, err)
	}
	for i, r := range rows {
		if err := f.SetSheetRow(sheet, cellName(1, i+2, false), &r); err != nil {
			return fmt.Errorf("%s row %d: %w", sheet, i+2, err)
		}
	}
	last := max(2, len(rows)+1)
	for i, c := range cols {
		name, _ := excelize.ColumnNumberToName(i + 1)
		_ = f.SetColWidth(sheet, name, name, c.width)
		if c.style != 0 && len(rows) > 0 {
			if err := f.SetCellStyle(sheet, cellName(i+1, 2, false), cellName(i+1, last, false), c.style); err != nil {
				return err
			}
		}
	}
	if err := f.AddTable(sheet, &excelize.Table{Range: "A1:" + cellName(len(cols), last, false), Name: tableName,
		StyleName: "TableStyleMedium2"}); err != nil {
		return fmt.Errorf("%s table: %w", sheet, err)
	}
	if err := printTable(f, sheet); err != nil {
		return err
	}
	return f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"})
}

// writeWarningsSheet lists the run's warnings (segment, step, kind, message), one row
// each, on the Warnings sheet; the Summary gives their count. Nothing without warnings.
func writeWarningsSheet(f *excelize.File, st styles, a *analysis.Analysis) error {
	if len(a.Warnings) == 0 {
		return nil
	}
	cols := []sheetColumn{{"segment", 0, 16}, {"step", 0, 6}, {"kind", 0, 22}, {"warning", st.wrap, 120}}
	rows := make([][]any, 0, len(a.Warnings))
	for _, w := range a.Warnings {
		var step any
		if w.Step != rundir.RunWide {
			step = stepNumber(w.Step)
		}
		rows = append(rows, []any{orDash(w.Segment), step, string(w.Kind), w.Message})
	}
	return writeTable(f, SheetWarnings, "WarningsTable", cols, rows)
}

// writeStepsSheet writes the per-step statistics of every segment and the mix.
func writeStepsSheet(f *excelize.File, st styles, a *analysis.Analysis) error {
	var rows [][]any
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			rows = append(rows, append(stepsRow(seg.Segment, s), telemetryCells(a, s)...))
		}
	}
	if err := writeTable(f, SheetSteps, "StepsTable", stepsColumns(st, a), rows); err != nil {
		return err
	}
	return highlightViolations(f, a, len(rows))
}

// highlightViolations colours the TTFT p95 and ITL p95 cells of the Steps sheet red
// where they exceed a p95 SLA threshold.
func highlightViolations(f *excelize.File, a *analysis.Analysis, n int) error {
	if n == 0 {
		return nil
	}
	bad, err := f.NewConditionalStyle(&excelize.Style{Font: &excelize.Font{Color: "9C0006"},
		Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFC7CE"}}})
	if err != nil {
		return err
	}
	cols := map[string]int{"ttft": stepsColTTFTp95, "itl": stepsColITLp95}
	for _, c := range a.Constraints {
		col, ok := cols[c.Metric]
		if !ok || c.Stat != "p95" || !(c.ThresholdMs > 0) {
			continue
		}
		rng := cellName(col, 2, false) + ":" + cellName(col, n+1, false)
		err := f.SetConditionalFormat(SheetSteps, rng, []excelize.ConditionalFormatOptions{
			{Type: "cell", Criteria: ">", Format: &bad, Value: strconv.FormatFloat(c.ThresholdMs, 'g', -1, 64)}})
		if err != nil {
			return fmt.Errorf("steps conditional format: %w", err)
		}
	}
	return nil
}

// writeSegmentsSheet writes each segment's weight, capacity and bottleneck.
func writeSegmentsSheet(f *excelize.File, st styles, a *analysis.Analysis) error {
	cols := []sheetColumn{{"segment", 0, 16}, {"mix share", st.pct0, 10}, {"capacity (" + loadName(a) + ")", st.num1, 14},
		{"range low", st.num1, 10}, {"range high", st.num1, 10}, {"method", 0, 16}, {"bottleneck", 0, 11}, {"binding constraint", 0, 22},
		{"throughput at capacity (req/s)", st.rps, 16}, {"output tokens/s at capacity", st.tokps, 16}, {"users per replica", st.int0, 12},
		{"think time (s)", st.num1, 10}, {"evidence", 0, 40}, {"advice", 0, 60}}
	var rows [][]any
	for _, seg := range allSegments(a) {
		c := seg.Capacity
		rows = append(rows, []any{seg.Segment, nanNil(shareOf(a, seg.Segment)), nanNil(capacityLoad(a, c)), nanNil(c.RangeLow), ciHighCell(c), methodText(c.Method),
			string(c.Bottleneck), analysis.BindingText(c), nanNil(c.ThroughputAtCapacity), nanNil(c.OutputTokensPerSAtCapacity),
			capacityUsers(c), nanNil(c.ThinkTimeS), c.BottleneckEvidence, c.Advice})
	}
	return writeTable(f, SheetSegments, "SegmentsTable", cols, rows)
}

// positive is v when it is finite and > 0, else nil (an empty cell: not computed).
func positive(v float64) any {
	if !finite(v) || v <= 0 {
		return nil
	}
	return v
}

// nanNil maps NaN/Inf to nil (an empty cell).
func nanNil(v float64) any {
	if !finite(v) {
		return nil
	}
	return v
}

// writeModelSheet writes the fit parameters per segment, then every predicted curve.
func writeModelSheet(f *excelize.File, st styles, a *analysis.Analysis) error {
	cols := []sheetColumn{{"segment", 0, 16}, {"service rate X_max (req/s)", st.rps, 16}, {"slots", st.num1, 8},
		{"slots CI low", st.num1, 10}, {"slots CI high", st.num1, 10}, {"base TTFT (ms)", st.ms, 12}, {"decode base (ms)", st.ms, 12},
		{"decode per seq (ms)", st.num3, 12}, {"prefill (ms per 1k tokens)", st.num2, 14}, {"R²", st.num3, 8}, {"residuals (ms)", 0, 40}, {"fit quality", 0, 18}}
	var rows [][]any
	for _, seg := range allSegments(a) {
		if fit := seg.Fit; fit != nil && fit.Underdetermined {
			rows = append(rows, []any{seg.Segment, nil, fmt.Sprintf("fit from %d steps: too few to identify the model", fit.FitSteps)})
		} else if fit != nil {
			slots := any(nanNil(fit.Slots))
			if !fit.SlotsIdentified {
				slots = slotsNotIdentified
			}
			res := ""
			for i, r := range fit.Residuals {
				if i > 0 {
					res += ", "
				}
				res += auto(r)
			}
			rows = append(rows, []any{seg.Segment, positive(fit.ServiceRate), slots, positive(fit.SlotsCILow), positive(fit.SlotsCIHigh),
				nanNil(fit.BaseTTFTMs), nanNil(fit.DecodeBaseMs), nanNil(fit.DecodePerSeqMs), nanNil(fit.PrefillMsPerKToken), nanNil(fit.R2), res, fitQualityText(fit.R2)})
		}
	}
	if err := writeTable(f, SheetModel, "ModelFit", cols, rows); err != nil {
		return err
	}
	return writeCurves(f, st, a, max(2, len(rows)+1)+3)
}

// writeCurves writes the predicted curves as a second table starting at row r0.
func writeCurves(f *excelize.File, st styles, a *analysis.Analysis, r0 int) error {
	sh := SheetModel
	hdr := []any{"segment", "load (" + loadName(a) + ")", "predicted TTFT p95 (ms)", "band low (ms)", "band high (ms)", "predicted ITL p50 (ms)", "predicted throughput (req/s)"}
	_ = f.SetCellValue(sh, cellName(1, r0-1, false), "Predicted curves")
	if err := f.SetSheetRow(sh, cellName(1, r0, false), &hdr); err != nil {
		return err
	}
	r := r0
	for _, seg := range allSegments(a) {
		if seg.Fit == nil {
			continue
		}
		for _, c := range seg.Fit.Curve {
			r++
			row := []any{seg.Segment, nanNil(c.Load), nanNil(c.TTFTp95Ms), nanNil(c.TTFTLowMs), nanNil(c.TTFTHigh), nanNil(c.ITLp50Ms), nanNil(c.Throughput)}
			if err := f.SetSheetRow(sh, cellName(1, r, false), &row); err != nil {
				return err
			}
		}
	}
	if r-r0 < 1 {
		return nil
	}
	_ = f.SetCellStyle(sh, cellName(3, r0+1, false), cellName(6, r, false), st.ms)
	_ = f.SetCellStyle(sh, cellName(7, r0+1, false), cellName(7, r, false), st.rps)
	// The curves share the fit table's columns: widen those the curves' values (up to
	// 6 digits of ms) would overflow into "###", and print without the fit table's
	// header repeated over the curves' pages (it names other columns).
	for c := 2; c <= 7; c++ {
		name, _ := excelize.ColumnNumberToName(c)
		if w, err := f.GetColWidth(sh, name); err == nil && w < 14 {
			_ = f.SetColWidth(sh, name, name, 14)
		}
	}
	if err := f.DeleteDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", Scope: sh}); err != nil {
		return fmt.Errorf("%s print titles: %w", sh, err)
	}
	return f.AddTable(sh, &excelize.Table{Range: cellName(1, r0, false) + ":" + cellName(7, r, false), Name: "ModelCurves", StyleName: "TableStyleLight9"})
}
