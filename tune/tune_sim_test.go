package tune

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/internal/testlock"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// simTunePlan is a tune of the simulator (this test binary as its server, 10× faster
// than real time) over the given space YAML: a capacity search over concurrency with
// 2 s windows; the SLA's 150 ms TTFT p95 (15 ms at 10×) breaks soon after the
// requests in flight pass max_num_seqs.
func simTunePlan(t *testing.T, tuneYAML string) *plan.Plan {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	command := `["` + exe + `", "--addr", "127.0.0.1:{port}", "--speed-up", "10", "--max-num-seqs", "{max_num_seqs}"]`
	p, err := plan.Load(simTunePlanFile(t, command, tuneYAML), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// simTunePlanFile writes simTunePlan's plan with the launch command (a YAML list) and
// returns its path.
func simTunePlanFile(t *testing.T, command, tuneYAML string) string {
	t.Helper()
	y := `name: tune-test
seed: 7
target:
  model: llama-3.1-8b
  api: chat
  extra_body: {ignore_eos: true}
segments:
  - name: chat
    weight: 1
    prompt_tokens: {dist: fixed, value: 256}
    output_tokens: {dist: fixed, value: 64}
ladder:
  search: {over: concurrency, start: 2, max: 64, growth: 2, tolerance: 0.2, max_steps: 5}
  warmup: {duration: 300ms}
  duration: 2s
  grace: 1s
sla:
  ttft_ms: {p95: 15}
  itl_ms: {p95: 5}
report: {formats: [json]}
tune:
  launch:
    command: ` + command + `
    ready_timeout: 20s
    stop_grace: 3s
` + tuneYAML
	path := filepath.Join(t.TempDir(), "tune.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTuneGridFindsTheMostSlots: a grid over max_num_seqs 2, 4, 8 with the baseline at
// 2 measures three trials (the baseline is the grid's first setting, not measured
// twice), each launched, measured and stopped; the capacity grows with the slots, the
// recommendation is max_num_seqs 8 with its exact command and a gain over the baseline.
func TestTuneGridFindsTheMostSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("launches three simulators")
	}
	testlock.Hold(t) // timing-critical: not beside the other packages' heavy tests
	p := simTunePlan(t, `    env: ["`+envHelper+`=sim"]
  space:
    - {name: max_num_seqs, type: int, values: [2, 4, 8]}
  algorithm: grid
  baseline: {max_num_seqs: 2}
`)
	dir := t.TempDir()
	res, err := Run(context.Background(), p, Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	trials, _, err := rundir.ReadTrials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 3 || res.Trials != 3 || res.OK != 3 {
		t.Fatalf("%d trials (result %d, %d ok), want 3 measured: %+v", len(trials), res.Trials, res.OK, trials)
	}
	caps := map[int64]float64{}
	for _, tr := range trials {
		n := tr.Params["max_num_seqs"].(float64)
		caps[int64(n)] = tr.Capacity
		t.Logf("trial %d: max_num_seqs %v: capacity %g (%s), cold start %.2f s, peak RSS %.1f MiB, %d steps",
			tr.Trial, n, tr.Capacity, tr.CapacityMethod, tr.ColdStartS, tr.PeakRSSMiB, tr.SearchSteps)
		if tr.ColdStartS <= 0 || tr.ColdStartS > 20 || tr.PeakRSSMiB < 1 || tr.SearchSteps < 2 {
			t.Errorf("trial %d: cold start %g s, peak RSS %g MiB, %d steps: want measured", tr.Trial, tr.ColdStartS, tr.PeakRSSMiB, tr.SearchSteps)
		}
		if !strings.Contains(strings.Join(tr.Command, " "), fmt.Sprintf("--max-num-seqs %d", int64(n))) {
			t.Errorf("trial %d command %q does not carry its max_num_seqs %v", tr.Trial, tr.Command, n)
		}
	}
	if !(caps[8] > caps[4] && caps[4] > caps[2] && caps[2] > 0) {
		t.Errorf("capacities %v: want them to grow with max_num_seqs", caps)
	}
	rec := trialByNumber(trials, res.Recommended)
	if rec == nil || rec.Params["max_num_seqs"].(float64) != 8 || res.Baseline != 0 || res.GainOverBaseline <= 0 {
		t.Fatalf("recommended %d, baseline %d, gain %g: want max_num_seqs 8 over baseline 0; result %+v; trials %+v", res.Recommended, res.Baseline, res.GainOverBaseline, res, trials)
	}
	if !strings.Contains(res.Answer, "max_num_seqs=8") || !strings.Contains(res.Answer, "more than the starting configuration") {
		t.Errorf("answer %q", res.Answer)
	}
	if _, ok, _ := rundir.ReadTuneServer(dir); ok {
		t.Error("tune-server.json left behind after the tune")
	}
	t.Logf("answer: %s", res.Answer)
}
