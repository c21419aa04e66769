package rundir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRemoveTempsRemovesOnlyWriteAtomicLeftovers: RemoveTemps removes the temporary
// files a killed WriteAtomic left next to a file (NAME.tmp-DIGITS), for a plain path
// and for a pattern ("charts/*"), and keeps the file itself, other files' temporaries,
// look-alikes the user named (NAME.tmp-notes, NAME.tmp-) and a directory of that name.
func TestRemoveTempsRemovesOnlyWriteAtomicLeftovers(t *testing.T) {
	dir := t.TempDir()
	charts := filepath.Join(dir, "charts")
	if err := os.MkdirAll(filepath.Join(charts, "ttft.png.tmp-55"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := []string{"report.pdf", "report.pdf.tmp-123456", "report.pdf.tmp-9", "report.pdf.tmp-notes", "report.pdf.tmp-",
		"report.xlsx.tmp-77", "charts/ttft.png", "charts/ttft.png.tmp-4242", "charts/fit.svg.tmp-1"}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := RemoveTemps(filepath.Join(dir, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{filepath.Join(dir, "report.pdf.tmp-123456"), filepath.Join(dir, "report.pdf.tmp-9")}
	if !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	got, err = RemoveTemps(filepath.Join(charts, "*"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want = []string{filepath.Join(charts, "fit.svg.tmp-1"), filepath.Join(charts, "ttft.png.tmp-4242")}
	if !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	for _, f := range []string{"report.pdf", "report.pdf.tmp-notes", "report.pdf.tmp-", "report.xlsx.tmp-77", "charts/ttft.png", "charts/ttft.png.tmp-55"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v, want it kept", f, err)
		}
	}
}
