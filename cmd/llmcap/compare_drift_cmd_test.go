package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/compare"
)

// Two simulator runs with the drift probe, the later one's simulator nondeterministic
// for 20% of the prompts: compare --format json,pdf,xlsx writes just those files, and
// its drift section counts the later run's outputs against the baseline's (k of 50,
// some differing) and says temperature 0 was not deterministic on it, in compare.json
// and on the console.
func TestCompareDriftOfTwoSimulatorRuns(t *testing.T) {
	drift := []string{"drift.repeats=2", "drift.max_tokens=8", "drift.concurrency=8"}
	a := compareRun(t, "det", drift...)
	b := compareRun(t, "nondet", append(drift, "target.simulator.nondeterministic_fraction=0.2")...)
	out := filepath.Join(t.TempDir(), "cmp")
	r := llmcap(t, nil, "compare", a, b, "-o", out, "--format", "json,pdf,xlsx")
	if r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "compare.json,compare.pdf,compare.xlsx" {
		t.Errorf("wrote %v, want compare.json, compare.pdf, compare.xlsx only", names)
	}
	raw, err := os.ReadFile(filepath.Join(out, "compare.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c compare.Comparison
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	d := c.Drift
	if d == nil || d.Reference != "det" || len(d.Runs) != 2 || d.Runs[1].VsReference == nil {
		t.Fatalf("drift section %+v; want nondet compared with det", d)
	}
	vs := d.Runs[1].VsReference
	if vs.Compared != 50 || len(vs.Changed) == 0 || vs.Identical != 50-len(vs.Changed) {
		t.Errorf("nondet against det: %d of %d identical, %d changed; want some of the 50 changed", vs.Identical, vs.Compared, len(vs.Changed))
	}
	if own := d.Runs[1].Own; own == nil || own.Verdict != "nondeterministic" || d.Runs[0].Own.Verdict != "deterministic" {
		t.Errorf("own verdicts: det %+v, nondet %+v", d.Runs[0].Own, own)
	}
	if !strings.Contains(r.stdout, "Temperature 0 was not deterministic on nondet") || !strings.Contains(r.stdout, "probe outputs were identical to det's") {
		t.Errorf("console lacks the drift findings:\n%s", r.stdout)
	}
}

// A --format the comparison does not write is a usage error naming the allowed ones.
func TestCompareRefusesAnUnknownFormat(t *testing.T) {
	r := llmcap(t, nil, "compare", "x", "y", "-o", t.TempDir(), "--format", "pdf,docx")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown format "docx" (want one of json, md, html, pdf, xlsx, charts)`) {
		t.Errorf("exit %d, stderr %q; want 2 naming the formats", r.code, r.stderr)
	}
}
