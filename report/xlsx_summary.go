package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// writeSummarySheet writes the answer, key numbers, the live capacity calculator (input
// cells with defined names and formulas that recompute on edit), a one-line count of
// the warnings (listed on the Warnings sheet) and the what-if table.
func writeSummarySheet(f *excelize.File, st styles, in *input, texts formulaTexts) error {
	a := in.a
	sh := SheetSummary
	set := func(cell string, v any, style int) error {
		if err := f.SetCellValue(sh, cell, v); err != nil {
			return err
		}
		if style != 0 {
			return f.SetCellStyle(sh, cell, cell, style)
		}
		return nil
	}
	_ = f.SetColWidth(sh, "A", "A", 58)
	_ = f.SetColWidth(sh, "B", "B", 18)
	_ = f.SetColWidth(sh, "C", "C", 22)
	_ = f.SetColWidth(sh, "D", "I", 14)
	_ = f.SetColWidth(sh, "J", "J", 30) // the what-if table's price source, wrapped
	_ = f.SetColWidth(sh, "K", "L", 14)
	if err := set("A1", title(a), st.title); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	_ = set("A2", fmt.Sprintf("Run %s, %s", a.RunID, dateText(in.date)), 0)
	_ = set("A3", a.Answer, st.boldWrap)
	_ = set("A4", headlineText(a), st.wrap)
	if banner := speedUpBanner(a); banner != "" {
		_ = set("A5", "⚠ "+banner+".", st.bold)
		_ = f.MergeCell(sh, "A5", "F5")
	}
	_ = f.MergeCell(sh, "A3", "F3")
	_ = f.MergeCell(sh, "A4", "F4")
	_ = f.SetRowHeight(sh, 3, wrappedRowHeight(a.Answer, summaryMergedWidth, 12))
	_ = f.SetRowHeight(sh, 4, wrappedRowHeight(cellText(f, sh, "A4"), summaryMergedWidth, 11))
	r := 6
	_ = set(cellName(1, r, false), "Key numbers", st.header)
	_ = set(cellName(2, r, false), "value", st.header)
	_ = set(cellName(3, r, false), "unit", st.header)
	for _, kn := range xlsxKeyNumbers(a, st) {
		r++
		_ = set(cellName(1, r, false), kn.label, 0)
		_ = set(cellName(2, r, false), kn.value, kn.style)
		_ = set(cellName(3, r, false), kn.unit, 0)
	}
	r += 2
	end, err := writeCalculator(f, st, in, r, texts)
	if err != nil {
		return fmt.Errorf("summary calculator: %w", err)
	}
	r = end + 2
	if w := warningsLine(a, "the "+SheetWarnings+" sheet"); w != "" { // one line: the list would shrink the printed page
		_ = set(cellName(1, r, false), "⚠ "+w, st.bold)
		r += 2
	}
	if n := requestsSampleNote(in); n != "" {
		_ = set(cellName(1, r, false), n, st.bold)
		r += 2
	}
	if errorsBound(a) {
		r = writeErrorsTable(f, st, a.Errors, r) + 2
	}
	if err := writeWhatIfTable(f, st, in, r); err != nil {
		return err
	}
	used, err := usedRange(f, sh)
	if err != nil {
		return err
	}
	return fitToPage(f, sh, used, true)
}

// summaryMergedWidth is the width of the Summary's merged text rows (columns A–F), in
// Excel's character units (the column widths set by writeSummarySheet).
const summaryMergedWidth = 58 + 18 + 22 + 3*14

// wrappedRowHeight is the height (points) of a row whose wrapped text of fontPt points
// fills a cell widthChars characters wide: spreadsheet programs do not grow a merged
// row to its text, so text past the set height runs over the next row. It estimates a
// character of fontPt as fontPt/11 of Excel's width unit, with 10% to spare, and a
// line as 1.35 × fontPt.
func wrappedRowHeight(text string, widthChars, fontPt float64) float64 {
	perLine := max(1, widthChars*11/fontPt/1.1)
	lines := 0
	for _, para := range strings.Split(text, "\n") {
		lines += max(1, int(math.Ceil(float64(utf8.RuneCountInString(para))/perLine)))
	}
	return math.Ceil(float64(lines) * fontPt * 1.35)
}

