package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmcap/llmcap/analysis"
	"github.com/xuri/excelize/v2"
)

// TestXLSXPrintsOnePage: the Summary sheet (landscape) and the Charts sheet each print
// on one page: a print area covering every used cell, fit to one page wide and tall.
func TestXLSXPrintsOnePage(t *testing.T) {
	f, _, _ := writeFixtureXLSX(t)
	areas := map[string]string{}
	for _, dn := range f.GetDefinedName() {
		if dn.Name == "_xlnm.Print_Area" {
			areas[dn.Scope] = dn.RefersTo
		}
	}
	rows, err := f.GetRows(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	for sheet, want := range map[string]string{
		SheetSummary: "'Summary'!$A$1:$J$" + strconv.Itoa(len(rows)), // the what-if table's 10 columns
		SheetCharts:  "'Charts'!$A$1:$L$63",                          // three 720×400 px charts
	} {
		if got := areas[sheet]; got != want {
			t.Errorf("%s print area = %q, want %q", sheet, got, want)
		}
		pl, err := f.GetPageLayout(sheet)
		if err != nil || pl.FitToWidth == nil || *pl.FitToWidth != 1 || pl.FitToHeight == nil || *pl.FitToHeight != 1 {
			t.Errorf("%s page layout %+v (%v), want fit to 1 × 1 pages", sheet, pl, err)
		}
		props, err := f.GetSheetProps(sheet)
		if err != nil || props.FitToPage == nil || !*props.FitToPage {
			t.Errorf("%s sheet properties: fitToPage %v (%v), want true", sheet, props.FitToPage, err)
		}
	}
	if pl, _ := f.GetPageLayout(SheetSummary); pl.Orientation == nil || *pl.Orientation != "landscape" {
		t.Errorf("Summary orientation %v, want landscape", pl.Orientation)
	}
}

// TestXLSXCalculatorLayout: the calculator's title sits on its own row above a header
// whose labels fit their columns on one line (a wrapped header grew onto the first
// input row), and the answer row is tall enough for its wrapped sentence.
func TestXLSXCalculatorLayout(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	first := definedCell(t, f, NameTargetUsers)
	_, row, err := excelize.CellNameToCoordinates(first)
	if err != nil {
		t.Fatal(err)
	}
	if got := cellText(f, SheetSummary, cellName(1, row-2, false)); !strings.HasPrefix(got, "Capacity calculator") {
		t.Errorf("the row two above the first input holds %q, want the calculator's title", got)
	}
	for col := 1; col <= 3; col++ {
		cell := cellName(col, row-1, false)
		text := cellText(f, SheetSummary, cell)
		name, _ := excelize.ColumnNumberToName(col)
		width, _ := f.GetColWidth(SheetSummary, name)
		if text == "" || float64(utf8.RuneCountInString(text)) > width {
			t.Errorf("calculator header %s = %q (%d characters), want a label within the column's %v", cell, text, utf8.RuneCountInString(text), width)
		}
	}
	h, err := f.GetRowHeight(SheetSummary, 3)
	if want := wrappedRowHeight(in.a.Answer, summaryMergedWidth, 12); err != nil || h < want || h < 2*12 {
		t.Errorf("answer row height %v (%v), want ≥ %v for %d characters", h, err, want, len(in.a.Answer))
	}
}

// TestWrappedRowHeight: one line per width's worth of characters, at least one line.
func TestWrappedRowHeight(t *testing.T) {
	for _, c := range []struct {
		n     int
		width float64
		want  float64
	}{{0, 100, 15}, {90, 100, 15}, {91, 100, 30}, {250, 100, 45}} {
		if got := wrappedRowHeight(strings.Repeat("x", c.n), c.width, 11); got != c.want {
			t.Errorf("wrappedRowHeight(%d characters, width %v, 11 pt) = %v, want %v", c.n, c.width, got, c.want)
		}
	}
}

// TestXLSXCalculatorWholeUsers: users per replica show as whole users (rounded down),
// and the planned load after headroom with one decimal, the unrounded figure the
// replicas divide by (as the analysis's sizing does), so the sheet's arithmetic reads
// right: replicas × planned load ≥ target users.
func TestXLSXCalculatorWholeUsers(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	users := float64(wholeUsers(in.a.Overall.UsersWithThinkTime))
	planned := users * (1 - headroom(in.a))
	if planned == float64(int(planned)) {
		t.Fatalf("fixture's planned load %v is whole: pick one with a fraction", planned)
	}
	for name, want := range map[string]string{NameUsersPerReplica: num(users, 0), NameEffectiveUsers: num(planned, 1)} {
		cell := definedCell(t, f, name)
		if shown, _ := f.GetCellValue(SheetSummary, cell); shown != want {
			t.Errorf("%s (%s) shows %q, want %s", name, cell, shown, want)
		}
	}
	target := calc(t, f, definedCell(t, f, NameTargetUsers))
	replicas := calc(t, f, definedCell(t, f, NameReplicas))
	if replicas*planned < target || (replicas-1)*planned >= target {
		t.Errorf("%v replicas × planned load %v does not just cover %v target users", replicas, planned, target)
	}
}

var summaryFormulaCellRe = regexp.MustCompile(`<c r="([A-Z]+\d+)"([^>]*)><f>[^<]*</f><v>([^<]*)</v></c>`)

// TestXLSXFormulaCachesAreNumbers: in the written Summary sheet's XML, every calculator
// formula with a numeric result is a number cell (no t="str"), so readers that do not
// recalculate see numbers they can format and sum.
func TestXLSXFormulaCachesAreNumbers(t *testing.T) {
	f, path, _ := writeFixtureXLSX(t)
	sheet := zipParts(t, path, summarySheetPart)[summarySheetPart]
	cells := map[string][2]string{}
	for _, m := range summaryFormulaCellRe.FindAllStringSubmatch(sheet, -1) {
		cells[m[1]] = [2]string{m[2], m[3]}
	}
	for _, name := range []string{NameUsersPerReplica, NameEffectiveUsers, NameReplicas, NameGPUs, NameCostPerMonthUSD} {
		cell := definedCell(t, f, name)
		c, ok := cells[cell]
		if !ok {
			t.Errorf("%s (%s): no formula cell with a cached value in %s", name, cell, summarySheetPart)
			continue
		}
		if _, err := strconv.ParseFloat(c[1], 64); err != nil || strings.Contains(c[0], `t="str"`) {
			t.Errorf("%s (%s): attributes %q, cached %q; want a number cell", name, cell, c[0], c[1])
		}
	}
}

// TestNumericFormulaCells: numeric cached results lose t="str"; a text result gets its
// text back in place of excelize's shared-string index; other cells are untouched.
func TestNumericFormulaCells(t *testing.T) {
	in := `<c r="B3" s="12" t="str"><f>ROUNDUP(A1/A2,0)</f><v>33</v></c>` +
		`<c r="B4" s="12" t="str"><f>IF(A1&gt;0,B3,&#34;—&#34;)</f><v>53</v></c>` +
		`<c r="B5" t="str"><v>plain</v></c>`
	want := `<c r="B3" s="12"><f>ROUNDUP(A1/A2,0)</f><v>33</v></c>` +
		`<c r="B4" s="12" t="str"><f>IF(A1&gt;0,B3,&#34;—&#34;)</f><v>— &amp; n/a</v></c>` +
		`<c r="B5" t="str"><v>plain</v></c>`
	if got := string(numericFormulaCells([]byte(in), formulaTexts{"B4": "— & n/a"})); got != want {
		t.Errorf("numericFormulaCells =\n%s\nwant\n%s", got, want)
	}
}

// TestXLSXTableSheetsPrintSetup: every table sheet prints landscape, one page wide (as
// tall as its rows need) with its header row repeated on each page (not the Model
// sheet's: its second table, the curves, has other columns), also in the written file
// (the Requests and ServerMetrics sheets are streamed).
func TestXLSXTableSheetsPrintSetup(t *testing.T) {
	f, _, _ := writeFixtureXLSX(t)
	titles := map[string]string{}
	for _, dn := range f.GetDefinedName() {
		if dn.Name == "_xlnm.Print_Titles" {
			titles[dn.Scope] = dn.RefersTo
		}
	}
	for _, col := range []string{"B", "C", "D", "E", "F", "G"} { // the curves' TTFT up to 6 digits, not "###"
		if w, err := f.GetColWidth(SheetModel, col); err != nil || w < 14 {
			t.Errorf("Model column %s width %v (%v), want ≥ 14", col, w, err)
		}
	}
	for _, sheet := range []string{SheetSteps, SheetSegments, SheetModel, SheetServer, SheetRequests} {
		want := "'" + sheet + "'!$1:$1"
		if sheet == SheetModel {
			want = "" // its curves table below the fit table has other columns
		}
		if got := titles[sheet]; got != want {
			t.Errorf("%s print titles = %q, want %q", sheet, got, want)
		}
		pl, err := f.GetPageLayout(sheet)
		if err != nil || pl.FitToWidth == nil || *pl.FitToWidth != 1 || pl.FitToHeight == nil || *pl.FitToHeight != 0 ||
			pl.Orientation == nil || *pl.Orientation != "landscape" {
			t.Errorf("%s page layout %+v (%v), want landscape, 1 page wide, any pages tall", sheet, pl, err)
		}
		if props, err := f.GetSheetProps(sheet); err != nil || props.FitToPage == nil || !*props.FitToPage {
			t.Errorf("%s: fitToPage %v (%v), want true", sheet, props.FitToPage, err)
		}
	}
}

// TestXLSXWarningsOnTheirOwnSheet: the Summary prints on one readable page: its
// warnings are one line with their count, listed whole on the Warnings sheet (one row
// each), and the capacity plan's price source column is wide enough to read, wrapped.
func TestXLSXWarningsOnTheirOwnSheet(t *testing.T) {
	f, _, in := writeFixtureXLSX(t)
	ws := in.a.Warnings
	if len(ws) == 0 {
		t.Fatal("fixture: want warnings")
	}
	rows, err := f.GetRows(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, r := range rows {
		for _, c := range r {
			for _, w := range ws {
				if strings.Contains(c, w.Message) {
					t.Errorf("Summary carries the warning %q: want it on the Warnings sheet", w.Message)
				}
			}
			if strings.Contains(c, plural(len(ws), "warning")) && strings.Contains(c, "Warnings sheet") {
				lines++
			}
		}
	}
	if lines != 1 {
		t.Errorf("Summary has %d lines counting the %d warnings, want 1", lines, len(ws))
	}
	list, err := f.GetRows(SheetWarnings)
	if err != nil || len(list) != len(ws)+1 || list[0][3] != "warning" {
		t.Fatalf("Warnings sheet rows %q (%v), want a header and %d warnings", list, err, len(ws))
	}
	for i, w := range ws {
		if got := list[i+1][3]; got != w.Message {
			t.Errorf("Warnings row %d = %q, want %q", i+2, got, w.Message)
		}
	}
	width, _ := f.GetColWidth(SheetSummary, "J")
	if width < 30 {
		t.Errorf("Summary column J (price source) is %v wide, want ≥ 30", width)
	}
}

// TestXLSXNoWarningsSheetWithoutWarnings: a run without warnings has no Warnings sheet
// and no warnings line.
func TestXLSXNoWarningsSheetWithoutWarnings(t *testing.T) {
	f, _ := fixtureXLSXWith(t, func(a *analysis.Analysis) { a.Warnings = nil })
	if idx, _ := f.GetSheetIndex(SheetWarnings); idx != -1 {
		t.Errorf("Warnings sheet at index %d without warnings", idx)
	}
}
