package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/rundir/rundirtest"
)

// readRecordsCSV parses dir's records.csv.
func readRecordsCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, FileRecordsCSV))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("records.csv: %v", err)
	}
	return rows
}

// TestRecordsCSVWithCSVFormatAlone: the csv format without the workbook writes
// records.csv (every request once, the sheet's columns) next to steps.csv; a Source
// told that a concurrent call writes the workbook leaves records.csv to that call.
func TestRecordsCSVWithCSVFormatAlone(t *testing.T) {
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 3) // 32 steps × 3 = 96 requests
	if err := Write(dir, a, []string{"csv"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileStepsCSV)); err != nil {
		t.Errorf("steps.csv: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileXLSX)); !os.IsNotExist(err) {
		t.Errorf("the csv format wrote the workbook (%v)", err)
	}
	rows := readRecordsCSV(t, dir)
	if len(rows) != 1+96 {
		t.Fatalf("records.csv has %d rows, want header + 96", len(rows))
	}
	cols := requestColumns(styles{})
	if len(rows[0]) != len(cols) || rows[0][0] != cols[0].header || rows[0][6] != "request id" {
		t.Errorf("records.csv header = %q", rows[0])
	}
	if rows[1][6] != "r-0-0" || rows[96][6] != "r-31-2" {
		t.Errorf("records.csv rows run from %q to %q, want r-0-0 to r-31-2", rows[1][6], rows[96][6])
	}

	other := fxWriteRunDir(t, a, 3)
	src, err := Load(other, a)
	if err != nil {
		t.Fatal(err)
	}
	src.ExpectWorkbook()
	if err := src.Write([]string{"csv"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(other, FileRecordsCSV)); !os.IsNotExist(err) {
		t.Errorf("with ExpectWorkbook the csv format still wrote records.csv (%v)", err)
	}
}

// TestRecordsCSVDefusesFormulas: a server's error text that a spreadsheet would run as
// a formula starts with an apostrophe in records.csv; other text and negative
// numbers are written as they are.
func TestRecordsCSVDefusesFormulas(t *testing.T) {
	a := fxAnalysis()
	recs := fxRecords(a, 1)
	texts := []string{`=cmd|" /C calc"!A0`, "+1 upstream", "-inf", "@SUM(A1)", "plain, text"}
	for i, s := range texts {
		recs[i].Status, recs[i].Error, recs[i].ErrorClass = rundir.StatusError, s, rundir.ErrHTTP5xx
	}
	dir := t.TempDir()
	rundirtest.Write(t, dir, rundirtest.Run{
		Meta:    rundir.RunMeta{RunID: a.RunID, StartedAt: fxRunStart, State: rundir.StateComplete, Plan: a.Plan},
		Records: recs, Metrics: fxMetrics(a)})
	if err := Write(dir, a, []string{"csv"}); err != nil {
		t.Fatal(err)
	}
	rows := readRecordsCSV(t, dir)
	errCol := len(rows[0]) - 1
	if rows[0][errCol] != "error" {
		t.Fatalf("last column is %q, want error", rows[0][errCol])
	}
	want := []string{`'=cmd|" /C calc"!A0`, "'+1 upstream", "'-inf", "'@SUM(A1)", "plain, text"}
	for i, w := range want {
		if got := rows[1+i][errCol]; got != w {
			t.Errorf("error cell %d = %q, want %q", i, got, w)
		}
	}
	if got := appendCSVCell(nil, -3.5); string(got) != "-3.5" {
		t.Errorf("a negative number is written %q, want -3.5", got)
	}
}
