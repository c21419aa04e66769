package sweep

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// driftSimPlan is simPlan with the drift probe (defaults: 50 shipped prompts, 2
// repeats, max_tokens 64) and the simulator's nondeterministic fraction.
func driftSimPlan(fraction float64, after bool) *plan.Plan {
	p := simPlan(2, 8)
	p.Target.Simulator.SpeedUp = 200
	p.Target.Simulator.NondeterministicFraction = fraction
	p.Target.Temperature = 0.7 // the load's; the probe sends 0 all the same
	p.Drift = &plan.Drift{Seed: plan.DefaultDriftSeed, MaxTokens: plan.DefaultDriftMaxTokens,
		Repeats: plan.DefaultDriftRepeats, After: after, Concurrency: 4}
	return p
}

// readDrift reads dir's drift.jsonl, failing on damage or a missing file.
func readDrift(t *testing.T, dir string) []rundir.DriftRecord {
	t.Helper()
	recs, dmg, ok, err := rundir.ReadDrift(dir)
	if err != nil || !ok || dmg.Any() {
		t.Fatalf("read drift.jsonl: ok %v, damage %v, %v", ok, dmg, err)
	}
	return recs
}

// changedPrompts are the prompts whose output of the given phase and repeat differs
// from the first repeat before the ladder.
func changedPrompts(recs []rundir.DriftRecord, phase rundir.DriftPhase, repeat int) []int {
	ref := map[int]string{}
	for _, r := range recs {
		if r.Phase == rundir.DriftBefore && r.Repeat == 0 {
			ref[r.Prompt] = r.SHA256
		}
	}
	var out []int
	for _, r := range recs {
		if r.Phase == phase && r.Repeat == repeat && r.SHA256 != ref[r.Prompt] {
			out = append(out, r.Prompt)
		}
	}
	return out
}

// TestDriftProbeFindsTheSimulatorsNondeterministicPrompts: against the simulator with
// 20% of prompts nondeterministic, the probe's two repeats of the 50 shipped prompts
// differ on 10 ± 4 of them, each line says where, and with 0% none differ, although the
// load runs at temperature 0.7. The probe's requests stay out of records.jsonl.
func TestDriftProbeFindsTheSimulatorsNondeterministicPrompts(t *testing.T) {
	for _, tc := range []struct {
		fraction float64
		lo, hi   int
	}{{0.2, 6, 14}, {0, 0, 0}} {
		dir := t.TempDir()
		if err := Run(context.Background(), driftSimPlan(tc.fraction, true), Options{OutDir: dir}); err != nil {
			t.Fatal(err)
		}
		recs := readDrift(t, dir)
		if len(recs) != 150 {
			t.Fatalf("fraction %g: %d drift lines; want 150 (2 × 50 before, 50 after)", tc.fraction, len(recs))
		}
		for _, r := range recs {
			if !r.OK() || r.OutputTokens != 64 || r.TextBytes != len(r.Text) || len(r.SHA256) != 64 || r.Text == "" {
				t.Fatalf("fraction %g: line %+v; want ok, 64 tokens, the whole text and its sha256", tc.fraction, r)
			}
			differs := r.DiffersAt != nil
			if first := r.Phase == rundir.DriftBefore && r.Repeat == 0; first && differs {
				t.Fatalf("the reference line has differs_at: %+v", r)
			}
			if differs && (*r.DiffersAt < 0 || *r.DiffersAt >= len(r.Text)) {
				t.Fatalf("differs_at %d outside the text of %d bytes", *r.DiffersAt, len(r.Text))
			}
		}
		changed := changedPrompts(recs, rundir.DriftBefore, 1)
		t.Logf("fraction %g: %d of 50 outputs changed between repeats: %v", tc.fraction, len(changed), changed)
		if len(changed) < tc.lo || len(changed) > tc.hi {
			t.Errorf("fraction %g: %d of 50 outputs changed; want %d to %d", tc.fraction, len(changed), tc.lo, tc.hi)
		}
		if after := changedPrompts(recs, rundir.DriftAfter, 0); len(after) != len(changed) {
			t.Errorf("fraction %g: %d changed after the ladder, %d between repeats; want the same prompts", tc.fraction, len(after), len(changed))
		}
		recsLoad, _, _ := rtRead(t, dir)
		for _, r := range recsLoad {
			if strings.Contains(r.RequestID, "-drift-") {
				t.Fatalf("a probe request in records.jsonl: %+v", r)
			}
		}
	}
}

// cancelAtMeasure is a StepHook that cancels the sweep as the first step's window opens.
type cancelAtMeasure struct{ cancel context.CancelFunc }

func (c cancelAtMeasure) BeforeMeasure(context.Context, plan.Step, string) error {
	c.cancel()
	return nil
}
func (c cancelAtMeasure) AfterMeasure(context.Context, plan.Step, string) (string, error) {
	return "", nil
}

// TestDriftProbeNotResentOnResume: a run interrupted after its probe keeps the probe's
// 100 lines, and --resume finishes the ladder without sending them again.
func TestDriftProbeNotResentOnResume(t *testing.T) {
	dir := t.TempDir()
	p := driftSimPlan(0.2, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := Run(ctx, p, Options{OutDir: dir, Hook: cancelAtMeasure{cancel}}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("first run: %v; want ErrInterrupted", err)
	}
	first := readDrift(t, dir)
	if len(first) != 100 {
		t.Fatalf("%d drift lines after the interrupted run; want 100", len(first))
	}
	if err := Run(context.Background(), p, Options{OutDir: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	again := readDrift(t, dir)
	if len(again) != 100 {
		t.Fatalf("%d drift lines after the resume; want the first run's 100", len(again))
	}
	for i := range first {
		if again[i].SentNs != first[i].SentNs || again[i].SHA256 != first[i].SHA256 {
			t.Fatalf("line %d changed on resume: %+v → %+v", i, first[i], again[i])
		}
	}
	if _, steps, meta := rtRead(t, dir); len(steps) != 1 || meta.State != rundir.StateComplete {
		t.Fatalf("after the resume: %d steps, state %s; want 1, complete", len(steps), meta.State)
	}
}

// TestDriftProbeRecordsFailedRequests: a probe whose max_tokens the model cannot hold
// (stories-260k: 512 tokens) gets 400s; each is a recorded error line with its class,
// and the ladder still runs.
func TestDriftProbeRecordsFailedRequests(t *testing.T) {
	dir := t.TempDir()
	p := driftSimPlan(0, false)
	p.Target.Simulator.Model, p.Target.Simulator.GPU = "stories-260k", "cpu-slow"
	p.Target.Model = ""
	p.Drift.MaxTokens, p.Drift.Repeats = 1000, 1
	if err := Run(context.Background(), p, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	recs := readDrift(t, dir)
	if len(recs) != 50 {
		t.Fatalf("%d drift lines; want 50", len(recs))
	}
	for _, r := range recs {
		if r.OK() || r.ErrorClass != rundir.ErrContextLength || r.SHA256 != "" || r.Error == "" {
			t.Fatalf("line %+v; want an error line of class %s with its message", r, rundir.ErrContextLength)
		}
	}
	if _, steps, _ := rtRead(t, dir); len(steps) != 1 || steps[0].MeasureRequests == 0 {
		t.Fatalf("steps %+v; want the ladder's step measured", steps)
	}
}
