package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// tuneFixturePlan is a plan with a tune section: vLLM's three parameters, users within
// the SLA against the p95 TTFT at 32 users, a baseline.
const tuneFixturePlan = `name: tune-fixture
seed: 7
target: {model: meta-llama/Llama-3.1-8B-Instruct}
ladder:
  search: {over: users, start: 8, max: 512}
sla:
  ttft_ms: {p95: 500}
  think_time: 5s
tune:
  launch:
    command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --port, "{port}", --max-num-seqs, "{max_num_seqs}",
      --max-num-batched-tokens, "{max_num_batched_tokens}", --gpu-memory-utilization, "{gpu_memory_utilization}"]
    env: ["VLLM_LOGGING_LEVEL=INFO"]
    ready_timeout: 5m
  space:
    - {name: max_num_seqs, type: int, min: 8, max: 256, log: true}
    - {name: max_num_batched_tokens, type: int, min: 512, max: 16384, log: true}
    - {name: gpu_memory_utilization, type: float, min: 0.8, max: 0.95, step: 0.05}
  constraints: ["max_num_batched_tokens >= max_num_seqs"]
  objectives:
    - {metric: users, direction: maximize}
    - {metric: ttft_p95_at_target_ms, direction: minimize}
  target_load: 32
  population: 4
  generations: 3
  budget: {trials: 10}
  baseline: {max_num_seqs: 16, max_num_batched_tokens: 2048, gpu_memory_utilization: 0.9}
`

// tuneFixtureAnswer is the fixture's answer sentence (the tune package's words).
const tuneFixtureAnswer = "Launch vLLM with max_num_seqs 128, max_num_batched_tokens 8192 and gpu_memory_utilization 0.9: " +
	"it serves 138 users within the SLA (trial 4), 38% more than the starting configuration's 100."

// tuneFixtureLongReason is trial 7's fail reason, longer than the PDF table shows.
const tuneFixtureLongReason = "the server exited with status 1 before it was ready (after 41.2 s): ValueError: " +
	"max_num_batched_tokens (16384) is smaller than max_model_len (131072). This effectively limits the maximum sequence " +
	"length to max_num_batched_tokens and makes vLLM reject longer sequences. Please increase max_num_batched_tokens or " +
	"decrease max_model_len."

// tuneFixtureLogTail is trial 2's server log tail.
const tuneFixtureLogTail = `INFO 12-01 10:14:02 api_server.py:585] vLLM API server version 0.6.3
INFO 12-01 10:14:09 model_runner.py:1072] Loading model weights took 14.9888 GB
ERROR 12-01 10:14:21 engine.py:366] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.02 GiB is free.
ERROR 12-01 10:14:21 engine.py:366] RuntimeError: Engine core initialization failed.
`

// tuneFixtureTrial is one fixture trial: settings, status and (when OK) users and TTFT.
type tuneFixtureTrial struct {
	n, gen            int
	seqs, tokens      float64
	gpu               float64
	users, ttftMs     float64
	method            string
	failClass, reason string
	logTail           string
}

// tuneFixtureTrials are the fixture's ten trials: 0 the baseline (100 users), 2 and 7
// failed, 4 recommended (138 users: +38%), and the front 4, 3, 5.
var tuneFixtureTrials = []tuneFixtureTrial{
	{n: 0, seqs: 16, tokens: 2048, gpu: 0.9, users: 100, ttftMs: 180, method: "measured"},
	{n: 1, seqs: 64, tokens: 4096, gpu: 0.85, users: 128, ttftMs: 265, method: "measured"},
	{n: 2, seqs: 256, tokens: 16384, gpu: 0.95, failClass: rundir.TrialFailNotReady,
		reason: "GET http://127.0.0.1:41234/v1/models did not answer 200 within 5m0s (last: connection refused)", logTail: tuneFixtureLogTail},
	{n: 3, seqs: 32, tokens: 1024, gpu: 0.8, users: 112, ttftMs: 150, method: "measured"},
	{n: 4, gen: 1, seqs: 128, tokens: 8192, gpu: 0.9, users: 138, ttftMs: 260, method: "measured"},
	{n: 5, gen: 1, seqs: 8, tokens: 512, gpu: 0.85, users: 60, ttftMs: 120, method: "interpolated"},
	{n: 6, gen: 1, seqs: 96, tokens: 4096, gpu: 0.95, users: 130, ttftMs: 300, method: "measured"},
	{n: 7, gen: 2, seqs: 200, tokens: 16384, gpu: 0.9, failClass: rundir.TrialFailExited, reason: tuneFixtureLongReason,
		logTail: "INFO starting\nERROR ValueError: max_num_batched_tokens (16384) is smaller than max_model_len (131072).\n"},
	{n: 8, gen: 2, seqs: 48, tokens: 2048, gpu: 0.85, users: 110, ttftMs: 200, method: "measured"},
	{n: 9, gen: 2, seqs: 64, tokens: 8192, gpu: 0.8, users: 120, ttftMs: 270, method: "at_least"},
}

