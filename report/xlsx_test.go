package report

import (
	"archive/zip"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// writeXLSXOf writes analysis a's workbook into a run directory of perStep records
// per step and reopens it (closed when the test ends); it returns the file, its path
// and the run directory.
func writeXLSXOf(t *testing.T, a *analysis.Analysis, perStep int) (*excelize.File, string, string) {
	t.Helper()
	dir := fxWriteRunDir(t, a, perStep)
	if err := Write(dir, a, []string{"xlsx"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileXLSX)
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path, dir
}

// writeFixtureXLSX writes the synthetic run's workbook and reopens it.
func writeFixtureXLSX(t *testing.T) (*excelize.File, string, *input) {
	t.Helper()
	a := fxAnalysis()
	f, path, dir := writeXLSXOf(t, a, 20)
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

// whatIfRow finds the measured what-if row for target users.
func whatIfRow(t *testing.T, in *input, target int) analysis.WhatIf {
	t.Helper()
	for _, w := range in.a.WhatIf {
		if !w.Projected && w.TargetUsers == target {
			return w
		}
	}
	t.Fatalf("no measured what-if row for %d users", target)
	return analysis.WhatIf{}
}

func TestXLSXCalculator(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	c := in.a.Overall
	replicas := definedCell(t, f, NameReplicas)
	// The defaults reproduce the analysis's sizing for the headline (largest) target.
	if got := calc(t, f, definedCell(t, f, NameTargetUsers)); got != 5000 {
		t.Errorf("TargetUsers default = %v, want the largest plan target 5000", got)
	}
	users := math.Floor(c.UsersWithThinkTime)
	if got := calc(t, f, definedCell(t, f, NameUsersPerReplica)); got != users {
		t.Errorf("UsersPerReplica = %v, want the analysis's %v rounded down to %v", got, c.UsersWithThinkTime, users)
	}
	w := whatIfRow(t, in, 5000)
	if got := calc(t, f, replicas); int(got) != w.Replicas || got != math.Ceil(5000/(users*0.8)) {
		t.Errorf("Replicas = %v, want the what-if row's %d", got, w.Replicas)
	}
	if got := calc(t, f, definedCell(t, f, NameCostPerMonthUSD)); math.Abs(got-w.CostPerMonthUSD) > 1e-6 {
		t.Errorf("CostPerMonthUSD = %v, want %v", got, w.CostPerMonthUSD)
	}
	// Editing an input recomputes: 1,000 users.
	setCalc(t, f, NameTargetUsers, 1000)
	if got := calc(t, f, replicas); int(got) != whatIfRow(t, in, 1000).Replicas {
		t.Errorf("Replicas for 1000 users = %v, want %d", got, whatIfRow(t, in, 1000).Replicas)
	}
	// No think time: users per replica fall to X·R, the requests in flight at capacity.
	setCalc(t, f, NameThinkTimeS, 0)
	inFlight := math.Floor(c.ThroughputAtCapacity*responseTimeS(c) + 1e-6)
	if math.Abs(inFlight-math.Floor(c.MaxConcurrencyWithinSLA)) > 1 {
		t.Errorf("X·R = %v, want about the capacity concurrency %v", inFlight, c.MaxConcurrencyWithinSLA)
	}
	if got, want := calc(t, f, replicas), math.Ceil(1000/(inFlight*0.8)); got != want {
		t.Errorf("Replicas without think time = %v, want %v", got, want)
	}
	setCalc(t, f, NameGPUsPerReplica, 4)
	if got, want := calc(t, f, definedCell(t, f, NameGPUs)), 4*math.Ceil(1000/(inFlight*0.8)); got != want {
		t.Errorf("GPUs with 4 per replica = %v, want %v", got, want)
	}
	// No price: the cost is "—" (unknown), not $0.
	setCalc(t, f, NameGPUHourUSD, 0)
	if s, err := f.CalcCellValue(SheetSummary, definedCell(t, f, NameCostPerMonthUSD)); err != nil || s != "—" {
		t.Errorf("CostPerMonthUSD without a price = %q (%v), want —", s, err)
	}
	setCalc(t, f, NameGPUHourUSD, 2.5)
	// Headroom of 100% leaves no capacity: an explicit n/a, not 0 replicas.
	setCalc(t, f, NameHeadroom, 1)
	for _, name := range []string{NameReplicas, NameGPUs, NameCostPerMonthUSD} {
		s, err := f.CalcCellValue(SheetSummary, definedCell(t, f, name))
		if err != nil || !strings.HasPrefix(s, "n/a") {
			t.Errorf("%s with headroom 1 = %q (%v), want n/a", name, s, err)
		}
	}
}

// setCalc sets a calculator input by its defined name.
func setCalc(t *testing.T, f *excelize.File, name string, v any) {
	t.Helper()
	if err := f.SetCellValue(SheetSummary, definedCell(t, f, name), v); err != nil {
		t.Fatal(err)
	}
}

func TestXLSXInputsValidatedAndTyped(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	dvs, err := f.GetDataValidations(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	bySqref := map[string]*excelize.DataValidation{}
	for _, dv := range dvs {
		bySqref[dv.Sqref] = dv
	}
	for _, c := range []struct {
		name, typ, lo, hi string
	}{{NameTargetUsers, "whole", "1", "1000000000"}, {NameHeadroom, "decimal", "0", "0.95"}, {NameGPUsPerReplica, "whole", "1", "1024"}} {
		dv := bySqref[definedCell(t, f, c.name)]
		if dv == nil || dv.Type != c.typ || dv.Formula1 != c.lo || dv.Formula2 != c.hi {
			t.Errorf("%s validation = %+v, want %s between %s and %s", c.name, dv, c.typ, c.lo, c.hi)
		}
	}
	// Inputs show without a trailing dot: #,##0 and 0% formats.
	for name, want := range map[string]string{NameTargetUsers: "5,000", NameHeadroom: "20%", NameGPUHourUSD: "$2.50"} {
		if got, _ := f.GetCellValue(SheetSummary, definedCell(t, f, name)); got != want {
			t.Errorf("%s shows %q, want %q", name, got, want)
		}
	}
	// The key numbers are numbers with the unit in the next column.
	rows, err := f.GetRows(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		if len(r) >= 3 && strings.HasPrefix(r[0], "Users per replica (whole") {
			found = true
			if want := num(math.Floor(in.a.Overall.UsersWithThinkTime), 0); r[1] != want || r[2] != "users" {
				t.Errorf("users key number = %q %q, want %s users", r[1], r[2], want)
			}
		}
	}
	if !found {
		t.Error("no users-per-replica key number")
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
		if dn.Scope != "" && dn.Scope != "Workbook" { // a sheet's own name: its print area
			fmt.Fprintf(&b, "name %s (sheet %s) = %s\n", dn.Name, dn.Scope, dn.RefersTo)
			continue
		}
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
	if n := len(inputRecords(t, in)); len(rows) != n+1 {
		t.Errorf("Requests has %d rows, want %d", len(rows), n+1)
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
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			// The x values are numeric references: points plot against the load's value.
			if !strings.Contains(string(b), "<xVal><numRef>") || strings.Contains(string(b), "<xVal><strRef>") {
				t.Errorf("%s: x values are not numeric references", zf.Name)
			}
		}
	}
	if charts != 3 {
		t.Errorf("workbook has %d chart parts, want 3 (TTFT, throughput, ITL)", charts)
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

// The calculator's defaults reproduce the demo's measured users per replica (186),
// although its users sent faster than X · Z allows (19.5 req/s × 10 s = 195 > 186):
// X is then users ÷ (R + Z), not the 194 users the throughput at capacity gives.
func TestXLSXCalculatorReproducesMeasuredUsers(t *testing.T) {
	in := chartRun(t, "demo")
	c := in.a.Overall
	if c.UsersSource != analysis.UsersMeasured || !(c.ThroughputAtCapacity*c.ThinkTimeS > c.UsersWithThinkTime) {
		t.Fatalf("fixture: want measured users below X·Z, got %v users, X %v, Z %v (%s)", c.UsersWithThinkTime, c.ThroughputAtCapacity, c.ThinkTimeS, c.UsersSource)
	}
	f, _, err := buildXLSX(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := math.Floor(c.UsersWithThinkTime)
	if got := calc(t, f, definedCell(t, f, NameUsersPerReplica)); got != want {
		t.Errorf("UsersPerReplica = %v, want the analysis's measured %v", got, want)
	}
	w := in.a.WhatIf[len(in.a.WhatIf)-1]
	setCalc(t, f, NameTargetUsers, w.TargetUsers)
	if got := calc(t, f, definedCell(t, f, NameReplicas)); int(got) != w.Replicas {
		t.Errorf("Replicas for %d users = %v, want the capacity plan's %d", w.TargetUsers, got, w.Replicas)
	}
}
