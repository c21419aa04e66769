package sweep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// TestResumeRefusesOtherDeployment: Run refuses to resume with a plan that conflicts
// with the stored one (before driving anything) unless ForceResume.
func TestResumeRefusesOtherDeployment(t *testing.T) {
	p := rtPlan("http://127.0.0.1:1/v1")
	dir := t.TempDir()
	meta := rundir.RunMeta{RunID: "r", State: rundir.StateInterrupted, Plan: *p.Redacted(), Steps: p.Steps()}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, rundir.FileRun), mustJSON(t, meta)); err != nil {
		t.Fatal(err)
	}
	other := *p
	other.Target.Simulator.MaxNumSeqs = 64
	err := Run(context.Background(), &other, Options{OutDir: dir, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "target.simulator.max_num_seqs: 0 → 64") {
		t.Fatalf("Run = %v, want a refusal naming target.simulator.max_num_seqs", err)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.FileRecords)); err == nil {
		t.Errorf("a refused resume opened %s", rundir.FileRecords)
	}
	// Forced, it gets past the check (and fails on the unreachable target instead).
	err = Run(context.Background(), &other, Options{OutDir: dir, Resume: true, ForceResume: true})
	if err == nil || strings.Contains(err.Error(), "max_num_seqs") {
		t.Errorf("forced resume: %v, want the target's failure, not the plan check", err)
	}
	// The run says it now mixes two plans, naming the field.
	m, rerr := rundir.ReadMeta(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	mixed := false
	for _, w := range m.Warnings {
		mixed = mixed || w.Kind == rundir.WarnMixedPlans && w.Data != nil &&
			strings.Contains(w.Data.Error, "target.simulator.max_num_seqs: 0 → 64")
	}
	if !mixed {
		t.Errorf("forced resume left no mixed-plans warning in run.json: %+v", m.Warnings)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
