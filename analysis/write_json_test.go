package analysis

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteJSONRemovesStaleTemps: analysis.json temporaries a killed earlier analyze
// left (analysis.json.tmp-N) are gone after WriteJSON; a look-alike the user named and
// another file's temporary stay, and no temporary of this write is left.
func TestWriteJSONRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{FileAnalysis + ".tmp-12345", FileAnalysis + ".tmp-notes", "report.pdf.tmp-1"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{\"half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteJSON(dir, &Analysis{FormatVersion: FormatVersion, Warnings: []Warning{}}); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	want := map[string]bool{filepath.Join(dir, FileAnalysis+".tmp-notes"): true, filepath.Join(dir, "report.pdf.tmp-1"): true}
	if len(left) != len(want) || !want[left[0]] || !want[left[1]] {
		t.Errorf("left %v, want only the look-alike and report.pdf's", left)
	}
	if _, err := ReadJSON(dir); err != nil {
		t.Errorf("analysis.json: %v", err)
	}
}
