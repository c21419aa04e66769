package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/compare"
)

// compareRun sweeps the tiny plan on the embedded simulator into a fresh directory
// named name, with --set overrides.
func compareRun(t *testing.T, name string, set ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	args := []string{"sweep", "-c", tinyPlan(t), "-o", dir}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	if r := llmcap(t, nil, args...); r.code != 0 {
		t.Fatalf("sweep %s: exit %d: %s", name, r.code, r.stderr)
	}
	return dir
}

// Two simulator runs under different SLAs: compare refuses them naming the runs and
// the field, and compares them under --sla, writing the report's files and printing
// the verdict, without rewriting either run's analysis.json.
func TestCompareRefusesDifferentSLAsUnlessSLAGiven(t *testing.T) {
	a := compareRun(t, "seqs4")
	b := compareRun(t, "seqs8", "target.simulator.max_num_seqs=8", "sla.ttft_ms.p95=800")
	out := filepath.Join(t.TempDir(), "cmp")

	r := llmcap(t, nil, "compare", a, b, "-o", out)
	if r.code != 1 || !strings.Contains(r.stderr, "runs seqs4, seqs8 were judged under different SLAs: sla.ttft_ms.p95 (seqs4: 500, seqs8: 800)") {
		t.Fatalf("different SLAs: exit %d, stderr %q; want exit 1 naming sla.ttft_ms.p95", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused comparison wrote %s (err %v)", out, err)
	}

	if r := llmcap(t, nil, "analyze", b); r.code != 0 {
		t.Fatalf("analyze: exit %d: %s", r.code, r.stderr)
	}
	before, err := os.ReadFile(filepath.Join(b, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	r = llmcap(t, nil, "compare", a, b, "-o", out, "--labels", "4,8", "--sla", "sla.ttft_ms.p95=800")
	if r.code != 0 {
		t.Fatalf("--sla: exit %d: %s", r.code, r.stderr)
	}
	var c compare.Comparison
	raw, err := os.ReadFile(filepath.Join(out, "compare.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if !c.SLAOverridden || c.SLA.TTFTMs["p95"] != 800 || len(c.Deltas) != 2 || c.Labels[1] != "8" {
		t.Errorf("compare.json: overridden %v, TTFT p95 %v, %d delta rows, labels %v; want 800, rows at 1 and 2, labels 4, 8",
			c.SLAOverridden, c.SLA.TTFTMs["p95"], len(c.Deltas), c.Labels)
	}
	if !strings.Contains(r.stdout, c.Verdict.Sentence) || !strings.Contains(r.stdout, "target.simulator.max_num_seqs  4") {
		t.Errorf("stdout lacks the verdict %q or the plan diff:\n%s", c.Verdict.Sentence, r.stdout)
	}
	for _, f := range []string{"compare.md", "compare.html", "charts/compare-ttft-chat.svg", "charts/compare-goodput-chat.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	after, _ := os.ReadFile(filepath.Join(b, "analysis.json"))
	if string(after) != string(before) {
		t.Error("compare --sla rewrote the run's own analysis.json")
	}
}

// compare needs -o and one label per run.
func TestCompareUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"compare", "x", "y"}, {"compare", "x"}, {"compare", "x", "y", "-o", "z", "--labels", "a"}} {
		if r := llmcap(t, nil, args...); r.code != 2 {
			t.Errorf("llmcap %v: exit %d (%s), want 2", args, r.code, r.stderr)
		}
	}
}
