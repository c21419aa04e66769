package report

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/rundir"
)

// cmpDriftFixture is cmpFixture with a drift section: 32 (the reference) deterministic
// on its 50 prompts; 128 with 47 of 50 outputs identical to 32's (prompts 3, 17 and 40
// differed, at characters 12, 0 and 31) and 2 of 50 changed between its own repeats.
func cmpDriftFixture() *compare.Comparison {
	c := cmpFixture()
	change := func(p, at int) analysis.DriftChange {
		return analysis.DriftChange{Prompt: p, Phase: rundir.DriftBefore, DiffersAt: at,
			Reference: "The capital of France is Paris, a city on the Seine.", Text: "The capital of France is Paris, the city of light."}
	}
	own128 := &analysis.Drift{Prompts: 50, Repeats: 2, Compared: 50, Identical: 48, Verdict: analysis.DriftNondeterministic,
		Changed: []analysis.DriftChange{{Prompt: 8, Phase: rundir.DriftBefore, Repeat: 1, DiffersAt: 5, Reference: "abcdefgh", Text: "abcdeXgh"}, change(21, 40)}}
	c.Drift = &compare.DriftSection{Reference: "32", Runs: []compare.RunDrift{
		{Label: "32", Probe: true, Own: &analysis.Drift{Prompts: 50, Repeats: 2, Compared: 50, Identical: 50, Verdict: analysis.DriftDeterministic}},
		{Label: "128", Probe: true, Own: own128, VsReference: &analysis.DriftBaseline{Dir: "runs/32", RunID: "r32", Compared: 50, Identical: 47,
			Changed: []analysis.DriftChange{change(3, 12), change(17, 0), change(40, 31)}}},
	}}
	return c
}

// Every format of a comparison with a drift section says it: compare.md and
// compare.html the k of N and where the outputs differed, the console the same
// sentences, compare.pdf (its text, through pdftotext) the verdict and capacity on
// page 1 and the drift findings, compare.xlsx the delta rows as typed cells, the
// curves with their native charts and the drift counts as numbers.
func TestCompareReportShowsDriftInEveryFormat(t *testing.T) {
	c := cmpDriftFixture()
	dir := filepath.Join(t.TempDir(), "cmp")
	if _, err := WriteCompare(dir, c, nil); err != nil {
		t.Fatal(err)
	}
	against := "128: 47 of 50 probe outputs were identical to 32's; 3 outputs differed (prompt 3 at character 12, prompt 17 at character 0, prompt 40 at character 31)."
	notDet := "Temperature 0 was not deterministic on 128: 2 of 50 outputs changed between its own repeats (prompt 8 at character 5, prompt 21 at character 40)."
	md := readText(t, filepath.Join(dir, FileCompareMarkdown))
	for _, want := range []string{"## " + cmpHeadDrift, "- " + mdEscape(against), "- " + mdEscape(notDet),
		"| 128 | 47 of 50 | prompt 3 at character 12, prompt 17 at character 0, prompt 40 at character 31 | not deterministic: 2 of 50 changed",
		"| 32 | reference | reference | deterministic: 50 of 50 identical |"} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md)
		}
	}
	html := readText(t, filepath.Join(dir, FileCompareHTML))
	for _, want := range []string{`<section id="drift">`, "47 of 50", strings.ReplaceAll(notDet, "'", "&#39;"), `<a href="#drift">`} {
		if !strings.Contains(html, want) {
			t.Errorf("compare.html lacks %q", want)
		}
	}
	var out bytes.Buffer
	if err := PrintCompare(&out, c); err != nil || !strings.Contains(out.String(), against) || !strings.Contains(out.String(), notDet) {
		t.Errorf("printed summary lacks the drift findings (err %v):\n%s", err, out.String())
	}
	checkComparePDF(t, filepath.Join(dir, FileComparePDF), c, against, notDet)
	checkCompareXLSX(t, filepath.Join(dir, FileCompareXLSX), c)
}

// pdfText is the text of the PDF at path, pages first..last (0: to the end), its
// whitespace runs as one space; more args go to pdftotext (-layout: each row's cells
// in order on one line). The test is skipped without pdftotext.
func pdfText(t *testing.T, path string, first, last int, more ...string) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext not installed (poppler-utils)")
	}
	args := append(more, "-f", strconv.Itoa(first))
	if last > 0 {
		args = append(args, "-l", strconv.Itoa(last))
	}
	b, err := exec.Command(bin, append(args, path, "-")...).Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// checkComparePDF checks compare.pdf's text: page 1 the verdict, what differs and the
// capacity; later pages the delta table, the drift findings and the charts' titles.
func checkComparePDF(t *testing.T, path string, c *compare.Comparison, against, notDet string) {
	t.Helper()
	page1 := pdfText(t, path, 1, 1)
	for _, want := range []string{c.Verdict.Sentence, cmpHeadPlan, "target.simulator.max_num_seqs", cmpHeadRuns,
		"capacity within the SLA 32 concurrent requests ≥ 64 concurrent requests"} {
		if !strings.Contains(page1, want) {
			t.Errorf("PDF page 1 lacks %q:\n%s", want, page1)
		}
	}
	if strings.Contains(page1, cmpHeadDeltas) {
		t.Error("the delta table starts on page 1; it belongs after the manager's page")
	}
	rest := pdfText(t, path, 2, 0)
	for _, want := range []string{cmpHeadDeltas, "128 against 32", "TTFT p50 (ms) 1,000 50.0 -950", "significant, better",
		cmpHeadDrift, against, notDet, cmpHeadCharts} {
		if !strings.Contains(rest, want) {
			t.Errorf("PDF after page 1 lacks %q:\n%s", want, rest)
		}
	}
}

