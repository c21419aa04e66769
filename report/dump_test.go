package report

import (
	"os"
	"strings"
	"testing"
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
