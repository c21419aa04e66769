package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestAllConfigsValidate loads every plan in configs/ (the shipped examples must stay
// valid). configs/catalog.yaml is the simulator's GPU/model catalog, not a plan.
func TestAllConfigsValidate(t *testing.T) {
	files, err := filepath.Glob("../configs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs found: %v", err)
	}
	for _, f := range files {
		if filepath.Base(f) == "catalog.yaml" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := Load(f, nil)
			if err != nil {
				t.Fatalf("%v", err)
			}
			if len(p.Steps()) == 0 {
				t.Errorf("no steps")
			}
		})
	}
}

func TestDemoPlan(t *testing.T) {
	p, err := Load("../configs/demo.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Ladder.Search
	if !p.Target.IsSimulator() || s == nil || s.Over != SearchUsers || p.SLA.ThinkTime != 10*time.Second ||
		s.Max <= float64(p.Target.Simulator.MaxNumSeqs) {
		t.Fatalf("demo: simulator %v, search %+v, think time %v: want a search over users with think time reaching past max_num_seqs %d",
			p.Target.IsSimulator(), s, p.SLA.ThinkTime, p.Target.Simulator.MaxNumSeqs)
	}
	var weights []float64
	for _, s := range p.Segments {
		weights = append(weights, s.Weight)
	}
	if !reflect.DeepEqual(weights, []float64{70, 20, 10}) {
		t.Errorf("weights = %v, want 70/20/10", weights)
	}
	steps := p.Steps()
	n, total := p.SearchEstimate()
	l := p.Ladder // each step: at most its warm-up, window, whole grace and the overhead allowance
	perStep := l.Warmup.Duration + l.Duration + l.Grace + l.Cooldown + StepOverhead
	if total != time.Duration(s.MaxSteps)*perStep || n != s.MaxSteps || total <= time.Minute || total > 4*time.Minute {
		t.Errorf("demo bound %v over %d steps, want %d × %v (between 1 and 4 minutes)", total, n, s.MaxSteps, perStep)
	}
	if len(steps) != 1 || steps[0].Segment != MixSegment || steps[0].Users != int(s.Start) {
		t.Errorf("opening steps %+v, want the mix's search at %g users", steps, s.Start)
	}
}

// TestDefaults checks that Load on a minimal file fills exactly what Default has.
func TestDefaults(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+okLadder), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if !reflect.DeepEqual(p.Target.Simulator, d.Target.Simulator) {
		t.Errorf("simulator defaults:\n got %+v\nwant %+v", p.Target.Simulator, d.Target.Simulator)
	}
	if p.Target.URL != TargetSimulator || p.Target.API != "chat" || p.Target.MetricsInterval != time.Second {
		t.Errorf("target defaults: %+v", p.Target)
	}
	if p.Target.Model != "llama-3.1-8b" {
		t.Errorf("target.model = %q, want the simulator's model", p.Target.Model)
	}
	if p.SLA.MaxErrorRate != 0.01 || p.Report.Headroom != 0.2 || len(p.Report.Formats) != len(ReportFormats) {
		t.Errorf("sla/report defaults: %+v %+v", p.SLA, p.Report)
	}
	if p.Ladder.Arrival != ArrivalPoisson || p.Ladder.PerSegment == nil || !*p.Ladder.PerSegment ||
		p.Ladder.EarlyStop != d.Ladder.EarlyStop || d.Ladder.EarlyStop.Factor != 2 {
		t.Errorf("ladder defaults: %+v", p.Ladder)
	}
	for k := range defaultValues() { // every default reaches Default()
		q := &Plan{}
		setDefault(q, k, defaultValues()[k])
		if reflect.DeepEqual(q, &Plan{}) {
			t.Errorf("setDefault ignores %q", k)
		}
	}
}

func TestDerivedDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yaml := `
target:
  url: http://127.0.0.1:9/v1
  model: m
  launch: {command: [server, --port, "9"]}
segments:
  - {name: t, weight: 1, trace: {format: mooncake, file: t.jsonl}}
`
	path := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := p.Segments[0].Trace
	if tr.TimeScale != 1 || tr.PromptScale != 1 || tr.OutputScale != 1 {
		t.Errorf("trace scales = %+v, want 1", tr)
	}
	if tr.File != filepath.Join(dir, "t.jsonl") {
		t.Errorf("trace file = %q, want it resolved against the config dir", tr.File)
	}
	if p.Target.Launch.ReadyTimeout != DefaultReadyTimeout {
		t.Errorf("ready_timeout = %v", p.Target.Launch.ReadyTimeout)
	}
	if s := p.Steps(); len(s) != 1 || s[0].Schedule != ScheduleTrace {
		t.Errorf("steps = %+v, want one trace step", s)
	}
}

