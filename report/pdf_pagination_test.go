package report

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every page of the demo's and the Ollama run's PDF carries its own header and its own
// footer: page i says "Page i of N" with N the file's page count, and no page holds
// two footers. A page that maroto filled a fraction of a nanometre past its height
// (row heights that do not sum exactly) broke early at its footer in the PDF library,
// which printed that footer on a page of its own and shifted every later page against
// its header, footer and cell backgrounds (the demo had 14 pages saying "of 13").
func TestPDFEveryPageHasItsHeaderAndFooter(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	for _, name := range chartRunNames {
		in := chartRun(t, name)
		path := filepath.Join(t.TempDir(), FilePDF)
		if err := writePDF(path, in, buildCharts(in)); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("pdftotext", "-enc", "UTF-8", path, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		pages := strings.Split(strings.TrimRight(string(out), "\f"), "\f")
		title := clipRunes(title(in.a), 80)
		for i, p := range pages {
			p = strings.Join(strings.Fields(p), " ")
			want := fmt.Sprintf("Page %d of %d", i+1, len(pages))
			if !strings.Contains(p, want) || strings.Count(p, "reproducible with") != 1 || !strings.Contains(p[:min(len(p), 2*len(title)+80)], title) {
				t.Errorf("%s: page %d of %d lacks its header %q, its one footer or %q: %.200q … %.200q", name, i+1, len(pages), title, want, p, p[max(0, len(p)-200):])
			}
		}
	}
}
