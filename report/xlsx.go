package report

import (
	"archive/zip"
	"compress/flate"
	"fmt"
	"io"
	"os"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// Workbook sheet names.
const (
	SheetSummary  = "Summary"
	SheetCharts   = "Charts"
	SheetSteps    = "Steps"
	SheetSegments = "Segments"
	SheetModel    = "Model"
	SheetServer   = "ServerMetrics"
	SheetRequests = "Requests"
)

// Defined names of the Summary sheet's capacity calculator: inputs first, then formulas.
const (
	NameTargetUsers      = "TargetUsers"
	NameThinkTimeS       = "ThinkTimeS"
	NameHeadroom         = "Headroom"
	NameGPUHourUSD       = "GPUHourUSD"
	NameGPUsPerReplica   = "GPUsPerReplica"
	NameCapacityInFlight = "CapacityConcurrency"
	NameCapacityRps      = "CapacityThroughputRps"
	NameUsersPerReplica  = "UsersPerReplica"
	NameEffectiveUsers   = "EffectiveUsersPerReplica"
	NameReplicas         = "Replicas"
	NameGPUs             = "GPUs"
	NameCostPerMonthUSD  = "CostPerMonthUSD"
)

// styles are the workbook's cell styles, created once.
type styles struct {
	title, bold, boldWrap, header, wrap, input, output, int0, num1, num2, num3, ms, rps, tokps, pctl, usd, usd2, secs int
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
	mk(&s.input, &excelize.Style{Fill: fill("FFF2CC"), Border: border, CustomNumFmt: custom("#,##0.##")})
	mk(&s.output, &excelize.Style{Font: &excelize.Font{Bold: true}, Fill: fill("E2EFDA"), Border: border, CustomNumFmt: custom("#,##0.0")})
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
	mk(&s.secs, &excelize.Style{CustomNumFmt: custom(`0.000" s"`)})
	return s, err
}

// writeXLSX writes the workbook to path.
func writeXLSX(path string, in *input) error {
	f, err := buildXLSX(in)
	if err != nil {
		return err
	}
	defer f.Close()
	f.SetZipWriter(fastZip)
	out, err := os.Create(path) // 0644 (excelize's SaveAs would make it executable)
	if err != nil {
		return err
	}
	if _, err := f.WriteTo(out); err != nil {
		out.Close()
		return fmt.Errorf("save %s: %w", path, err)
	}
	return out.Close()
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

// buildXLSX builds the whole workbook in memory.
func buildXLSX(in *input) (*excelize.File, error) {
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", SheetSummary); err != nil {
		f.Close()
		return nil, err
	}
	for _, name := range []string{SheetCharts, SheetSteps, SheetSegments, SheetModel, SheetServer, SheetRequests} {
		if _, err := f.NewSheet(name); err != nil {
			f.Close()
			return nil, fmt.Errorf("sheet %s: %w", name, err)
		}
	}
	st, err := newStyles(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("styles: %w", err)
	}
	steps := []func() error{
		func() error { return writeSummarySheet(f, st, in) },
		func() error { return writeStepsSheet(f, st, in.a) },
		func() error { return writeChartsSheet(f, in.a) },
		func() error { return writeSegmentsSheet(f, st, in.a) },
		func() error { return writeModelSheet(f, st, in.a) },
		func() error { return writeServerSheet(f, st, in.metrics) },
		func() error { return writeRequestsSheet(f, st, in) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			f.Close()
			return nil, err
		}
	}
	f.SetActiveSheet(0)
	return f, nil
}

// cellName is the A1 name of (col, row), both 1-based; absolute adds $ signs.
func cellName(col, row int, absolute bool) string {
	c, _ := excelize.CoordinatesToCellName(col, row, absolute)
	return c
}

// calcInput is one input (or formula) row of the capacity calculator.
type calcInput struct {
	name, label, unit string
	value             any    // inputs
	formula           string // outputs
	style             int
}

// capacityInFlight is the number of requests in flight per replica at capacity: the
// capacity concurrency (closed loop), else X·R derived from users = X·(R + Z).
func capacityInFlight(a *analysis.Analysis) float64 {
	c := a.Overall
	if !isRate(a) && c.MaxConcurrencyWithinSLA > 0 {
		return c.MaxConcurrencyWithinSLA
	}
	if v := c.UsersWithThinkTime - c.ThroughputAtCapacity*c.ThinkTimeS; finite(v) && v > 0 {
		return v
	}
	return 0
}

// calculatorRows defines the calculator: inputs (yellow) then formulas (green).
func calculatorRows(a *analysis.Analysis, st styles) []calcInput {
	target := 1000
	if t := a.Plan.Report.TargetUsers; len(t) > 0 && t[0] > 0 {
		target = t[0]
	}
	think := a.Overall.ThinkTimeS
	if !finite(think) || think < 0 {
		think = 0
	}
	return []calcInput{
		{name: NameTargetUsers, label: "Target users", unit: "users", value: target, style: st.input},
		{name: NameThinkTimeS, label: "Think time between requests", unit: "s", value: think, style: st.input},
		{name: NameHeadroom, label: "Headroom kept free per replica", unit: "fraction (0.2 = 20%)", value: headroom(a), style: st.input},
		{name: NameGPUHourUSD, label: "Price per GPU-hour", unit: "USD", value: gpuHourUSD(a), style: st.input},
		{name: NameGPUsPerReplica, label: "GPUs per replica", unit: "GPUs", value: gpusPerReplica(a), style: st.input},
		{name: NameCapacityInFlight, label: "Requests in flight per replica at capacity (from the analysis)", unit: "requests", value: capacityInFlight(a), style: st.input},
		{name: NameCapacityRps, label: "Throughput per replica at capacity (from the analysis)", unit: "req/s", value: a.Overall.ThroughputAtCapacity, style: st.input},
		{name: NameUsersPerReplica, label: "Users per replica = in flight + throughput × think time", unit: "users", formula: NameCapacityInFlight + "+" + NameCapacityRps + "*" + NameThinkTimeS, style: st.output},
		{name: NameEffectiveUsers, label: "Users per replica after headroom", unit: "users", formula: NameUsersPerReplica + "*(1-" + NameHeadroom + ")", style: st.output},
		{name: NameReplicas, label: "Replicas needed", unit: "replicas", formula: "IF(" + NameEffectiveUsers + ">0,ROUNDUP(" + NameTargetUsers + "/" + NameEffectiveUsers + ",0),0)", style: st.output},
		{name: NameGPUs, label: "GPUs needed", unit: "GPUs", formula: NameReplicas + "*" + NameGPUsPerReplica, style: st.output},
		{name: NameCostPerMonthUSD, label: "Cost per month", unit: fmt.Sprintf("USD (%d h)", hoursPerMonth), formula: fmt.Sprintf("%s*%s*%d", NameGPUs, NameGPUHourUSD, hoursPerMonth), style: st.output},
	}
}
