package report

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/rundir"
)

// Workbook sheet names.
const (
	SheetSummary  = "Summary"
	SheetWarnings = "Warnings" // only when the run has warnings
	SheetCharts   = "Charts"
	SheetSteps    = "Steps"
	SheetSegments = "Segments"
	SheetModel    = "Model"
	SheetServer   = "ServerMetrics"
	SheetRequests = "Requests"
)

// Defined names of the Summary sheet's capacity calculator: inputs first, then formulas.
const (
	NameTargetUsers     = "TargetUsers"
	NameThinkTimeS      = "ThinkTimeS"
	NameHeadroom        = "Headroom"
	NameGPUHourUSD      = "GPUHourUSD"
	NameGPUsPerReplica  = "GPUsPerReplica"
	NameCapacityRps     = "CapacityThroughputRps"
	NameResponseTimeS   = "ResponseTimeAtCapacityS"
	NameUsersPerReplica = "UsersPerReplica"
	NameEffectiveUsers  = "EffectiveUsersPerReplica"
	NameReplicas        = "Replicas"
	NameGPUs            = "GPUs"
	NameCostPerMonthUSD = "CostPerMonthUSD"
	// The energy rows, only with a power price and a measured energy at capacity.
	NamePowerPerGPUW          = "PowerPerGPUAtCapacityW"
	NamePowerUSDPerKWh        = "PowerUSDPerKWh"
	NameEnergyCostPerMonthUSD = "EnergyCostPerMonthUSD"
)

// styles are the workbook's cell styles, created once.
type styles struct {
	title, bold, boldWrap, header, wrap, int0, num1, num2, num3, ms, rps, tokps, pctl, pct0, pct1, usd, usd2, usdSmall, secs int
	// Calculator inputs (yellow) and outputs (green), one per number format.
	inInt, inSecs, inSecs2, inPct, inUSD, inNum2, inNum1, outInt, outNum1, outUSD int
}

