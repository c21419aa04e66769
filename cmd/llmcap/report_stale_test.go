package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
)

// TestReportReanalysesOldFormat: an analysis.json written by an older llmcap (no
// format_version, plain-string warnings), though newer than the run files, is
// re-analysed by report: the report renders the current analysis's answer, advice and
// warnings, and analysis.json is rewritten in the current format.
func TestReportReanalysesOldFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", dir); r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	if r := llmcap(t, nil, "analyze", dir); r.code != 0 {
		t.Fatalf("analyze: exit %d: %s", r.code, r.stderr)
	}
	path := filepath.Join(dir, analysis.FileAnalysis)
	var old map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	delete(old, "format_version")
	old["answer"] = "an old answer"
	old["warnings"] = []string{"an old warning"}
	if b, err = json.Marshal(old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	backdate(t, dir, time.Now().Add(-time.Hour))
	r := llmcap(t, nil, "report", dir, "--format", "md")
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("analysis.json is in format 0, this llmcap writes format %d", analysis.FormatVersion)) ||
		strings.Contains(string(md), "an old") {
		t.Fatalf("report of an old analysis.json: exit %d, stderr %q\n%s", r.code, r.stderr, md)
	}
	a, err := analysis.ReadJSON(dir)
	if err != nil || a.FormatVersion != analysis.FormatVersion || len(a.Warnings) == 0 {
		t.Fatalf("analysis.json not rewritten in format %d: %+v, %v", analysis.FormatVersion, a, err)
	}
	plain := strings.ReplaceAll(string(md), `\`, "") // summary.md backslash-escapes Markdown punctuation
	for _, want := range append([]string{"**" + a.Answer + "**", "**What to do, in the engine's settings:** " + a.Overall.Advice}, a.WarningMessages()...) {
		if !strings.Contains(plain, want) {
			t.Errorf("summary.md lacks the analysis's %q", want)
		}
	}
}

// TestAnalysedStateIsTyped: the run state an analysis saw is its RunState field, never
// read from a warning's wording.
func TestAnalysedStateIsTyped(t *testing.T) {
	a := &analysis.Analysis{Warnings: []analysis.Warning{{Kind: analysis.WarnRunIncomplete, Step: -1,
		Message: "the run is interrupted: after 1 of 2 steps"}}}
	if got := analysedState(a); got != "complete" {
		t.Errorf("no run_state: %q, want complete", got)
	}
	a.RunState = "failed"
	if got := analysedState(a); got != "failed" {
		t.Errorf("run_state failed: %q", got)
	}
}