// tuneFixtureStart is when the fixture's search started.
var tuneFixtureStart = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// writeTuneFixture writes a tune directory with rundir's writers: tune.json (the plan
// loaded from tuneFixturePlan), trials.jsonl and tune-result.json.
func writeTuneFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "tune.yaml")
	if err := os.WriteFile(cfg, []byte(tuneFixturePlan), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := plan.Load(cfg, nil)
	if err != nil {
		t.Fatalf("load the fixture plan: %v", err)
	}
	meta := &rundir.TuneMeta{ToolVersion: "v0.9.0", Host: "gpu-box-1", StartedAt: tuneFixtureStart, PlanFile: cfg, Plan: *p}
	if err := rundir.WriteTuneMeta(dir, meta); err != nil {
		t.Fatal(err)
	}
	for _, ft := range tuneFixtureTrials {
		tr := tuneFixtureRecord(ft)
		if err := os.MkdirAll(rundir.TrialDir(dir, tr.Trial), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := rundir.AppendTrial(dir, &tr); err != nil {
			t.Fatal(err)
		}
	}
	res := &rundir.TuneResult{Objectives: p.Tune.Objectives, Trials: 10, OK: 8, Front: []int{4, 3, 5}, Recommended: 4, Baseline: 0,
		GainOverBaseline: 0.38, Answer: tuneFixtureAnswer, Command: tuneFixtureArgv(128, 8192, 0.9), Env: []string{"VLLM_LOGGING_LEVEL=INFO"},
		Stop: "budget_trials", Notes: []string{"Trial 5's capacity is interpolated between two measured steps."}}
	if err := rundir.WriteTuneResult(dir, res); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tuneFixtureArgv is the fixture's launch command for one setting (port 8000).
func tuneFixtureArgv(seqs, tokens, gpu float64) []string {
	return []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000", "--max-num-seqs", tuneParamText(seqs),
		"--max-num-batched-tokens", tuneParamText(tokens), "--gpu-memory-utilization", tuneParamText(gpu)}
}

// tuneFixtureRecord is ft as trials.jsonl holds it.
func tuneFixtureRecord(ft tuneFixtureTrial) rundir.Trial {
	tr := rundir.Trial{Trial: ft.n, Generation: ft.gen, Baseline: ft.n == 0,
		Params:  map[string]any{"max_num_seqs": ft.seqs, "max_num_batched_tokens": ft.tokens, "gpu_memory_utilization": ft.gpu},
		Point:   []float64{ft.seqs, ft.tokens, ft.gpu},
		Command: tuneFixtureArgv(ft.seqs, ft.tokens, ft.gpu), Env: []string{"VLLM_LOGGING_LEVEL=INFO"},
		Status: rundir.TrialOK, ColdStartS: 40 + float64(ft.n), PeakRSSMiB: 2100 + 10*float64(ft.n),
		StartedAt: tuneFixtureStart.Add(time.Duration(ft.n) * 6 * time.Minute), WallS: 300 + float64(ft.n)}
	if ft.failClass != "" {
		tr.Status, tr.FailClass, tr.FailReason, tr.ServerLogTail = rundir.TrialFailed, ft.failClass, ft.reason, ft.logTail
		tr.WallS = 60
		return tr
	}
	tr.Objectives = map[string]float64{plan.TuneUsers: ft.users, plan.TuneTTFTAtTargetMs: ft.ttftMs}
	tr.Capacity, tr.CapacityMethod, tr.RangeLow, tr.RangeHigh = ft.users, ft.method, ft.users, ft.users*1.05
	tr.Bottleneck, tr.SearchSteps, tr.TTFTp95AtTargetMs = "queue", 6, ft.ttftMs
	if ft.n != 8 { // trial 8: no GPU memory found
		tr.GPUMemoryMiB, tr.GPUMemorySource = 70000*ft.gpu, rundir.GPUMemoryNvidiaSMI
	}
	return tr
}

// tuneFixtureObjectives are the objectives of the fixture's plan in dir.
func tuneFixtureObjectives(t *testing.T, dir string) []plan.TuneObjective {
	t.Helper()
	m, err := rundir.ReadTuneMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m.Plan.Tune.Objectives
}
