package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
)

// TestWriteRemovesStaleTemps: the temporary files a `kill -9` during an earlier report
// left (report.xlsx.tmp-N, report.pdf.tmp-N, charts/NAME.png.tmp-N, …) are gone after
// the next Write of those formats; a format not written keeps its leftovers (another
// writer may own them), and so do files that merely look alike and analysis.json's.
func TestWriteRemovesStaleTemps(t *testing.T) {
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 5)
	if err := os.MkdirAll(filepath.Join(dir, DirCharts), 0o755); err != nil {
		t.Fatal(err)
	}
	stale := []string{FileXLSX + ".tmp-123", FilePDF + ".tmp-456", FileJSON + ".tmp-7", FileMarkdown + ".tmp-8",
		filepath.Join(DirCharts, "ttft-short-chat.png.tmp-1913"), filepath.Join(DirCharts, "pareto.svg.tmp-2")}
	kept := []string{FileStepsCSV + ".tmp-99", FilePDF + ".tmp-mine", analysis.FileAnalysis + ".tmp-5"}
	for _, f := range append(stale, kept...) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("half a fi"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(dir, a, []string{"xlsx", "pdf", "charts", "json", "md"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range stale {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s: still there (%v), want it removed", f, err)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v, want it kept", f, err)
		}
	}
	for _, sub := range []string{".", DirCharts} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range entries {
			if n := e.Name(); strings.Contains(n, ".tmp-") && !strings.HasSuffix(n, "-99") && !strings.HasSuffix(n, "-mine") &&
				!strings.HasPrefix(n, analysis.FileAnalysis) {
				t.Errorf("%s: a temporary file left after the report", filepath.Join(sub, n))
			}
		}
	}
}
