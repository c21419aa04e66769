package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
)

// driftRun sweeps a one-step plan with the drift probe (the shipped 50 prompts, 2
// repeats, after the ladder too) against the simulator with the given nondeterministic
// fraction, and returns the run directory.
func driftRun(t *testing.T, fraction float64) string {
	t.Helper()
	return driftRunTokens(t, fraction, 64)
}

// driftRunTokens is driftRun with the probe's max_tokens.
func driftRunTokens(t *testing.T, fraction float64, maxTokens int) string {
	t.Helper()
	p := &plan.Plan{Name: "drift", Seed: 5,
		Target: plan.Target{URL: plan.TargetSimulator, API: "chat", Model: "llama-3.2-1b",
			ExtraBody: map[string]any{"ignore_eos": true},
			Simulator: plan.Simulator{GPU: "H200", Model: "llama-3.2-1b", MaxNumSeqs: 64, MaxNumBatchedTokens: 8192,
				GPUMemoryUtilization: 0.9, BlockSize: 16, SpeedUp: 200, NondeterministicFraction: fraction},
			MetricsInterval: 100 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1, PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 32},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 16}}},
		Ladder: plan.Ladder{Concurrency: []int{2}, Requests: 8, Grace: 10 * time.Second},
		SLA:    plan.SLA{MaxErrorRate: 0.01},
		Drift:  &plan.Drift{Seed: 1234, MaxTokens: maxTokens, Repeats: 2, After: true, Concurrency: 4},
	}
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDriftSectionSaysWhetherTemperatureZeroWasDeterministic: the analysis of a run
// against the simulator with 20% nondeterministic prompts counts 10 ± 4 of 50 changed,
// names each with where it changed, warns and prints it; with 0% it says all 50 were
// identical and that the server is deterministic.
func TestDriftSectionSaysWhetherTemperatureZeroWasDeterministic(t *testing.T) {
	a, err := Analyze(driftRun(t, 0.2))
	if err != nil {
		t.Fatal(err)
	}
	d := a.Drift
	if d == nil || d.Prompts != 50 || d.Compared != 50 || d.Failed != 0 || d.Verdict != DriftNondeterministic {
		t.Fatalf("drift section %+v; want 50 prompts compared, nondeterministic", d)
	}
	t.Logf("20%%: %s", d.Text)
	if n := len(d.Changed); n < 6 || n > 14 || d.Identical != 50-n {
		t.Errorf("%d changed, %d identical; want 10 ± 4 changed of 50", n, d.Identical)
	}
	for _, c := range d.Changed {
		ref, txt := []rune(c.Reference), []rune(c.Text)
		if c.Phase != rundir.DriftBefore || c.Repeat != 1 || c.DiffersAt < 0 || c.DiffersAt >= min(len(ref), len(txt)) ||
			string(ref[:c.DiffersAt]) != string(txt[:c.DiffersAt]) || ref[c.DiffersAt] == txt[c.DiffersAt] {
			t.Errorf("change %+v: want repeat 2 before the ladder, the texts equal up to differs_at and not at it", c)
		}
	}
	want := " outputs changed between repeats or after the ladder at temperature 0: this server is not deterministic; " +
		"for a reasoning model, think-mode sampling is a known cause."
	if !strings.HasSuffix(d.Text, want) || !strings.HasPrefix(d.Text, itoa(len(d.Changed))+" of 50") {
		t.Errorf("text %q; want %q", d.Text, "N of 50"+want)
	}
	if !hasWarning(a, WarnNondeterministic, d.Text) {
		t.Errorf("no %s warning with the text; warnings %+v", WarnNondeterministic, a.Warnings)
	}
	var out bytes.Buffer
	if err := PrintSummary(&out, a); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "Output drift: "+d.Text) || !strings.Contains(s, "differs at character") ||
		strings.Contains(s, "warning: "+d.Text) {
		t.Errorf("summary lacks the drift lines (or repeats them as a warning):\n%s", s)
	}

	a0, err := Analyze(driftRun(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	d0 := a0.Drift
	if d0.Verdict != DriftDeterministic || d0.Identical != 50 || len(d0.Changed) != 0 || hasWarning(a0, WarnNondeterministic, "") {
		t.Fatalf("0%%: %+v; want all 50 identical, deterministic, no warning", d0)
	}
	if want := "All 50 outputs were identical between repeats or after the ladder at temperature 0 (seed 1234, 64 tokens): this server is deterministic."; d0.Text != want {
		t.Errorf("0%%: text %q; want %q", d0.Text, want)
	}
}

// TestDriftBaselineComparesTwoRuns: two runs against deterministic simulators agree on
// all 50 prompts; a run with 20% nondeterministic prompts differs from a deterministic
// baseline on about that share (the same texts but for the nondeterministic prompts,
// whose first output already diverges from the deterministic text).
func TestDriftBaselineComparesTwoRuns(t *testing.T) {
	base, same, noisy := driftRun(t, 0), driftRun(t, 0), driftRun(t, 0.2)
	a, err := Analyze(same)
	if err != nil {
		t.Fatal(err)
	}
	if err := CompareDrift(a, same, base); err != nil {
		t.Fatal(err)
	}
	if b := a.Drift.Baseline; b == nil || b.Compared != 50 || b.Identical != 50 || b.Dir != base || hasWarning(a, WarnDriftBaseline, "") {
		t.Fatalf("baseline %+v; want all 50 identical, no warning", b)
	}
	an, err := Analyze(noisy)
	if err != nil {
		t.Fatal(err)
	}
	if err := CompareDrift(an, noisy, base); err != nil {
		t.Fatal(err)
	}
	b := an.Drift.Baseline
	t.Logf("baseline: %s", b.Text)
	if n := len(b.Changed); b.Compared != 50 || n < 6 || n > 14 || !hasWarning(an, WarnDriftBaseline, b.Text) {
		t.Errorf("baseline %+v; want 10 ± 4 of 50 changed and a warning", b)
	}
	if err := CompareDrift(an, noisy, t.TempDir()); err == nil {
		t.Error("a baseline directory without a run: no error")
	}
}

// TestDriftBaselineOfAnotherProbeIsNotCompared: a baseline whose probe sent another
// max_tokens gives other outputs whatever the server does: nothing is compared, the
// text names the setting, and no drift-baseline warning blames the deployment.
func TestDriftBaselineOfAnotherProbeIsNotCompared(t *testing.T) {
	base, short := driftRun(t, 0), driftRunTokens(t, 0, 32)
	a, err := Analyze(short)
	if err != nil {
		t.Fatal(err)
	}
	if err := CompareDrift(a, short, base); err != nil {
		t.Fatal(err)
	}
	b := a.Drift.Baseline
	if b == nil || b.Compared != 0 || len(b.Changed) != 0 || b.Mismatch != "drift.max_tokens (32 against the baseline's 64)" ||
		!strings.Contains(b.Text, "the probes differ in drift.max_tokens") || hasWarning(a, WarnDriftBaseline, "") {
		t.Fatalf("baseline %+v; want not compared, the mismatch named, no warning", b)
	}
}

// TestDriftAbsentAndOldFiles: a run without the probe has no drift section, and an
// analysis.json of format 6 (before the section) still reads, without one.
func TestDriftAbsentAndOldFiles(t *testing.T) {
	if d := driftOf(nil, false, nil); d != nil {
		t.Errorf("no drift.jsonl: section %+v; want none", d)
	}
	dir := t.TempDir()
	old := `{"format_version": 6, "run_id": "r", "segments": [], "warnings": [], "answer": "x"}`
	if err := os.WriteFile(filepath.Join(dir, FileAnalysis), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadJSON(dir)
	if err != nil || a.FormatVersion != 6 || a.Drift != nil || a.Answer != "x" {
		t.Fatalf("format-6 file: %+v, %v", a, err)
	}
	b, _ := json.Marshal(&Analysis{FormatVersion: FormatVersion})
	if FormatVersion != 7 || strings.Contains(string(b), `"drift"`) {
		t.Errorf("format %d, %s: want 7 and no drift key without the probe", FormatVersion, b)
	}
}

func hasWarning(a *Analysis, k WarningKind, msg string) bool {
	for _, w := range a.Warnings {
		if w.Kind == k && (msg == "" || w.Message == msg) {
			return true
		}
	}
	return false
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
