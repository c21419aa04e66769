package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// TestTuneWritesEveryFormat: WriteTune with no formats writes the PDF, HTML, workbook,
// JSON and both chart files, returns exactly those paths, and leaves no temporary file.
func TestTuneWritesEveryFormat(t *testing.T) {
	lowDPI(t)
	dir := writeTuneFixture(t)
	stale := filepath.Join(dir, FileTunePDF+".tmp-123456")
	if err := os.WriteFile(stale, []byte("killed"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := WriteTune(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, DirCharts, TuneChartName+".svg"), filepath.Join(dir, DirCharts, TuneChartName+".png"),
		filepath.Join(dir, FileTunePDF), filepath.Join(dir, FileTuneHTML), filepath.Join(dir, FileTuneXLSX), filepath.Join(dir, FileTuneJSON)}
	if !slices.Equal(paths, want) {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || st.Size() < 500 {
			t.Errorf("%s: %v, %d bytes", p, err, st.Size())
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file %s is still there (%v)", stale, err)
	}
	for _, p := range []string{FileTunePDF, FileTuneXLSX, filepath.Join(DirCharts, TuneChartName+".png")} {
		if m, _ := filepath.Glob(rundir.TempGlob(filepath.Join(dir, p))); len(m) > 0 {
			t.Errorf("temporary files left: %v", m)
		}
	}
}

// TestTuneWritesOnlyTheFormatsAsked: "json" alone writes tune-report.json and nothing
// else, and its chart list is empty (no chart file was written with it).
func TestTuneWritesOnlyTheFormatsAsked(t *testing.T) {
	dir := writeTuneFixture(t)
	paths, err := WriteTune(dir, []string{" JSON "})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths, []string{filepath.Join(dir, FileTuneJSON)}) {
		t.Fatalf("wrote %v", paths)
	}
	for _, p := range []string{FileTunePDF, FileTuneHTML, FileTuneXLSX, DirCharts} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s was written (%v)", p, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, FileTuneJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"charts": []`) {
		t.Errorf("tune-report.json lists charts that were not written:\n%s", b)
	}
}

// TestTuneUnknownFormatWritesNothing: an unknown format is an error naming it, before
// anything is read or written.
func TestTuneUnknownFormatWritesNothing(t *testing.T) {
	dir := writeTuneFixture(t)
	paths, err := WriteTune(dir, []string{"pdf", "docx"})
	if err == nil || !strings.Contains(err.Error(), `"docx"`) || len(paths) > 0 {
		t.Fatalf("WriteTune(pdf, docx) = %v, %v", paths, err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileTunePDF)); !os.IsNotExist(err) {
		t.Errorf("the PDF was written before the format check (%v)", err)
	}
}

// TestTuneMissingFileIsNamed: a directory without tune-result.json (or without
// tune.json) is an error that names the missing file.
func TestTuneMissingFileIsNamed(t *testing.T) {
	for _, name := range []string{rundir.FileTuneResult, rundir.FileTune} {
		dir := writeTuneFixture(t)
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		_, err := WriteTune(dir, nil)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("without %s: %v", name, err)
		}
	}
}
