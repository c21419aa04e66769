package compare

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
)

// Runs judged under different SLAs are refused, naming the runs and the field; under
// one SLA given for the comparison (ResolveSLA + analysis.AnalyzeUnder) they are
// compared, judged by it, and their own analysis.json is not written.
func TestDifferentSLAsAreRefusedUnlessOneIsGiven(t *testing.T) {
	a := fixture{name: "a", loads: []int{1, 8}, itlMs: 20, ttftMs: flat(300)}.write(t)
	b := fixture{name: "b", loads: []int{1, 8}, itlMs: 20, ttftMs: flat(300), set: map[string]any{"sla.ttft_ms.p95": 250.0}}.write(t)
	_, err := Compare([]Input{inputOf(t, "a", a), inputOf(t, "b", b)}, Options{})
	var mis *SLAMismatchError
	if !errors.As(err, &mis) || len(mis.Fields) != 1 || mis.Fields[0].Path != "sla.ttft_ms.p95" {
		t.Fatalf("err = %v, want an SLAMismatchError on sla.ttft_ms.p95", err)
	}
	for _, want := range []string{"a, b", "sla.ttft_ms.p95 (a: 500, b: 250)", "--sla"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}

	spec, err := ResolveSLA(inputOf(t, "a", a).Analysis.Plan.SLA, map[string]any{"ttft_ms.p95": 250.0})
	if err != nil {
		t.Fatal(err)
	}
	if spec.TTFTMs["p95"] != 250 || spec.ITLMs["p95"] != 50 {
		t.Fatalf("resolved SLA %+v, want TTFT p95 250 and the baseline's ITL p95 50", spec)
	}
	var in []Input
	for _, r := range []struct{ label, dir string }{{"a", a}, {"b", b}} {
		an, err := analysis.AnalyzeUnder(r.dir, spec)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, Input{Label: r.label, Dir: r.dir, Analysis: an})
	}
	c, err := Compare(in, Options{SLAOverridden: true})
	if err != nil {
		t.Fatalf("under one SLA: %v", err)
	}
	if !c.SLAOverridden || c.SLA.TTFTMs["p95"] != 250 {
		t.Errorf("comparison SLA %+v overridden %v, want TTFT p95 250", c.SLA, c.SLAOverridden)
	}
	// TTFT ≈ 300 ms breaks 250 at every load: neither run has a capacity under it.
	if c.Verdict.Kind != VerdictNoCapacity || c.Runs[0].Basis != BasisNone {
		t.Errorf("verdict %q (%s), run a basis %s: want no capacity under TTFT p95 ≤ 250 ms", c.Verdict.Sentence, c.Verdict.Kind, c.Runs[0].Basis)
	}
	own := inputOf(t, "a", a).Analysis.Segments[0].Steps[1].Goodput // under its own TTFT p95 ≤ 500 ms: every request
	if g := row(t, c, "default", 8).metric(Goodput).Values[0]; own <= 0 || g > 0.1*own {
		t.Errorf("goodput of a at 8: %g req/s under TTFT ≤ 250 ms, %g under its own SLA; want under a tenth", g, own)
	}
	found := false
	for _, f := range c.PlanDiff {
		found = found || f.Path == "sla.ttft_ms.p95" && f.Values[0] == "500" && f.Values[1] == "250"
	}
	if !found {
		t.Errorf("plan diff %+v should still show the runs' own SLAs (sla.ttft_ms.p95 500, 250)", c.PlanDiff)
	}
	for _, d := range []string{a, b} {
		if _, err := os.Stat(filepath.Join(d, analysis.FileAnalysis)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: analysis.json written (err %v); the runs' own analyses must stay as they are", d, err)
		}
	}
}
