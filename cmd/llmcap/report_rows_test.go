package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/report"
	"github.com/xuri/excelize/v2"
)

// TestReportXLSXMaxRowsFlag: llmcap report --xlsx-max-rows N samples the workbook's
// Requests sheet at N rows for this report (the note says so) while records.csv keeps
// every request; a value outside 1..MaxXLSXRows is a usage error naming the range.
func TestReportXLSXMaxRowsFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", dir); r.code != 0 {
		t.Fatalf("sweep: %d %s", r.code, r.stderr)
	}
	if r := llmcap(t, nil, "report", dir, "--format", "xlsx", "--xlsx-max-rows", "-1"); r.code != 2 ||
		!strings.Contains(r.stderr, "--xlsx-max-rows -1: want 1..1048574") {
		t.Fatalf("--xlsx-max-rows -1: exit %d, stderr %q; want 2 and the range", r.code, r.stderr)
	}
	if r := llmcap(t, nil, "report", dir, "--format", "xlsx", "--xlsx-max-rows", "2"); r.code != 0 {
		t.Fatalf("report: %d %s", r.code, r.stderr)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, report.FileXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(report.SheetRequests)
	if err != nil {
		t.Fatal(err)
	}
	csvBytes, err := os.ReadFile(filepath.Join(dir, report.FileRecordsCSV))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Count(string(csvBytes), "\n") - 1
	if all < 3 {
		t.Fatalf("records.csv has %d requests; the tiny plan should make more than 2", all)
	}
	if len(rows) == 0 || !strings.HasPrefix(rows[0][0], "Sample of ") ||
		!strings.Contains(rows[0][0], "report.xlsx_max_rows = 2") {
		t.Fatalf("Requests row 1 = %q, want the sample note for a limit of 2", rows)
	}
	if kept := len(rows) - 2; kept >= all {
		t.Errorf("the sheet keeps %d of %d requests, want a sample", kept, all)
	}
}
