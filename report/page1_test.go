package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// page1InternalWords are words of the analysis's machinery that page 1 (for a manager)
// must not show; the Evidence section explains them.
var page1InternalWords = []string{"queue-bound", "prefill-bound", "decode-bound", "max_num_seqs", "KV ", "bootstrap", "at_least",
	"Headline source", "between the steps tested, rounded down", "regime", "closed population"}

// pdfPageText is page n of the PDF at path as pdftotext reads it, whitespace folded.
func pdfPageText(t *testing.T, path string, n string) string {
	t.Helper()
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", "-f", n, "-l", n, path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// TestPageOneIsOnePlainPage: the golden run, analysed for real, gets a page 1 that holds
// the answer, what limits it, how sure, the key numbers and the capacity plan on ONE
// page, with none of the internal words; the Evidence section starts page 2.
func TestPageOneIsOnePlainPage(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	lowDPI(t)
	dir := writeGoldenRun(t)
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Headline.Limit == "" || a.Headline.Certainty == "" || len(a.WhatIf) == 0 {
		t.Fatalf("golden run has no headline or sizing: %+v", a.Headline)
	}
	if err := Write(dir, a, []string{"pdf"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FilePDF)
	p1, p2 := pdfPageText(t, path, "1"), pdfPageText(t, path, "2")
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, want := range []string{flat(a.Answer), "What limits it", "How sure", flat(a.Headline.Certainty), "Key numbers",
		"Capacity plan", "Page 1 of"} {
		if !strings.Contains(p1, want) {
			t.Errorf("page 1 lacks %q:\n%s", want, p1)
		}
	}
	for _, bad := range page1InternalWords {
		if strings.Contains(p1, bad) {
			t.Errorf("page 1 holds the internal word %q:\n%s", bad, p1)
		}
	}
	// Page 2 is the Evidence section: its heading follows the running header.
	if i := strings.Index(p2, "Evidence"); i < 0 || i > 120 || !strings.Contains(p2, "Page 2 of") {
		t.Errorf("page 2 does not start with the Evidence heading:\n%s", p2)
	}
	for _, want := range []string{"Binding constraint", "Resampling noise (bootstrap, 95%)", "Glossary"} {
		if !strings.Contains(pdfPageText(t, path, "2")+pdfPageText(t, path, "3"), want) {
			t.Errorf("the Evidence section lacks %q", want)
		}
	}
}

// TestSizingSaysMachinesAndNoPrice: a CPU-only server with no price is sized in
// machines with "—" for every price and cost, and a lower-bound capacity's replicas
// read "at most", the same in the PDF's table, the Markdown and the workbook.
func TestSizingSaysMachinesAndNoPrice(t *testing.T) {
	a := fxAnalysis()
	a.Overall.Method = methodAtLeast
	for i := range a.WhatIf {
		w := &a.WhatIf[i]
		w.GPU, w.GPUHourUSD, w.CostPerMonthUSD, w.CostPerMOutputUSD, w.SamePriceAssumed, w.Projected = "2-core CPU", 0, 0, 0, false, false
	}
	a.WhatIf = a.WhatIf[:1]
	w := a.WhatIf[0]
	atMost := "lower bound: at most " + num(float64(w.Replicas), 0) + " replicas"
	dir := fxWriteRunDir(t, a, 5)
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	p1 := pageTexts(summaryPage(in))
	if r := findRow(p1, "machine | basis"); r != "machine | basis | users / replica | target users | replicas | machines | $ / machine-hour | cost / month | $ / M output tokens" {
		t.Errorf("PDF sizing header = %q", r)
	}
	if r := findRow(p1, "2-core CPU | "); !strings.HasPrefix(r, "2-core CPU | "+atMost+" |") || !strings.HasSuffix(r, "| — | — | —") {
		t.Errorf("PDF sizing row = %q", r)
	}
	if err := Write(dir, a, []string{"md", "xlsx"}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, FileMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| machine | basis | users / replica | target users | replicas | machines | $ / machine-hour |") ||
		!strings.Contains(string(md), "| 2-core CPU | "+atMost+" |") || !strings.Contains(string(md), "| — | — | — |") {
		t.Errorf("summary.md sizing:\n%s", md)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, FileXLSX))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	var hdr, row []string
	for i, r := range rows {
		if len(r) > 0 && r[0] == "machine" {
			hdr = r
			if i+1 < len(rows) {
				row = rows[i+1]
			}
		}
	}
	if len(hdr) < 9 || hdr[5] != "machines" || hdr[8] != "USD per machine-hour" {
		t.Fatalf("workbook sizing header = %q", hdr)
	}
	if len(row) < 9 || row[1] != atMost || row[6] != "—" || row[7] != "—" || row[8] != "—" {
		t.Errorf("workbook sizing row = %q", row)
	}
}

// TestPlainNumbersQualifyEstimates: page 1's users figure says "about" where the answer
// does (users converted from requests in flight) and "at least" for a lower bound.
func TestPlainNumbersQualifyEstimates(t *testing.T) {
	c := analysis.Capacity{Method: methodMeasured, UsersSource: analysis.UsersConverted, UsersWithThinkTime: 226.2, Users: 226,
		MaxConcurrencyWithinSLA: 23, ThinkTimeS: 10}
	a := &analysis.Analysis{Schedule: "concurrency", Overall: c}
	if got := plainNumbers(a)[0]; got.Key != "Users per GPU within SLA" || got.Value != "about 226 (who pause 10 s between requests)" {
		t.Errorf("converted users = %+v", got)
	}
	a.Overall.Method = methodAtLeast
	if got := plainNumbers(a)[0].Value; got != "at least 226 (who pause 10 s between requests)" {
		t.Errorf("lower-bound users = %q", got)
	}
}