// newStyles registers the workbook's styles.
func newStyles(f *excelize.File) (styles, error) {
	var s styles
	var err error
	mk := func(dst *int, st *excelize.Style) {
		if err == nil {
			*dst, err = f.NewStyle(st)
		}
	}
	custom := func(fmt string) *string { return &fmt }
	fill := func(c string) excelize.Fill { return excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{c}} }
	border := []excelize.Border{{Type: "left", Color: "999999", Style: 1}, {Type: "right", Color: "999999", Style: 1},
		{Type: "top", Color: "999999", Style: 1}, {Type: "bottom", Color: "999999", Style: 1}}
	mk(&s.title, &excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}})
	mk(&s.bold, &excelize.Style{Font: &excelize.Font{Bold: true}})
	mk(&s.boldWrap, &excelize.Style{Font: &excelize.Font{Bold: true, Size: 12}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	mk(&s.header, &excelize.Style{Font: &excelize.Font{Bold: true}, Fill: fill("DDEBF7"), Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	mk(&s.wrap, &excelize.Style{Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	in := func(dst *int, numFmt string) {
		mk(dst, &excelize.Style{Fill: fill("FFF2CC"), Border: border, CustomNumFmt: custom(numFmt), Alignment: &excelize.Alignment{Horizontal: "right"}})
	}
	out := func(dst *int, numFmt string) {
		mk(dst, &excelize.Style{Font: &excelize.Font{Bold: true}, Fill: fill("E2EFDA"), Border: border, CustomNumFmt: custom(numFmt), Alignment: &excelize.Alignment{Horizontal: "right"}})
	}
	in(&s.inInt, "#,##0")
	in(&s.inSecs, "0.0")
	in(&s.inSecs2, "0.000")
	in(&s.inPct, "0%")
	in(&s.inUSD, `"$"#,##0.00`)
	in(&s.inNum2, "#,##0.00")
	in(&s.inNum1, "#,##0.0")
	out(&s.outInt, "#,##0")
	out(&s.outNum1, "#,##0.0")
	out(&s.outUSD, `"$"#,##0`)
	mk(&s.pct0, &excelize.Style{CustomNumFmt: custom("0%")})
	mk(&s.pct1, &excelize.Style{CustomNumFmt: custom("0.0%")})
	mk(&s.int0, &excelize.Style{NumFmt: 3}) // #,##0
	mk(&s.num1, &excelize.Style{CustomNumFmt: custom("#,##0.0")})
	mk(&s.num2, &excelize.Style{CustomNumFmt: custom("#,##0.00")})
	mk(&s.num3, &excelize.Style{CustomNumFmt: custom("0.000")})
	mk(&s.ms, &excelize.Style{CustomNumFmt: custom(`#,##0.0" ms"`)})
	mk(&s.rps, &excelize.Style{CustomNumFmt: custom(`#,##0.00" req/s"`)})
	mk(&s.tokps, &excelize.Style{CustomNumFmt: custom(`#,##0" tok/s"`)})
	mk(&s.pctl, &excelize.Style{NumFmt: 10}) // 0.00%
	mk(&s.usd, &excelize.Style{CustomNumFmt: custom(`"$"#,##0`)})
	mk(&s.usd2, &excelize.Style{CustomNumFmt: custom(`"$"#,##0.00`)})
	mk(&s.usdSmall, &excelize.Style{CustomNumFmt: custom(usdSmallNumFmt)})
	mk(&s.secs, &excelize.Style{CustomNumFmt: custom(`0.000" s"`)})
	return s, err
}

// writeXLSX writes the workbook to path; everyRow (nil: none) is called with every
// request's row as the Requests sheet streams them, sampled or not (records.csv rides
// along that pass, writeXLSXAndRecordsCSV).
func writeXLSX(path string, in *input, everyRow func([]any) error) error {
	f, texts, err := buildXLSX(in, everyRow)
	if err != nil {
		return err
	}
	defer f.Close()
	f.SetZipWriter(func(w io.Writer) excelize.ZipWriter {
		return &formulaCacheZip{ZipWriter: fastZip(w), part: summarySheetPart, texts: texts}
	})
	// 0644 (excelize's SaveAs would make it executable).
	return rundir.WriteAtomic(path, func(w io.Writer) error {
		_, err := f.WriteTo(w)
		return err
	})
}

// fastZip is a zip writer that deflates at BestSpeed: the Requests sheet's XML is
// tens of MB, and default-level deflate would dominate the report's time.
func fastZip(w io.Writer) excelize.ZipWriter {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	return zw
}

// summarySheetPart is the Summary sheet's part in the zip: the workbook's first sheet,
// which excelize.NewFile creates as Sheet1 and buildXLSX renames.
const summarySheetPart = "xl/worksheets/sheet1.xml"

// formulaCacheZip is a ZipWriter that passes every part through unchanged except part
// (a normal sheet's XML, written whole by excelize), whose numeric formula results it
// retypes with numericFormulaCells on the way out.
type formulaCacheZip struct {
	excelize.ZipWriter
	part  string
	texts formulaTexts  // part's cached text results
	buf   *bytes.Buffer // part's XML while it is being written
	dst   io.Writer     // where part's XML goes
}

// Create starts the next part, first writing out a held-back one.
func (z *formulaCacheZip) Create(name string) (io.Writer, error) {
	if err := z.flush(); err != nil {
		return nil, err
	}
	w, err := z.ZipWriter.Create(name)
	if err != nil || name != z.part {
		return w, err
	}
	z.buf, z.dst = &bytes.Buffer{}, w
	return z.buf, nil
}

// Close writes out a held-back part and closes the zip.
func (z *formulaCacheZip) Close() error {
	if err := z.flush(); err != nil {
		return err
	}
	return z.ZipWriter.Close()
}

func (z *formulaCacheZip) flush() error {
	if z.buf == nil {
		return nil
	}
	b := z.buf.Bytes()
	z.buf = nil
	if _, err := z.dst.Write(numericFormulaCells(b, z.texts)); err != nil {
		return fmt.Errorf("%s: %w", z.part, err)
	}
	return nil
}

// strFormulaCell matches a formula cell whose cached value is typed as a string.
var strFormulaCell = regexp.MustCompile(`<c r="([A-Z]+[0-9]+)"([^>]*?) t="str">(<f>[^<]*</f>)<v>([^<]*)</v></c>`)

// formulaTexts are the cached text results of a sheet's formula cells, by cell (B35:
// "—"): excelize stores a text value as a shared-string index, which a formula cell
// (t="str") would show as that number.
type formulaTexts map[string]string

// numericFormulaCells fixes the cached values of a sheet's formula cells as excelize
// wrote them (every one typed t="str"): a cell of texts gets its text back (t="str",
// the text in <v>); any other whose value is a number loses t="str", so it is a number
// (t defaults to n) to every reader, not "194" as unformatted text in a viewer that
// does not recalculate.
func numericFormulaCells(sheetXML []byte, texts formulaTexts) []byte {
	return strFormulaCell.ReplaceAllFunc(sheetXML, func(m []byte) []byte {
		sub := strFormulaCell.FindSubmatch(m)
		cell, attrs, formula := string(sub[1]), string(sub[2]), string(sub[3])
		if text, ok := texts[cell]; ok {
			return []byte(`<c r="` + cell + `"` + attrs + ` t="str">` + formula + "<v>" + xmlText(text) + "</v></c>")
		}
		if x, err := strconv.ParseFloat(string(sub[4]), 64); err != nil || !finite(x) {
			return m
		}
		return []byte(`<c r="` + cell + `"` + attrs + ">" + formula + "<v>" + string(sub[4]) + "</v></c>")
	})
}

// buildXLSX builds the whole workbook in memory, with the Summary sheet's cached text
// results (for numericFormulaCells when it is written).
func buildXLSX(in *input, everyRow func([]any) error) (*excelize.File, formulaTexts, error) {
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", SheetSummary); err != nil {
		f.Close()
		return nil, nil, err
	}
	sheets := []string{SheetCharts, SheetSteps, SheetSegments, SheetModel, SheetServer, SheetRequests}
	if len(in.a.Warnings) > 0 {
		sheets = append([]string{SheetWarnings}, sheets...)
	}
	for _, name := range sheets {
		if _, err := f.NewSheet(name); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("sheet %s: %w", name, err)
		}
	}
	st, err := newStyles(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("styles: %w", err)
	}
	texts := formulaTexts{}
	steps := []func() error{
		func() error { return writeSummarySheet(f, st, in, texts) },
		func() error { return writeWarningsSheet(f, st, in.a) },
		func() error { return writeStepsSheet(f, st, in.a) },
		func() error { return writeChartsSheet(f, in.a) },
		func() error { return writeSegmentsSheet(f, st, in.a) },
		func() error { return writeModelSheet(f, st, in.a) },
		func() error { return writeServerSheet(f, st, in.metrics) },
		func() error { return writeGPUsSheet(f, st, in.a) },
		func() error { return writeRequestsSheet(f, st, in, everyRow) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	f.SetActiveSheet(0)
	return f, texts, nil
}

// cellName is the A1 name of (col, row), both 1-based; absolute adds $ signs.
func cellName(col, row int, absolute bool) string {
	c, _ := excelize.CoordinatesToCellName(col, row, absolute)
	return c
}

// fitToPage makes a PDF or paper export of sheet print area rng (A1:L63) one page:
// it defines the sheet's print area (_xlnm.Print_Area) and scales the page to fit one
// page wide and one tall, in landscape when landscape is true.
func fitToPage(f *excelize.File, sheet, rng string, landscape bool) error {
	from, to, _ := strings.Cut(rng, ":")
	c0, r0, err := excelize.CellNameToCoordinates(from)
	if err != nil {
		return fmt.Errorf("%s print area: %w", sheet, err)
	}
	c1, r1, err := excelize.CellNameToCoordinates(to)
	if err != nil {
		return fmt.Errorf("%s print area: %w", sheet, err)
	}
	ref := fmt.Sprintf("'%s'!%s:%s", sheet, cellName(c0, r0, true), cellName(c1, r1, true))
	if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area", RefersTo: ref, Scope: sheet}); err != nil {
		return fmt.Errorf("%s print area: %w", sheet, err)
	}
	one, fit, orientation := 1, true, "portrait"
	if landscape {
		orientation = "landscape"
	}
	if err := f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return fmt.Errorf("%s fit to page: %w", sheet, err)
	}
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{FitToWidth: &one, FitToHeight: &one, Orientation: &orientation}); err != nil {
		return fmt.Errorf("%s page layout: %w", sheet, err)
	}
	return nil
}

// usedRange is the A1 range from A1 to sheet's last used row and column.
func usedRange(f *excelize.File, sheet string) (string, error) {
	rows, err := f.GetRows(sheet)
	if err != nil {
		return "", fmt.Errorf("%s: %w", sheet, err)
	}
	cols := 1
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	return "A1:" + cellName(cols, max(1, len(rows)), false), nil
}

// printTable sets a table sheet's print setup: landscape, fit to one page wide (as many
// pages tall as its rows need) and its header row (row 1) repeated on every page
// (_xlnm.Print_Titles). A streamed sheet must get it before its StreamWriter starts.
func printTable(f *excelize.File, sheet string) error {
	titles := fmt.Sprintf("'%s'!$1:$1", sheet)
	if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", RefersTo: titles, Scope: sheet}); err != nil {
		return fmt.Errorf("%s print titles: %w", sheet, err)
	}
	wide, tall, fit, orientation := 1, 0, true, "landscape"
	if err := f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return fmt.Errorf("%s fit to page: %w", sheet, err)
	}
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{FitToWidth: &wide, FitToHeight: &tall, Orientation: &orientation}); err != nil {
		return fmt.Errorf("%s page layout: %w", sheet, err)
	}
	return nil
}
