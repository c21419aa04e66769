package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// driftLines are a probe's drift.jsonl lines: outputs[repeat][prompt] is the text the
// prompt got on that repeat before the ladder (prompt i's text is "prompt i").
func driftLines(runID string, outputs [][]string) []rundir.DriftRecord {
	hash := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	var out []rundir.DriftRecord
	for rep, texts := range outputs {
		for p, txt := range texts {
			r := rundir.DriftRecord{RunID: runID, Phase: rundir.DriftBefore, Repeat: rep, Prompt: p,
				PromptSHA256: hash(fmt.Sprintf("prompt %d", p)), Status: rundir.StatusOK, FinishReason: "length",
				SHA256: hash(txt), OutputTokens: 8}
			r.SetText(txt)
			if rep > 0 && txt != outputs[0][p] {
				at := rundir.FirstDiff(outputs[0][p], txt)
				r.DiffersAt = &at
			}
			out = append(out, r)
		}
	}
	return out
}

// withDrift appends recs to dir's drift.jsonl through rundir's writer.
func withDrift(t *testing.T, dir string, recs []rundir.DriftRecord) {
	t.Helper()
	w, err := rundir.OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendDrift(recs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

var driftBase = []string{"Paris is the capital.", "4", "def f(x): return x", "Bonjour le monde"}

// Three runs, two with the probe: the later one's outputs are compared with the
// baseline's prompt by prompt (3 of 4 identical; prompt 2 differs at character 6) and
// its own repeats say it is not deterministic at temperature 0 (prompt 3 changed at
// character 7 between its repeats); the run without the probe is listed without
// either; the inputs' analyses are left as they were.
func TestCompareDriftCountsIdenticalOutputsAgainstTheBaseline(t *testing.T) {
	base := fixture{name: "base", loads: []int{1, 4}, ttftMs: flat(50), itlMs: 20, set: map[string]any{"drift.repeats": 2}}.write(t)
	later := fixture{name: "later", loads: []int{1, 4}, ttftMs: flat(50), itlMs: 20, set: map[string]any{"drift.repeats": 2}}.write(t)
	none := fixture{name: "none", loads: []int{1, 4}, ttftMs: flat(50), itlMs: 20}.write(t)
	withDrift(t, base, driftLines("base", [][]string{driftBase, driftBase}))
	changed := []string{driftBase[0], driftBase[1], "def f(y): return y", driftBase[3]}
	again := []string{changed[0], changed[1], changed[2], "Bonjour, monde"}
	withDrift(t, later, driftLines("later", [][]string{changed, again}))

	in := []Input{inputOf(t, "base", base), inputOf(t, "later", later), inputOf(t, "none", none)}
	warnings := len(in[1].Analysis.Warnings)
	c, err := Compare(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := c.Drift
	if d == nil || d.Reference != "base" || len(d.Runs) != 3 {
		t.Fatalf("drift section %+v; want reference base, 3 runs", d)
	}
	vs := d.Runs[1].VsReference
	if vs == nil || vs.Compared != 4 || vs.Identical != 3 || len(vs.Changed) != 1 || vs.RunID != "base" {
		t.Fatalf("later against base: %+v; want 3 of 4 identical against run base", vs)
	}
	if ch := vs.Changed[0]; ch.Prompt != 2 || ch.DiffersAt != 6 || ch.Reference != driftBase[2] || ch.Text != changed[2] {
		t.Errorf("changed prompt %+v; want prompt 2 at character 6 with both texts", ch)
	}
	if own := d.Runs[1].Own; own == nil || own.Verdict != analysis.DriftNondeterministic || own.Compared != 4 ||
		len(own.Changed) != 1 || own.Changed[0].Prompt != 3 || own.Changed[0].DiffersAt != 7 || own.Baseline != nil {
		t.Errorf("later's own drift %+v; want nondeterministic, prompt 3 changed at character 7", own)
	}
	if own := d.Runs[0].Own; own == nil || own.Verdict != analysis.DriftDeterministic || own.Identical != 4 || d.Runs[0].VsReference != nil {
		t.Errorf("base's drift %+v against %+v; want deterministic 4 of 4 and no comparison with itself", own, d.Runs[0].VsReference)
	}
	if r := d.Runs[2]; r.Probe || r.Own != nil || r.VsReference != nil {
		t.Errorf("the run without the probe: %+v", r)
	}
	if a := in[1].Analysis; a.Drift.Baseline != nil || len(a.Warnings) != warnings {
		t.Error("Compare changed an input's analysis")
	}
}

// With the probe in one run only there is nothing to compare: no drift section.
func TestCompareDriftNeedsTwoRunsWithTheProbe(t *testing.T) {
	base := fixture{name: "base", loads: []int{1}, ttftMs: flat(50), itlMs: 20, set: map[string]any{"drift.repeats": 2}}.write(t)
	other := fixture{name: "other", loads: []int{1}, ttftMs: flat(50), itlMs: 20}.write(t)
	withDrift(t, base, driftLines("base", [][]string{driftBase, driftBase}))
	c, err := Compare([]Input{inputOf(t, "base", base), inputOf(t, "other", other)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Drift != nil {
		t.Errorf("drift section %+v with one probe", c.Drift)
	}
}
