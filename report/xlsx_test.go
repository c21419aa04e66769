package report

import (
	"archive/zip"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// writeFixtureXLSX writes the synthetic run's workbook and reopens it.
func writeFixtureXLSX(t *testing.T) (*excelize.File, string, *input) {
	t.Helper()
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 20)
	if err := Write(dir, a, []string{"xlsx"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileXLSX)
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	return f, path, in
}

// definedCell returns the Summary cell a defined name refers to.
func definedCell(t *testing.T, f *excelize.File, name string) string {
	t.Helper()
	for _, dn := range f.GetDefinedName() {
		if dn.Name == name {
			_, cell, _ := strings.Cut(dn.RefersTo, "!")
			return strings.ReplaceAll(cell, "$", "")
		}
	}
	t.Fatalf("defined name %s missing", name)
	return ""
}

// calc evaluates a Summary cell as a number.
func calc(t *testing.T, f *excelize.File, cell string) float64 {
	t.Helper()
	s, err := f.CalcCellValue(SheetSummary, cell, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("calc %s: %v", cell, err)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("calc %s = %q: %v", cell, s, err)
	}
	return v
}

func TestXLSXCalculator(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	a := in.a
	c := a.Overall
	replicas := definedCell(t, f, NameReplicas)
	users := c.MaxConcurrencyWithinSLA + c.ThroughputAtCapacity*c.ThinkTimeS
	want := math.Ceil(1000 / (users * 0.8))
	if got := calc(t, f, replicas); got != want || int(got) != a.WhatIf[0].Replicas {
		t.Errorf("Replicas = %v, want %v (what-if row says %d)", got, want, a.WhatIf[0].Replicas)
	}
	if got, want := calc(t, f, definedCell(t, f, NameCostPerMonthUSD)), want*2.5*hoursPerMonth; math.Abs(got-want) > 1e-6 {
		t.Errorf("CostPerMonthUSD = %v, want %v", got, want)
	}
	// Editing an input recomputes: 5,000 users.
	if err := f.SetCellValue(SheetSummary, definedCell(t, f, NameTargetUsers), 5000); err != nil {
		t.Fatal(err)
	}
	if got := calc(t, f, replicas); int(got) != a.WhatIf[2].Replicas || got != math.Ceil(5000/(users*0.8)) {
		t.Errorf("Replicas for 5000 users = %v, want %d", got, a.WhatIf[2].Replicas)
	}
	// No think time: users per replica fall to the concurrency at capacity.
	if err := f.SetCellValue(SheetSummary, definedCell(t, f, NameThinkTimeS), 0); err != nil {
		t.Fatal(err)
	}
	if got, want := calc(t, f, replicas), math.Ceil(5000/(c.MaxConcurrencyWithinSLA*0.8)); got != want {
		t.Errorf("Replicas without think time = %v, want %v", got, want)
	}
	if err := f.SetCellValue(SheetSummary, definedCell(t, f, NameGPUsPerReplica), 4); err != nil {
		t.Fatal(err)
	}
	if got, want := calc(t, f, definedCell(t, f, NameGPUs)), 4*math.Ceil(5000/(c.MaxConcurrencyWithinSLA*0.8)); got != want {
		t.Errorf("GPUs with 4 per replica = %v, want %v", got, want)
	}
}

// xlsxDescription lists the workbook's sheets, headers, defined names and formulas,
// one per line, for the golden file.
func xlsxDescription(t *testing.T, f *excelize.File) string {
	var b strings.Builder
	for _, sh := range f.GetSheetList() {
		rows, err := f.GetRows(sh)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "sheet %s: %d rows\n", sh, len(rows))
		if sh != SheetSummary && len(rows) > 0 {
			fmt.Fprintf(&b, "  header: %s\n", strings.Join(rows[0], " | "))
		}
		tables, _ := f.GetTables(sh)
		for _, tb := range tables {
			fmt.Fprintf(&b, "  table %s %s\n", tb.Name, tb.Range)
		}
	}
	for _, dn := range f.GetDefinedName() {
		cell := strings.ReplaceAll(strings.SplitN(dn.RefersTo, "!", 2)[1], "$", "")
		formula, _ := f.GetCellFormula(SheetSummary, cell)
		label, _ := f.GetCellValue(SheetSummary, "A"+strings.TrimLeft(cell, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
		fmt.Fprintf(&b, "name %s = %s (%s) formula=%q\n", dn.Name, dn.RefersTo, label, formula)
	}
	return b.String()
}

func TestXLSXGolden(t *testing.T) {
	f, path, in := writeFixtureXLSX(t)
	golden(t, "workbook.txt", []byte(xlsxDescription(t, f)))
	// Every record is a row of the Requests sheet (plus the header).
	rows, err := f.GetRows(SheetRequests)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(in.records)+1 {
		t.Errorf("Requests has %d rows, want %d", len(rows), len(in.records)+1)
	}
	// The native charts exist: a drawing with two charts attached to the Charts sheet.
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	charts := 0
	for _, zf := range z.File {
		if strings.HasPrefix(zf.Name, "xl/charts/chart") {
			charts++
		}
	}
	if charts != 2 {
		t.Errorf("workbook has %d chart parts, want 2", charts)
	}
	// SLA violations are highlighted on the Steps sheet.
	cfs, err := f.GetConditionalFormats(SheetSteps)
	if err != nil || len(cfs) != 2 {
		t.Errorf("Steps conditional formats = %v (%v), want TTFT p95 and ITL p95", cfs, err)
	}
	// The Steps sheet carries number formats with units.
	cell := cellName(stepsColTTFTp95, 2, false)
	v, _ := f.GetCellValue(SheetSteps, cell)
	if !strings.HasSuffix(v, " ms") {
		t.Errorf("Steps!%s = %q, want a value formatted with \" ms\"", cell, v)
	}
}