// cellText is a cell's shown text ("" on error).
func cellText(f *excelize.File, sheet, cell string) string {
	s, _ := f.GetCellValue(sheet, cell)
	return s
}

// writeCalculator writes the capacity calculator from row r0 and returns its last row.
func writeCalculator(f *excelize.File, st styles, in *input, r0 int, texts formulaTexts) (int, error) {
	sh := SheetSummary
	// The title on its own row (it runs on over the empty cells to its right), then a
	// one-line header: a wrapped header would grow past its row onto the first input.
	_ = f.SetCellValue(sh, cellName(1, r0, false), "Capacity calculator: edit the yellow cells; the green cells recompute")
	_ = f.SetCellStyle(sh, cellName(1, r0, false), cellName(1, r0, false), st.bold)
	r0++
	hdr := []any{"input or result", "value", "unit"}
	if err := f.SetSheetRow(sh, cellName(1, r0, false), &hdr); err != nil {
		return 0, err
	}
	_ = f.SetCellStyle(sh, cellName(1, r0, false), cellName(3, r0, false), st.header)
	r := r0
	for _, row := range calculatorRows(in.a, st) {
		r++
		label, val, unit := cellName(1, r, false), cellName(2, r, false), cellName(3, r, false)
		_ = f.SetCellValue(sh, label, row.label)
		_ = f.SetCellValue(sh, unit, row.unit)
		var err error
		if row.formula != "" {
			err = f.SetCellFormula(sh, val, row.formula)
		} else {
			err = f.SetCellValue(sh, val, row.value)
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", row.name, err)
		}
		if err := f.SetCellStyle(sh, val, val, row.style); err != nil {
			return 0, err
		}
		if err := addValidation(f, val, row); err != nil {
			return 0, fmt.Errorf("%s validation: %w", row.name, err)
		}
		ref := fmt.Sprintf("%s!%s", sh, cellName(2, r, true))
		if err := f.SetDefinedName(&excelize.DefinedName{Name: row.name, RefersTo: ref, Comment: row.label}); err != nil {
			return 0, fmt.Errorf("defined name %s: %w", row.name, err)
		}
	}
	if err := cacheFormulaValues(f, sh, r0+1, r, texts); err != nil {
		return 0, err
	}
	return r, nil
}

// cacheFormulaValues stores each formula's computed value (excelize's CalcCellValue)
// in the formula cells of column B, rows from..to, and marks the workbook to
// recalculate when opened. Viewers that never recalculate (previews, data-only
// readers) then show the computed figures instead of blanks. excelize types every
// formula cell's cached value as a string (t="str") and a text value as a shared
// string's index: texts records the text results, and numericFormulaCells sets both
// right when the workbook is written.
func cacheFormulaValues(f *excelize.File, sh string, from, to int, texts formulaTexts) error {
	for r := from; r <= to; r++ {
		cell := cellName(2, r, false)
		formula, err := f.GetCellFormula(sh, cell)
		if err != nil || formula == "" {
			continue
		}
		v, err := f.CalcCellValue(sh, cell, excelize.Options{RawCellValue: true})
		if err != nil {
			continue // left without a cached value; recalculated on load
		}
		var cached any = v
		if x, perr := strconv.ParseFloat(v, 64); perr == nil {
			cached = x
		} else {
			texts[cell] = v
		}
		if err := f.SetCellValue(sh, cell, cached); err != nil {
			return fmt.Errorf("cache %s: %w", cell, err)
		}
		if err := f.SetCellFormula(sh, cell, formula); err != nil { // SetCellValue removed it; the value stays
			return fmt.Errorf("cache %s: %w", cell, err)
		}
	}
	on := true
	if err := f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &on}); err != nil {
		return fmt.Errorf("calc properties: %w", err)
	}
	return nil
}

