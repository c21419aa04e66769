package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestTablesCountStepsFromOne: every "step" column a person reads — the XLSX Steps,
// Requests and Server metrics sheets and steps.csv — counts steps from 1 as `llmcap plan`
// and the progress lines do: the row of a step with zero-based index i (the JSON files'
// "step") says i+1; a server scrape between steps (step -1) leaves the cell empty.
func TestTablesCountStepsFromOne(t *testing.T) {
	f, path, in := writeFixtureXLSX(t)
	dir := filepath.Dir(path)
	var want []string
	for _, seg := range allSegments(in.a) {
		for _, s := range seg.Steps {
			want = append(want, strconv.Itoa(s.Step+1))
		}
	}
	if len(want) == 0 || want[0] != "1" {
		t.Fatalf("fixture steps %v, want the first numbered 1", want)
	}
	stepCol := func(sheet string, col int) []string {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) < 2 || rows[0][col] != "step" {
			t.Fatalf("%s: header %v, want \"step\" in column %d", sheet, rows[0], col+1)
		}
		out := make([]string, 0, len(rows)-1)
		for _, r := range rows[1:] {
			v := ""
			if col < len(r) {
				v = r[col]
			}
			out = append(out, v)
		}
		return out
	}
	sameSteps(t, "Steps sheet", stepCol(SheetSteps, 1), want)

	var wantReq []string
	for _, r := range inputRecords(t, in) {
		wantReq = append(wantReq, strconv.Itoa(r.Step+1))
	}
	sameSteps(t, "Requests sheet", stepCol(SheetRequests, 2), wantReq)

	var wantSrv []string
	for _, s := range in.metrics {
		v := ""
		if s.Step >= 0 {
			v = strconv.Itoa(s.Step + 1)
		}
		wantSrv = append(wantSrv, v)
	}
	sameSteps(t, "Server metrics sheet", stepCol(SheetServer, 1), wantSrv)

	if err := Write(dir, in.a, []string{"csv"}); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(filepath.Join(dir, FileStepsCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[1])
	}
	if rows[0][1] != "step" {
		t.Errorf("steps.csv header %v, want \"step\" second", rows[0])
	}
	sameSteps(t, "steps.csv", got, want)
}

// sameSteps reports where got and want (one value per table row) differ.
func sameSteps(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s row %d: step %q, want %q", what, i+2, got[i], want[i])
			return
		}
	}
}