// TestPrecedence checks flags (overrides) > environment > file > defaults.
func TestPrecedence(t *testing.T) {
	path := writePlan(t, okSegments+okLadder+"target: {simulator: {max_num_seqs: 64, block_size: 32}}\n")
	t.Setenv("LLMCAP_TARGET_SIMULATOR_MAX_NUM_SEQS", "128")
	t.Setenv("LLMCAP_TARGET_SIMULATOR_GPU", "A100-80GB")
	t.Setenv("LLMCAP_LADDER_CONCURRENCY", "4,8")
	p, err := Load(path, map[string]any{"target.simulator.gpu": "L40S", "ladder.duration": "9s"})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Target.Simulator
	if s.MaxNumSeqs != 128 {
		t.Errorf("max_num_seqs = %d, want 128 from the environment over 64 from the file", s.MaxNumSeqs)
	}
	if s.GPU != "L40S" {
		t.Errorf("gpu = %q, want L40S from the override over the environment", s.GPU)
	}
	if s.BlockSize != 32 || s.MaxNumBatchedTokens != 8192 {
		t.Errorf("block_size %d (file) / max_num_batched_tokens %d (default)", s.BlockSize, s.MaxNumBatchedTokens)
	}
	if !reflect.DeepEqual(p.Ladder.Concurrency, []int{4, 8}) || p.Ladder.Duration != 9*time.Second {
		t.Errorf("ladder = %v %v", p.Ladder.Concurrency, p.Ladder.Duration)
	}
}

// TestAPIKeyNeverLeaks resolves a key from the environment and from a file, then checks
// it is absent from JSON, Redacted, logs of the plan, and validation errors.
func TestAPIKeyNeverLeaks(t *testing.T) {
	const key = "sk-test-7b1e0c5f2a9d"
	const other = "pw-5c3a1f" // a password in a URL and a token in the launch env
	t.Setenv("LLMCAP_TEST_KEY", key)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.txt")
	if err := os.WriteFile(keyFile, []byte(key+"\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"api_key_env: LLMCAP_TEST_KEY", "api_key_file: key.txt"} {
		yaml := fmt.Sprintf("target:\n  url: http://user:%s@127.0.0.1:9/v1\n  model: m\n  %s\n"+
			"  launch: {command: [srv], env: [HF_TOKEN=%s, PORT=9]}\n", other, src, other) + okSegments + okLadder
		path := filepath.Join(dir, "p.yaml")
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := Load(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Target.APIKey != key {
			t.Fatalf("%s: APIKey not resolved", src)
		}
		full, _ := json.Marshal(p)
		if strings.Contains(string(full), key) {
			t.Errorf("%s: the API key is serialised: %s", src, full)
		}
		var out bytes.Buffer
		red, _ := json.Marshal(p.Redacted())
		out.Write(red)
		slog.New(slog.NewTextHandler(&out, nil)).Info("plan", "plan", p.Redacted())
		slog.New(slog.NewJSONHandler(&out, nil)).Info("plan", "plan", p.Redacted())
		if strings.Contains(out.String(), key) || strings.Contains(out.String(), other) {
			t.Errorf("%s: a secret leaked into redacted outputs:\n%s", src, out.String())
		}
		if p.Target.APIKey != key || !strings.Contains(p.Target.Launch.Env[0], other) {
			t.Errorf("Redacted modified the original plan")
		}
		if !strings.Contains(string(red), "HF_TOKEN=REDACTED") || !strings.Contains(string(red), "PORT=9") {
			t.Errorf("launch env not redacted as expected: %s", red)
		}
	}
	// A broken plan's errors must not echo secrets either.
	bad := fmt.Sprintf("target: {url: 'http://u:%s@', api: x, api_key_env: LLMCAP_TEST_KEY}\n", other)
	_, err := Load(writePlan(t, bad), nil)
	if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), other) {
		t.Errorf("error leaks a secret or is nil: %v", err)
	}
}

func TestConstraintsSorted(t *testing.T) {
	yaml := okSegments + okLadder + "sla: {e2e_ms: {mean: 9000}, itl_ms: {p99: 80, p50: 20}, ttft_ms: {p95: 500}}\n"
	p, err := Load(writePlan(t, yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Constraint{{"ttft", "p95", 500}, {"itl", "p50", 20}, {"itl", "p99", 80}, {"e2e", "mean", 9000}}
	for i := 0; i < 5; i++ { // map order must not leak
		if got := p.Constraints(); !reflect.DeepEqual(got, want) {
			t.Fatalf("Constraints = %v, want %v", got, want)
		}
	}
}

func TestValidateInCode(t *testing.T) {
	p := Default()
	err := p.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) || !ve.Has("segments") || !ve.Has("ladder") {
		t.Fatalf("Validate on an empty plan: %v", err)
	}
	p.Segments = []Segment{{Name: "a", Weight: 1, PromptTokens: Dist{Kind: DistFixed, Value: 10},
		OutputTokens: Dist{Kind: DistFixed, Value: 10}}}
	p.Ladder.Rate = []float64{1}
	p.Ladder.Requests = 10
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate on a completed default plan: %v", err)
	}
}