// addValidation restricts an input cell to its allowed range (Excel refuses others).
func addValidation(f *excelize.File, cell string, row calcInput) error {
	v := row.valid
	if v == nil {
		return nil
	}
	dv := excelize.NewDataValidation(false)
	dv.Sqref = cell
	typ := excelize.DataValidationTypeDecimal
	if v.whole {
		typ = excelize.DataValidationTypeWhole
	}
	bound := func(x any) any {
		if f, ok := x.(float64); ok {
			return strconv.FormatFloat(f, 'f', -1, 64) // 0.95, not 0.94999999999999996
		}
		return x
	}
	if err := dv.SetRange(bound(v.lo), bound(v.hi), typ, excelize.DataValidationOperatorBetween); err != nil {
		return err
	}
	dv.SetError(excelize.DataValidationErrorStyleStop, row.label, v.msg)
	dv.SetInput(row.label, v.msg)
	return f.AddDataValidation(SheetSummary, dv)
}

// writeWhatIfTable writes the analysis's static what-if rows from row r.
func writeWhatIfTable(f *excelize.File, st styles, in *input, r int) error {
	sh := SheetSummary
	ws := in.a.WhatIf
	if len(ws) == 0 {
		return nil
	}
	_ = f.SetCellValue(sh, cellName(1, r, false), "Capacity plan from the analysis (static)")
	_ = f.SetCellStyle(sh, cellName(1, r, false), cellName(1, r, false), st.bold)
	r++
	u := unitNoun(in.a)
	hdr := []any{u, "basis", "users per replica", "target users", "replicas", u + "s", "cost per month (USD)", "USD per M output tokens",
		"USD per " + u + "-hour", "price"}
	energy := hasEnergyCost(ws)
	if energy {
		hdr = append(hdr, "energy per month (USD)", "energy USD per M output tokens")
	}
	if err := f.SetSheetRow(sh, cellName(1, r, false), &hdr); err != nil {
		return err
	}
	_ = f.SetCellStyle(sh, cellName(1, r, false), cellName(len(hdr), r, false), st.header)
	_ = f.SetRowHeight(sh, r, 30) // two lines: "cost per month (USD)" wraps in its column
	for _, w := range ws {
		r++
		row := []any{w.GPU, basisText(in.a, w), wholeUsers(w.UsersPerReplica), w.TargetUsers, w.Replicas, w.GPUs, priceCell(w.CostPerMonthUSD),
			priceCell(w.CostPerMOutputUSD), priceCell(w.GPUHourUSD), priceSource(w)}
		if energy {
			row = append(row, priceCell(w.EnergyCostPerMonthUSD), priceCell(w.EnergyCostPerMOutputUSD))
		}
		if err := f.SetSheetRow(sh, cellName(1, r, false), &row); err != nil {
			return err
		}
		_ = f.SetCellStyle(sh, cellName(3, r, false), cellName(6, r, false), st.int0)
		_ = f.SetCellStyle(sh, cellName(7, r, false), cellName(7, r, false), st.usd)
		_ = f.SetCellStyle(sh, cellName(8, r, false), cellName(8, r, false), st.usdSmall)
		_ = f.SetCellStyle(sh, cellName(9, r, false), cellName(9, r, false), st.usd2)
		_ = f.SetCellStyle(sh, cellName(10, r, false), cellName(10, r, false), st.wrap)
		if energy {
			_ = f.SetCellStyle(sh, cellName(11, r, false), cellName(11, r, false), st.usd)
			_ = f.SetCellStyle(sh, cellName(12, r, false), cellName(12, r, false), st.usdSmall)
		}
	}
	return nil
}

