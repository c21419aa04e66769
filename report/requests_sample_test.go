package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// The sample rule keeps the smallest stride whose rows fit, every step keeping rows.
func TestSampleRowsStride(t *testing.T) {
	cases := []struct {
		perStep      map[int]int
		limit        int
		stride, kept int
	}{
		{map[int]int{0: 10, 1: 3}, 13, 1, 13},             // at the limit: every row
		{map[int]int{0: 10, 1: 3}, 5, 3, 5},               // k=2 gives 5+2=7 rows; k=3 gives 4+1
		{map[int]int{0: 5, 1: 5, 2: 5}, 2, 5, 3},          // fewer rows than steps: one per step
		{map[int]int{0: 1_000_000}, 100_000, 10, 100_000}, // one big step
		{map[int]int{}, 50, 1, 0},
	}
	for _, c := range cases {
		got := sampleRows(c.perStep, c.limit)
		if got.stride != c.stride || got.kept != c.kept {
			t.Errorf("sampleRows(%v, %d) = stride %d kept %d, want %d, %d", c.perStep, c.limit, got.stride, got.kept, c.stride, c.kept)
		}
	}
	if got := ordinal(7) + " " + ordinal(21) + " " + ordinal(12) + " " + ordinal(103); got != "7th 21st 12th 103rd" {
		t.Errorf("ordinal: %s", got)
	}
}

// A run above report.xlsx_max_rows: the Requests sheet holds every 7th request of each
// step under a note row that says so (and the Summary repeats it), while records.csv
// has every request once (a repeated line of records.jsonl is left out), with the
// sheet's columns and values.
func TestRequestsSheetSampleAndRecordsCSV(t *testing.T) {
	a := fxAnalysis()
	a.Plan.Report.XLSXMaxRows = 100
	dir := fxWriteRunDir(t, a, 20) // 32 steps × 20 = 640 requests
	// A crash replayed the first record's line: it counts once everywhere.
	recPath := filepath.Join(dir, "records.jsonl")
	raw, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(raw, []byte("\n"))
	if err := os.WriteFile(recPath, append(raw, append(first, '\n')...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, a, []string{"xlsx"}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, FileXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SheetRequests)
	if err != nil {
		t.Fatal(err)
	}
	// 32 steps × ⌈20/7⌉ = 96 ≤ 100 (stride 6 would give 128).
	wantNote := "Sample of 96 of 640 requests: every 7th request of each step, in records.jsonl order " +
		"(more than report.xlsx_max_rows = 100). Every request is a row of records.csv."
	if len(rows) < 2 || rows[0][0] != wantNote {
		t.Fatalf("Requests row 1 = %q, want the note %q", rows[0], wantNote)
	}
	if rows[1][0] != "segment" || rows[1][6] != "request id" {
		t.Errorf("Requests row 2 (header) = %q", rows[1])
	}
	if len(rows) != 2+96 {
		t.Errorf("Requests has %d rows, want 2 + 96", len(rows))
	}
	perStep := map[string][]string{}
	for _, r := range rows[2:] {
		perStep[r[2]] = append(perStep[r[2]], r[6])
	}
	if len(perStep) != 32 {
		t.Errorf("sampled rows cover %d steps, want all 32", len(perStep))
	}
	for step, ids := range perStep {
		n, _ := strconv.Atoi(step)
		want := []string{fmt.Sprintf("r-%d-0", n-1), fmt.Sprintf("r-%d-7", n-1), fmt.Sprintf("r-%d-14", n-1)}
		if strings.Join(ids, " ") != strings.Join(want, " ") {
			t.Errorf("step %s keeps %v, want %v", step, ids, want)
		}
	}
	tables, err := f.GetTables(SheetRequests)
	if err != nil || len(tables) != 1 || tables[0].Range != "A2:Y98" {
		t.Errorf("Requests table = %+v (%v), want one on A2:Y98", tables, err)
	}
	if !strings.Contains(xlsxSheetText(t, f, SheetSummary), "Requests sheet: "+wantNote) {
		t.Errorf("the Summary sheet does not state the sample")
	}

	b, err := os.ReadFile(filepath.Join(dir, FileRecordsCSV))
	if err != nil {
		t.Fatal(err)
	}
	csvRows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(csvRows) != 1+640 {
		t.Fatalf("records.csv has %d rows, want header + 640", len(csvRows))
	}
	if strings.Join(csvRows[0], "|") != strings.Join(rows[1], "|") {
		t.Errorf("records.csv header %q, want the sheet's %q", csvRows[0], rows[1])
	}
	recs := inputRecords(t, &input{dir: dir, hasRecords: true})
	seen := map[string]bool{}
	for i, r := range csvRows[1:] {
		if r[6] != recs[i].RequestID || seen[r[6]] {
			t.Fatalf("records.csv row %d is request %q, want %q once", i+1, r[6], recs[i].RequestID)
		}
		seen[r[6]] = true
	}
	// A kept row reads the same in both (the sheet shows numbers by its format: compare
	// the raw values).
	for col := 1; col <= 25; col++ {
		cell := cellName(col, 3, false)
		v, _ := f.GetCellValue(SheetRequests, cell, excelize.Options{RawCellValue: true})
		if got := csvRows[1][col-1]; !sameCell(v, got) {
			t.Errorf("column %s: sheet %q, records.csv %q", rows[1][col-1], v, got)
		}
	}
}

// sameCell compares a sheet's raw cell with a CSV field, numbers by value (the sheet
// keeps 15 significant digits, records.csv every digit).
func sameCell(sheet, csvField string) bool {
	x, err1 := strconv.ParseFloat(sheet, 64)
	y, err2 := strconv.ParseFloat(csvField, 64)
	if err1 == nil && err2 == nil {
		return math.Abs(x-y) <= 1e-13*math.Max(math.Abs(x), 1)
	}
	return sheet == csvField
}

// xlsxSheetText is every cell's text of a sheet, one line per row.
func xlsxSheetText(t *testing.T, f *excelize.File, sheet string) string {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, "\t") + "\n")
	}
	return b.String()
}
