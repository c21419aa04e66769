package rundir

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

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
	base := &plan.Plan{
		Name: "rt", Seed: 7,
		Target: plan.Target{URL: "http://127.0.0.1:8000/v1", API: "chat", Model: "rt-model"},
		Segments: []plan.Segment{{Name: "short", Weight: 1,
			PromptTokens: plan.Dist{Kind: plan.DistUniform, Min: 20, Max: 60},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 4}}},
		Ladder: plan.Ladder{Concurrency: []int{4}, Requests: 20},
		SLA:    plan.SLA{MaxErrorRate: 0.01},
	}
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

// TestCheckResumeRules: the same steps with allowed changes pass; other steps are
// refused whatever force says; conflicting fields are refused unless forced, and the
// refusal names each field.
func TestCheckResumeRules(t *testing.T) {
	p := &plan.Plan{Name: "r", Target: plan.Target{URL: "http://127.0.0.1:1/v1", Model: "m"},
		Segments: []plan.Segment{{Name: "a", Weight: 1, PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 8},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 4}}},
		Ladder: plan.Ladder{Concurrency: []int{1, 2}, Requests: 10}}
	stored := storedPlan(t, p)
	moved := *p
	moved.Target.URL = "http://127.0.0.1:2/v1"
	if c, err := CheckResume(stored, &moved, false); err != nil || len(c) != 0 {
		t.Errorf("a new URL: conflicts %v err %v, want none", c, err)
	}
	more := *p
	more.Ladder.Concurrency = []int{1, 2, 4}
	_, err := CheckResume(stored, &more, true)
	var ref *ResumeRefusal
	if !asRefusal(err, &ref) || ref.Reason != ResumeStepsDiffer || ref.StoredSteps != 2 || ref.NewSteps != 3 ||
		ref.FirstDiff != "step 3: the run has none, the plan's a concurrency 4, window 0s, 10 requests" {
		t.Errorf("other steps, forced: %v, want a steps refusal 2 vs 3", err)
	}
	longer := *p
	longer.Ladder.Duration = time.Minute
	if _, err := CheckResume(stored, &longer, true); !asRefusal(err, &ref) ||
		ref.FirstDiff != "step 1: the run's a concurrency 1, window 0s, 10 requests, the plan's a concurrency 1, window 1m0s, 10 requests" {
		t.Errorf("a longer window: %v", err)
	}
	other := *p
	other.Target.Model = "n"
	_, err = CheckResume(stored, &other, false)
	if !asRefusal(err, &ref) || ref.Reason != ResumeFieldsDiffer || len(ref.Conflicts) != 1 ||
		ref.Conflicts[0] != `target.model: "m" → "n"` {
		t.Errorf("another model: %v, want a field refusal naming target.model", err)
	}
	if c, err := CheckResume(stored, &other, true); err != nil || len(c) != 1 {
		t.Errorf("another model, forced: conflicts %v err %v, want the conflict and no error", c, err)
	}
}

func asRefusal(err error, dst **ResumeRefusal) bool {
	r, ok := err.(*ResumeRefusal)
	*dst = r
	return ok
}
