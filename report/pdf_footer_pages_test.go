package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
)

// TestPDFEveryPageNumbered: every physical page of the PDF carries the footer, and
// its "Page i of N" is its own index and the real page count, also when a segment's
// bottleneck evidence runs to several lines (as a real run's does). Seen by eyesA
// (issue 15) on a fresh `llmcap run -c configs/demo.yaml`: 14 pages, page 7
// ("Results: long") without a footer, pages 8–14 numbered "Page 7 of 13" … "Page 13
// of 13", page 14 blank but for the footer; the re-rendered reference demo showed the
// same from page 5 ("Results: short"), and its appendix table's zebra stripes came
// apart from their text. Here: the fixture with one segment's evidence 300 characters
// long has 12 pages numbered "of 11".
func TestPDFEveryPageNumbered(t *testing.T) {
	lowDPI(t)
	for _, ev := range []string{"", strings.Repeat("evidence words ", 20)} {
		a := fxAnalysis()
		a.Segments[0].Capacity.BottleneckEvidence = ev
		t.Run(fmt.Sprintf("evidence-%d-chars", len(ev)), func(t *testing.T) { checkPagesNumbered(t, a) })
	}
}

func checkPagesNumbered(t *testing.T, a *analysis.Analysis) {
	pages := pdfPageTexts(t, fxWriteRunDir(t, a, 10), a)
	for i, p := range pages {
		if want := fmt.Sprintf("Page %d of %d", i+1, len(pages)); !strings.Contains(p, want) {
			got := "no page number"
			if j := strings.LastIndex(p, "Page "); j >= 0 {
				got = p[j:min(len(p), j+16)]
			}
			t.Errorf("physical page %d of %d: want %q, has %q", i+1, len(pages), want, got)
		}
	}
}
