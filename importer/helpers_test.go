package importer_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/importer"
	"github.com/llmcap/llmcap/rundir"
)

// importInto imports files of format f into a new directory and fails t on error.
func importInto(t *testing.T, f importer.Format, files []string, set map[string]any) (*importer.Result, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	res, err := importer.Import(importer.Options{Format: f, Files: files, OutDir: dir, Overrides: set, ToolVersion: "test"})
	if err != nil {
		t.Fatalf("import %v: %v", files, err)
	}
	return res, dir
}

// analyze runs the analysis on dir and returns its one segment's steps.
func analyze(t *testing.T, dir string) []analysis.StepStats {
	t.Helper()
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatalf("analyze %s: %v", dir, err)
	}
	if len(a.Segments) != 1 {
		t.Fatalf("analysis of %s: %d segments, want 1", dir, len(a.Segments))
	}
	return a.Segments[0].Steps
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// within1pct reports an error on t when got is not within 1% of want.
func within1pct(t *testing.T, what string, got, want float64) {
	t.Helper()
	t.Logf("%s: llmcap %.4f, source %.4f", what, got, want)
	if want == 0 || math.Abs(got-want) > 0.01*math.Abs(want) {
		t.Errorf("%s: llmcap %.6g, source summary %.6g (off by more than 1%%)", what, got, want)
	}
}

// writeFile writes data to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readFile returns the content of path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readSteps reads dir's steps.jsonl through rundir.
func readSteps(t *testing.T, dir string) []rundir.StepSummary {
	t.Helper()
	s, dmg, err := rundir.ReadSteps(dir)
	if err != nil || dmg.Any() {
		t.Fatalf("read steps of %s: %v %s", dir, err, dmg)
	}
	return s
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
