package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
)

// TestDump writes a full report of the synthetic run into $REPORT_DUMP (skipped when
// unset), for looking at the outputs by eye.
func TestDump(t *testing.T) {
	out := os.Getenv("REPORT_DUMP")
	if out == "" {
		t.Skip("REPORT_DUMP not set")
	}
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 40)
	formats := []string(nil)
	if f := os.Getenv("REPORT_FORMATS"); f != "" {
		formats = strings.Split(f, ",")
	}
	if err := Write(dir, a, formats); err != nil {
		t.Error(err)
	}
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
}

// TestDumpReal re-renders the report of a real run directory $REPORT_REAL (its
// analysis.json) into $REPORT_DUMP (skipped when unset).
func TestDumpReal(t *testing.T) {
	src, out := os.Getenv("REPORT_REAL"), os.Getenv("REPORT_DUMP")
	if src == "" || out == "" {
		t.Skip("REPORT_REAL or REPORT_DUMP not set")
	}
	if err := os.CopyFS(out, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, analysis.FileAnalysis))
	if err != nil {
		t.Fatal(err)
	}
	var a analysis.Analysis
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, &a, nil); err != nil {
		t.Error(err)
	}
}
