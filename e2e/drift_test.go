package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// TestOllamaDriftDeterministic runs the drift probe against the real Ollama +
// stories260K at temperature 0 with a seed, twice (drift.repeats 2) before a one-step
// ladder, then compares a second run with the first (llmcap analyze --baseline): the
// server is deterministic, so 0 of the 50 shipped prompts change, within the run and
// between the runs.
func TestOllamaDriftDeterministic(t *testing.T) {
	base := ollamaURL(t)
	tmp := t.TempDir()
	run := func(name string) *runDir {
		out := filepath.Join(tmp, name)
		runLLMCap(t, base, 10*time.Minute, "run", "-c", "configs/ollama-stories.yaml", "-o", out,
			"--set", "ladder.concurrency=[1]", "--set", "ladder.duration=2s", "--set", "ladder.warmup.requests=0",
			"--set", "drift.repeats=2", "--set", "drift.max_tokens=64", "--set", "report.formats=[md]")
		return loadRunDir(t, out)
	}
	first, second := run("first"), run("second")
	for _, rd := range []*runDir{first, second} {
		lines := readJSONL[rundir.DriftRecord](t, filepath.Join(rd.Dir, rundir.FileDrift))
		if len(lines) != 100 {
			t.Fatalf("%s: %d drift lines; want 100 (2 × 50)", rd.Dir, len(lines))
		}
		d := rd.Analysis.Drift
		if d == nil {
			t.Fatalf("%s: analysis.json has no drift section", rd.Dir)
		}
		t.Logf("%s: %s", rd.Dir, d.Text)
		if d.Verdict != analysis.DriftDeterministic || d.Compared != 50 || len(d.Changed) != 0 || d.Failed != 0 {
			t.Errorf("%s: %d of %d changed, %d failed, verdict %s; want 0 of 50, deterministic", rd.Dir,
				len(d.Changed), d.Compared, d.Failed, d.Verdict)
		}
	}
	runLLMCap(t, base, 2*time.Minute, "analyze", second.Dir, "--baseline", first.Dir)
	b := loadRunDir(t, second.Dir).Analysis.Drift.Baseline
	if b == nil || b.Compared != 50 || len(b.Changed) != 0 {
		t.Fatalf("baseline %+v; want 0 of 50 changed between the runs", b)
	}
}
