package report

import (
	"math"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// fixtureXLSXWith builds the synthetic run's workbook after edit changes its analysis.
func fixtureXLSXWith(t *testing.T, edit func(a *analysis.Analysis)) (*excelize.File, *input) {
	t.Helper()
	a := fxAnalysis()
	edit(a)
	in, err := loadInput(fxWriteRunDir(t, a, 20), a)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := buildXLSX(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, in
}

// summaryRow is the Summary row whose label (column A) starts with prefix.
func summaryRow(t *testing.T, f *excelize.File, prefix string) []string {
	t.Helper()
	rows, err := f.GetRows(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if len(r) > 0 && strings.HasPrefix(r[0], prefix) {
			return r
		}
	}
	t.Fatalf("no Summary row starting %q", prefix)
	return nil
}

// definedCellOK is the Summary cell a defined name refers to, or false.
func definedCellOK(f *excelize.File, name string) (string, bool) {
	for _, dn := range f.GetDefinedName() {
		if dn.Name == name {
			_, cell, _ := strings.Cut(dn.RefersTo, "!")
			return strings.ReplaceAll(cell, "$", ""), true
		}
	}
	return "", false
}

// TestXLSXCalculatorInputsAreTheAnalysis: for users converted from a concurrency
// ladder, X is the analysis's throughput at capacity and R its requests in flight ÷ X
// (the mean E2E behind X, Little's law), so X × (R + Z) is the analysis's users.
func TestXLSXCalculatorInputsAreTheAnalysis(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	c := in.a.Overall
	if c.UsersSource == analysis.UsersMeasured {
		t.Fatalf("fixture: want users converted from concurrency, got %q", c.UsersSource)
	}
	x := calc(t, f, definedCell(t, f, NameCapacityRps))
	r := calc(t, f, definedCell(t, f, NameResponseTimeS))
	if math.Abs(x-c.ThroughputAtCapacity) > 1e-12*c.ThroughputAtCapacity {
		t.Errorf("X = %v, want the analysis's throughput at capacity %v", x, c.ThroughputAtCapacity)
	}
	if math.Abs(x*r-c.MaxConcurrencyWithinSLA) > 1e-9*c.MaxConcurrencyWithinSLA || r <= 0 {
		t.Errorf("X·R = %v, want the analysis's requests in flight at capacity %v", x*r, c.MaxConcurrencyWithinSLA)
	}
	if math.Abs(x*(r+c.ThinkTimeS)-c.UsersWithThinkTime) > 1e-6 {
		t.Errorf("X·(R+Z) = %v, want the analysis's users %v", x*(r+c.ThinkTimeS), c.UsersWithThinkTime)
	}
}

// TestXLSXCalculatorMeasuredUsersInput: users measured by a users ladder (the demo) are
// the calculator's input, labelled measured, with no think-time conversion to undo
// them: no X, R or think-time inputs, and the defaults reproduce the capacity plan.
func TestXLSXCalculatorMeasuredUsersInput(t *testing.T) {
	in := chartRun(t, "demo")
	c := in.a.Overall
	if c.UsersSource != analysis.UsersMeasured {
		t.Fatalf("fixture: want measured users, got %q", c.UsersSource)
	}
	f, _, err := buildXLSX(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cell := definedCell(t, f, NameUsersPerReplica)
	if fo, _ := f.GetCellFormula(SheetSummary, cell); fo != "" {
		t.Errorf("UsersPerReplica is the formula %q, want the measured users as an input", fo)
	}
	if got := calc(t, f, cell); got != float64(c.Users) || got != 186 {
		t.Errorf("UsersPerReplica = %v, want the measured %d", got, c.Users)
	}
	if r := summaryRow(t, f, "Users per replica (measured"); !strings.Contains(r[0], "10 s") {
		t.Errorf("measured users row %q, want the think time it was measured with", r[0])
	}
	for _, name := range []string{NameThinkTimeS, NameCapacityRps, NameResponseTimeS} {
		if cell, ok := definedCellOK(f, name); ok {
			t.Errorf("measured users: calculator has %s (%s), want no conversion inputs", name, cell)
		}
	}
	for _, w := range in.a.WhatIf {
		setCalc(t, f, NameTargetUsers, w.TargetUsers)
		if got := calc(t, f, definedCell(t, f, NameReplicas)); int(got) != w.Replicas {
			t.Errorf("Replicas for %d users = %v, want the capacity plan's %d", w.TargetUsers, got, w.Replicas)
		}
	}
}

// TestXLSXCalculatorNoThinkTime: a converted run with its think time set to 0 still
// sizes (users = X·R, the requests in flight), never "n/a: no users per replica".
func TestXLSXCalculatorNoThinkTime(t *testing.T) {
	in := chartRun(t, "ollama")
	f, _, err := buildXLSX(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	setCalc(t, f, NameThinkTimeS, 0)
	c := in.a.Overall
	if got, want := calc(t, f, definedCell(t, f, NameUsersPerReplica)), math.Floor(c.MaxConcurrencyWithinSLA+1e-6); got != want || got <= 0 {
		t.Errorf("UsersPerReplica without think time = %v, want the requests in flight %v", got, want)
	}
	if got := calc(t, f, definedCell(t, f, NameReplicas)); got < 1 {
		t.Errorf("Replicas without think time = %v, want ≥ 1", got)
	}
}

// TestXLSXLowerBoundLabelled: a capacity that is a lower bound (no step broke the SLA)
// says "at least" beside its key numbers and the calculator's users, "at most" beside
// the replicas, devices and cost, and the plan's basis in singular for one replica.
func TestXLSXLowerBoundLabelled(t *testing.T) {
	f, in := fixtureXLSXWith(t, func(a *analysis.Analysis) {
		a.Overall.Method, a.Overall.RangeHigh, a.Overall.OpenEnded = methodAtLeast, 0, true
		a.WhatIf[0].Replicas, a.WhatIf[0].GPUs = 1, 1
	})
	for prefix, want := range map[string]string{
		"Capacity per replica": "at least", "Users per replica (whole users)": "at least", "Users per replica =": "at least",
		"Planned load": "at least", "Replicas needed": "at most", "GPUs needed": "at most", "Cost per month": "at most"} {
		if r := summaryRow(t, f, prefix); len(r) < 3 || !strings.Contains(r[2], want) {
			t.Errorf("row %q: unit %q, want %q", prefix, r, want)
		}
	}
	if got := basisText(in.a, in.a.WhatIf[0]); got != "lower bound" {
		t.Errorf("basis = %q, want \"lower bound\" (one replica needs no \"at most\")", got)
	}
	plain, _ := fixtureXLSXWith(t, func(*analysis.Analysis) {})
	if r := summaryRow(t, plain, "Replicas needed"); strings.Contains(r[2], "at most") {
		t.Errorf("a measured capacity's replicas say %q", r[2])
	}
}