// priceSource says where a what-if row's $/GPU-hour came from: the measured GPU's
// row is priced by the plan (report.gpu_hour_usd) or else the GPU catalog, a projected
// GPU's by the GPU catalog, or by the plan's price when the catalog has none.
func priceSource(w analysis.WhatIf) string {
	switch {
	case w.SamePriceAssumed:
		return "same price assumed (no catalog price for this GPU)"
	case (w.Projected || w.PriceSource == analysis.PriceCatalog) && w.GPUHourUSD > 0:
		return "catalog"
	case w.GPUHourUSD > 0:
		return "report.gpu_hour_usd"
	}
	return "no price (set report.gpu_hour_usd)"
}

// writeErrorsTable writes the run's error breakdown (class, count, sample message) from
// row r and returns its last row.
func writeErrorsTable(f *excelize.File, st styles, e analysis.ErrorSummary, r int) int {
	sh := SheetSummary
	_ = f.SetCellValue(sh, cellName(1, r, false), "Errors: "+errorsSummaryText(e))
	_ = f.SetCellStyle(sh, cellName(1, r, false), cellName(1, r, false), st.bold)
	r++
	hdr := []any{"error class", "count", "sample message"}
	_ = f.SetSheetRow(sh, cellName(1, r, false), &hdr)
	_ = f.SetCellStyle(sh, cellName(1, r, false), cellName(3, r, false), st.header)
	for _, c := range errorRows(e) {
		r++
		row := []any{c[0], e.Classes[c[0]], oneLine(e.Samples[c[0]], 200)}
		_ = f.SetSheetRow(sh, cellName(1, r, false), &row)
	}
	return r
}

// keyNumber is one headline figure of the workbook: a number (or text) with its unit
// in the next column and a number format.
type keyNumber struct {
	label string
	value any
	unit  string
	style int
}

// xlsxKeyNumbers are keyNumbers as typed cells: numbers stay numbers, units apart.
func xlsxKeyNumbers(a *analysis.Analysis, st styles) []keyNumber {
	c := a.Overall
	src := orDash(a.OverallSource)
	atLeast := "" // a lower bound says so beside its number, as the PDF's "≥ 8"
	if c.Method == methodAtLeast {
		atLeast = ", at least (no step broke the SLA)"
	}
	return []keyNumber{
		{"Capacity per replica", nanNil(capacityLoad(a, c)), loadName(a) + atLeast, st.num1},
		{"Range, low", nanNil(c.RangeLow), loadName(a), st.num1},
		{"Range, high", ciHighCell(c), loadName(a), st.num1},
		{"Range (" + rangeKindText(c) + ")", rangeText(c), loadName(a), 0},
		{"Resampling noise (bootstrap, 95%)", noiseText(c), loadName(a), 0},
		{"Method", methodText(c.Method), "", 0},
		{"Binding constraint", analysis.BindingText(c), "", 0},
		{"Bottleneck", orDash(c.Bottleneck), "", 0},
		{"Throughput at capacity", nanNil(c.ThroughputAtCapacity), "req/s", st.num2},
		{"Output tokens at capacity", nanNil(c.OutputTokensPerSAtCapacity), "tokens/s", st.int0},
		{"Think time", nanNil(c.ThinkTimeS), "s", st.num1},
		{"Users per replica (whole users)", capacityUsers(c), "users" + atLeast, st.int0},
		{"Headline source", src, "", 0},
		{"SLA", constraintsText(a.Constraints), "", 0},
	}
}

// priceCell is a sizing row's price or cost cell: the number, or noPrice ("—") when it
// is 0 or unknown, as the PDF and the Markdown show it.
func priceCell(v float64) any {
	if !finite(v) || v <= 0 {
		return noPrice
	}
	return v
}

// headlineText is the workbook's line under the answer: what a user is, what limits
// capacity, what to do and how sure, as page 1 of the PDF says them.
func headlineText(a *analysis.Analysis) string {
	h := a.Headline
	var parts []string
	for _, l := range [][2]string{{"", h.Note}, {"What limits it: ", h.Limit}, {"What to do: ", h.Action}, {"How sure: ", h.Certainty}} {
		if l[1] != "" {
			parts = append(parts, l[0]+l[1])
		}
	}
	return strings.Join(parts, " ")
}
