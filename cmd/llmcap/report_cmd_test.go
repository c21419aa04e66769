package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setRunState rewrites dir/run.json's "state" (the sweep writes it indented).
func setRunState(t *testing.T, dir, from, to string) {
	t.Helper()
	p := filepath.Join(dir, "run.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	old := `"state": "` + from + `"`
	if !strings.Contains(string(b), old) {
		t.Fatalf("run.json has no %s", old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, `"state": "`+to+`"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReportReanalysesStale: an analysis.json written while the run was interrupted is
// replaced once run.json says complete (newer file, as after sweep --resume), and an
// analysis.json newer than the run files but recording another run state is too.
func TestReportReanalysesStale(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", dir); r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	setRunState(t, dir, "complete", "interrupted")
	if r := llmcap(t, nil, "analyze", dir); r.code != 0 {
		t.Fatalf("analyze: exit %d: %s", r.code, r.stderr)
	}
	const partial = "the run is interrupted"
	// The resume rewrites run.json after analysis.json (mtime one second later, for
	// file systems with coarse timestamps).
	setRunState(t, dir, "interrupted", "complete")
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(filepath.Join(dir, "run.json"), later, later); err != nil {
		t.Fatal(err)
	}
	r := llmcap(t, nil, "report", dir, "--format", "md")
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if r.code != 0 || strings.Contains(string(md), partial) || !strings.Contains(r.stderr, "run.json is newer than analysis.json") {
		t.Fatalf("report after resume: exit %d, stderr %q, summary mentions %q: %v", r.code, r.stderr, partial, strings.Contains(string(md), partial))
	}
	// analysis.json (just rewritten) is current: no re-analysis.
	earlier := time.Now().Add(-time.Hour)
	backdate(t, dir, earlier)
	if r = llmcap(t, nil, "report", dir, "--format", "md"); strings.Contains(r.stderr, "re-analysing") {
		t.Errorf("current analysis re-analysed: %s", r.stderr)
	}
	// Same mtimes, different state: analysis.json says complete, run.json interrupted.
	setRunState(t, dir, "complete", "interrupted")
	backdate(t, dir, earlier)
	r = llmcap(t, nil, "report", dir, "--format", "md")
	md, _ = os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), partial) || !strings.Contains(r.stderr, "describes a complete run but run.json says interrupted") {
		t.Errorf("state change: stderr %q, summary mentions %q: %v", r.stderr, partial, strings.Contains(string(md), partial))
	}
}

// backdate sets the run files' modification times to at.
func backdate(t *testing.T, dir string, at time.Time) {
	t.Helper()
	for _, f := range []string{"run.json", "records.jsonl", "steps.jsonl"} {
		if err := os.Chtimes(filepath.Join(dir, f), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReportRejectsFormatFirst: an unknown format fails before any analysis is written.
func TestReportRejectsFormatFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", dir); r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	r := llmcap(t, nil, "report", dir, "--format", "pdf,docx")
	want := `llmcap: --format "docx" is not allowed: must be one of pdf, html, xlsx, charts, json, md, csv`
	if r.code == 0 || strings.TrimSpace(r.stderr) != want || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q, want only %q", r.code, r.stdout, r.stderr, want)
	}
	for _, f := range []string{"analysis.json", "report.pdf"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written before the format was rejected", f)
		}
	}
}

// TestReportRejectsOut: -o for report (and analyze) is refused with the way to write
// elsewhere, before anything is analysed or written.
func TestReportRejectsOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no run")
	out := filepath.Join(t.TempDir(), "elsewhere")
	for _, verb := range []string{"report", "analyze"} {
		r := llmcap(t, nil, verb, dir, "-o", out)
		want := "-o/--out " + out + " is not supported here"
		if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "cp -r '"+dir+"' "+out) {
			t.Errorf("%s -o: exit %d, stderr %q, want it to contain %q", verb, r.code, r.stderr, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s -o created %s", verb, out)
		}
	}
}
