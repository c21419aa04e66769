package report

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
)

// fxPDFPageBound is the most pages the fixture's PDF (4 segments with 8 steps each,
// what-if sizing, server metrics) may take: page 1 and the warnings it spills onto
// page 2, one page for the SLA, workload and capacity, one per segment (4), two for
// the model (fit table, 7 charts two by two), one for methodology and server metrics,
// one for the appendix (32 steps): 11, and one spare for text that grows a little.
const fxPDFPageBound = 12

// pdfPageTexts renders the PDF of run directory dir and returns each page's text
// (pdftotext, words joined by single spaces).
func pdfPageTexts(t *testing.T, dir string, a *analysis.Analysis) []string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	if err := Write(dir, a, []string{"pdf"}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", filepath.Join(dir, FilePDF), "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	pages := strings.Split(string(out), "\f")
	if n := len(pages); n > 0 && strings.TrimSpace(pages[n-1]) == "" {
		pages = pages[:n-1]
	}
	for i, p := range pages {
		pages[i] = strings.Join(strings.Fields(p), " ")
	}
	return pages
}

// pageOf is the 0-based index of the first page containing s, or -1.
func pageOf(pages []string, s string) int {
	for i, p := range pages {
		if strings.Contains(p, s) {
			return i
		}
	}
	return -1
}

// TestPDFSegmentOnOnePage renders the fixture's PDF (real charts) and checks that each
// segment's results fit one page: its heading, the throughput chart's caption (under
// the last chart row) and the last row of its step table are on one page, with no
// other segment's heading between; and that the whole PDF stays within
// fxPDFPageBound pages.
func TestPDFSegmentOnOnePage(t *testing.T) {
	lowDPI(t)
	a := fxAnalysis()
	pages := pdfPageTexts(t, fxWriteRunDir(t, a, 10), a)
	for _, seg := range allSegments(a) {
		h := "Results: " + seg.Segment + " "
		pi := pageOf(pages, h)
		if pi < 0 {
			t.Errorf("no page has the heading %q", h)
			continue
		}
		rest := pages[pi][strings.Index(pages[pi], h):]
		if next := strings.Index(rest[len(h):], "Results: "); next >= 0 {
			rest = rest[:len(h)+next]
		}
		last := seg.Steps[len(seg.Steps)-1]
		lastRow := fmt.Sprintf("%s %s %s", loadText(last.Load), num(float64(last.Requests), 0), pct(last.ErrorRate))
		for _, want := range []string{"Two throughputs", "Steps", lastRow} {
			if !strings.Contains(rest, want) {
				t.Errorf("segment %s: page %d (its heading's) lacks %q:\n%s", seg.Segment, pi+1, want, rest)
			}
		}
	}
	if len(pages) > fxPDFPageBound {
		t.Errorf("PDF has %d pages, want ≤ %d", len(pages), fxPDFPageBound)
	}
	t.Logf("PDF: %d pages", len(pages))
}
