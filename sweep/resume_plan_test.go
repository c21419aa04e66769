package sweep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// storedPlan is p as a run directory's run.json holds it (redacted, through JSON).
func storedPlan(t *testing.T, p *plan.Plan) *plan.Plan {
	t.Helper()
	b, err := json.Marshal(p.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	var s plan.Plan
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestResumeConflicts: the URL, the API key's source, metrics endpoints and timeouts may
// change on resume; the deployment, the workload and the SLA may not.
func TestResumeConflicts(t *testing.T) {
	base := rtPlan("http://127.0.0.1:8000/v1")
	base.Target.Simulator.MaxNumSeqs = 16
	stored := storedPlan(t, base)
	if c := ResumeConflicts(stored, base); len(c) != 0 {
		t.Fatalf("the same plan conflicts: %q", c)
	}
	ok := *base
	ok.Target.URL = "http://10.0.0.2:9000/v1"
	ok.Target.APIKeyEnv, ok.Target.APIKey = "KEY", "sk-new"
	ok.Target.MetricsURLs = []string{"http://10.0.0.2:9000/metrics"}
	ok.Target.IdleTimeout, ok.Target.RequestTimeout = 5*time.Second, time.Minute
	if c := ResumeConflicts(stored, &ok); len(c) != 0 {
		t.Errorf("URL, key, metrics and timeouts changed: conflicts %q, want none", c)
	}
	bad := ok
	bad.Target.Simulator.MaxNumSeqs = 64
	bad.Target.Model = "other"
	bad.Target.ExtraBody = map[string]any{"ignore_eos": true}
	bad.SLA.MaxErrorRate = 0.05
	want := []string{
		"sla.max_error_rate: 0.01 → 0.05",
		`target.extra_body: absent → {"ignore_eos":true}`,
		`target.model: "rt-model" → "other"`,
		"target.simulator.max_num_seqs: 16 → 64",
	}
	if c := ResumeConflicts(stored, &bad); strings.Join(c, "\n") != strings.Join(want, "\n") {
		t.Errorf("conflicts:\n%s\nwant:\n%s", strings.Join(c, "\n"), strings.Join(want, "\n"))
	}
}

// TestResumeRefusesOtherDeployment: Run refuses to resume with a plan that conflicts
// with the stored one (before driving anything) unless ForceResume.
func TestResumeRefusesOtherDeployment(t *testing.T) {
	p := rtPlan("http://127.0.0.1:1/v1")
	dir := t.TempDir()
	meta := rundir.RunMeta{RunID: "r", State: rundir.StateInterrupted, Plan: *p.Redacted(), Steps: p.Steps()}
	b, _ := json.Marshal(meta)
	if err := os.WriteFile(filepath.Join(dir, rundir.FileRun), b, 0o644); err != nil {
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
}