// checkCompareXLSX checks compare.xlsx: the Deltas sheet has one row per delta row
// with numbers as numbers, Curves has a native chart per metric over its cells, and
// Drift the counts.
func checkCompareXLSX(t *testing.T, path string, c *compare.Comparison) {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, want := f.GetSheetList(), []string{SheetCmpSummary, SheetCmpDeltas, SheetCmpCurves, SheetCmpDrift}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sheets %v, want %v", got, want)
	}
	rows, _ := f.GetRows(SheetCmpDeltas)
	n := 0
	for _, d := range c.Deltas {
		n += len(d.Metrics)
	}
	if len(rows)-1 != n {
		t.Errorf("Deltas has %d data rows, the comparison %d", len(rows)-1, n)
	}
	// Row 2 is TTFT p50 at 64: 32 and 128's values (D, E), requests (F, G), Δ, ratio,
	// CI low and high (H–K), significance and better (L, M).
	for cell, want := range map[string]float64{"D2": 1000, "E2": 50, "F2": 300, "H2": -950, "I2": 0.05, "J2": -990, "K2": -910} {
		assertNumberCell(t, f, SheetCmpDeltas, cell, want)
	}
	if v, _ := f.GetCellValue(SheetCmpDeltas, "L2"); v != "significant" {
		t.Errorf("Deltas L2 = %q, want significant", v)
	}
	if typ, _ := f.GetCellType(SheetCmpDeltas, "M2"); typ != excelize.CellTypeBool {
		t.Errorf("Deltas M2 (better) has type %v, want a boolean", typ)
	}
	assertNumberCell(t, f, SheetCmpSummary, cellOf(t, f, SheetCmpSummary, "capacity (ladder's load)", 1), 32)
	assertNumberCell(t, f, SheetCmpDrift, cellOf(t, f, SheetCmpDrift, "128", 3), 47) // identical to 32
	charts := zipParts(t, path, "xl/charts/chart")
	if len(charts) != len(cmpCurveMetrics)*len(c.Curves) {
		t.Errorf("%d native charts, want %d", len(charts), len(cmpCurveMetrics)*len(c.Curves))
	}
	for name, xml := range charts {
		if strings.Count(xml, "<c:ser>")+strings.Count(xml, "<ser>") != len(c.Labels) || !strings.Contains(xml, SheetCmpCurves+"!$A$") {
			t.Errorf("%s: want %d series over the Curves sheet's load column", name, len(c.Labels))
		}
	}
}

// assertNumberCell fails t unless sheet!cell holds the number want (not text).
func assertNumberCell(t *testing.T, f *excelize.File, sheet, cell string, want float64) {
	t.Helper()
	typ, _ := f.GetCellType(sheet, cell)
	raw, _ := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
	v, err := strconv.ParseFloat(raw, 64)
	if typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString || err != nil || v != want {
		t.Errorf("%s!%s = %q (type %v), want the number %g", sheet, cell, raw, typ, want)
	}
}

// cellOf is the cell offset columns right of the first cell of sheet whose value is label.
func cellOf(t *testing.T, f *excelize.File, sheet, label string, offset int) string {
	t.Helper()
	rows, _ := f.GetRows(sheet)
	for r, row := range rows {
		for col, v := range row {
			if v == label {
				return cellName(col+1+offset, r+1, false)
			}
		}
	}
	t.Fatalf("%s has no cell %q", sheet, label)
	return ""
}

// A delta table longer than a page (60 loads × 2 metrics) flows across pages, each page
// of it under a repeat of the table's header, and every row is printed once.
func TestComparePDFRepeatsTheDeltaHeaderOnEveryPage(t *testing.T) {
	c := cmpFixture()
	row := c.Deltas[0]
	c.Deltas = nil
	for load := 1; load <= 60; load++ {
		d := row
		d.Load = float64(1000 + load)
		c.Deltas = append(c.Deltas, d)
	}
	dir := t.TempDir()
	if _, err := WriteCompare(dir, c, []string{"pdf"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileComparePDF)
	total := 0
	page1 := pdfText(t, path, 1, 1)
	if _, err := fmt.Sscanf(page1[strings.LastIndex(page1, "Page 1 of "):], "Page 1 of %d", &total); err != nil {
		t.Fatalf("page 1 has no page count: %v\n%s", err, page1)
	}
	for p := 2; p <= total; p++ {
		text := pdfText(t, path, p, p, "-layout")
		rows := strings.Count(text, "TTFT p50 (ms)")
		if rows > 0 && !strings.Contains(text, "segment load metric 32 128 Δ ratio 95% CI significance chat") {
			t.Errorf("page %d holds %d delta rows without the table's header above them:\n%s", p, rows, text)
		}
	}
	all := pdfText(t, path, 2, 0, "-layout")
	if total < 3 || strings.Count(all, "TTFT p50 (ms)") != 60 || strings.Count(all, "chat 1,060 ") != 2 {
		t.Errorf("%d pages, %d TTFT rows, want the 120 rows across several pages, each once", total, strings.Count(all, "TTFT p50 (ms)"))
	}
}
