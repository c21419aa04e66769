package analysis

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/rundir/rundirtest"

	"github.com/llmcap/llmcap/plan"
)

// writeRunDir writes a run directory (run.json, records.jsonl and, when given,
// steps.jsonl and server-metrics.jsonl) under a temp dir and returns its path.
func writeRunDir(t testing.TB, meta rundir.RunMeta, recs []rundir.Record, steps []rundir.StepSummary,
	samples []rundir.MetricSample) string {
	t.Helper()
	dir := t.TempDir()
	rundirtest.Write(t, dir, rundirtest.Run{Meta: meta, Records: recs, Steps: steps, Metrics: samples})
	return dir
}

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeLines[T any](t testing.TB, path string, vs []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range vs {
		if err := enc.Encode(&vs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func fp(x float64) *float64 { return &x }

// metaFor builds a run.json for a plan with its steps.
func metaFor(p plan.Plan) rundir.RunMeta {
	return rundir.RunMeta{RunID: "test", ToolVersion: "test", State: rundir.StateComplete, Plan: p, Steps: p.Steps()}
}

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if d := got - want; d > tol || d < -tol {
		t.Errorf("%s = %.6g, want %.6g (±%g)", name, got, want, tol)
	}
}
