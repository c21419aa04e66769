package plan

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// loadSet loads the small ok plan with --set overrides (each "key=value", parsed as
// the CLI parses them) and returns its problems ("" when it is valid).
func loadSet(t *testing.T, sets ...string) (*Plan, string) {
	t.Helper()
	ov := map[string]any{}
	for _, kv := range sets {
		k, v, err := ParseSet(kv)
		if err != nil {
			t.Fatal(err)
		}
		ov[k] = v
	}
	p, err := Load(writePlan(t, okSegments+okLadder+"sla: {ttft_ms: {p95: 500}}\n"), ov)
	if err == nil {
		return p, ""
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Load: %v, want a *ValidationError", err)
	}
	return nil, err.Error()
}

// TestLoadLimits: a token count, load level, request count or duration past its limit
// is a problem naming the field, the value as written and the limit — never a value
// that wraps (a negative estimate, a 1-token prompt, a sweep without end).
func TestLoadLimits(t *testing.T) {
	cases := []struct {
		name string
		sets []string
		want string
	}{
		{"prompt 1e18", []string{"segments[0].prompt_tokens.value=1e18"},
			"segments[0].prompt_tokens.value: 1e+18 is not allowed: must be <= 10000000 (tokens per request"},
		{"prompt 1e30", []string{"segments[0].prompt_tokens.value=1e30"}, "segments[0].prompt_tokens.value: 1e+30 is not allowed: must be <= 10000000"},
		{"output 1e19", []string{"segments[0].output_tokens.value=1e19"}, "segments[0].output_tokens.value: 1e+19 is not allowed: must be <= 10000000"},
		{"uniform max", []string{"segments[0].prompt_tokens={dist: uniform, min: 1, max: 1e12}"}, "segments[0].prompt_tokens.max: 1e+12 is not allowed: must be <= 10000000"},
		{"normal mean", []string{"segments[0].output_tokens={dist: normal, mean: 1e9, stddev: 1}"}, "segments[0].output_tokens.mean: 1e+09 is not allowed: must be <= 10000000"},
		{"lognormal stddev", []string{"segments[0].output_tokens={dist: lognormal, mean: 10, stddev: 1e300}"}, "segments[0].output_tokens.stddev: 1e+300 is not allowed"},
		{"think time seconds", []string{"segments[0].multi_turn={turns: 2, think_time_s: {dist: fixed, value: 1e12}}"},
			"segments[0].multi_turn.think_time_s.value: 1e+12 is not allowed: must be <= 2592000 (seconds; 30 days)"},
		{"turns", []string{"segments[0].multi_turn={turns: 1000000000}"}, "segments[0].multi_turn.turns: 1000000000 is not allowed: must be <= 10000"},
		{"shared prefix", []string{"segments[0].shared_prefix_tokens=100000000"}, "segments[0].shared_prefix_tokens: 100000000 is not allowed: must be <= 10000000"},
		{"prompt past the simulator's context", []string{"segments[0].prompt_tokens.value=200000"},
			"segments[0].prompt_tokens: fixed(200000) is not allowed: cannot fit: the smallest prompt (200000 tokens) plus the smallest output (50 tokens) exceed the simulator's model llama-3.1-8b's context length, max_model_len 131072"},
		{"concurrency max int64", []string{"ladder.concurrency=[9223372036854775807]"},
			"ladder.concurrency[0]: 9223372036854775807 is not allowed: must be <= 1000000 (requests in flight"},
		{"concurrency 2^62", []string{"ladder.concurrency=[4611686018427387904]"}, "ladder.concurrency[0]: 4611686018427387904 is not allowed: must be <= 1000000"},
		{"concurrency past int64, as typed", []string{"ladder.concurrency=[9223372036854775808]"},
			"ladder.concurrency[0]: 9223372036854775808 is not allowed: must be an integer far below 9223372036854775807"},
		{"concurrency 1e30, as typed", []string{"ladder.concurrency=[1e30]"}, "ladder.concurrency[0]: 1e+30 is not allowed: must be an integer far below"},
		{"rate 1e300", []string{"ladder.concurrency=[]", "ladder.rate=[1e300]"}, "ladder.rate[0]: 1e+300 is not allowed: must be <= 1000000 (req/s)"},
		{"users", []string{"ladder.concurrency=[]", "ladder.users=[2000000]", "sla.think_time=1s"}, "ladder.users[0]: 2000000 is not allowed: must be <= 1000000"},
		{"max_concurrency", []string{"ladder.max_concurrency=9000000000"}, "ladder.max_concurrency: 9000000000 is not allowed: must be <= 1000000"},
		{"requests", []string{"ladder.requests=1000000000000"}, "ladder.requests: 1000000000000 is not allowed: must be <= 100000000"},
		{"warm-up requests", []string{"ladder.warmup.requests=1000000000000"}, "ladder.warmup.requests: 1000000000000 is not allowed: must be <= 100000000"},
		{"search max", []string{"ladder.concurrency=[]", "ladder.search={over: concurrency, max: 1e12}"}, "ladder.search.max: 1e+12 is not allowed: must be <= 1000000"},
		{"search max rate", []string{"ladder.concurrency=[]", "ladder.search={over: rate, max: 1e300}"}, "ladder.search.max: 1e+300 is not allowed: must be <= 1000000 (req/s)"},
		{"search max_steps", []string{"ladder.concurrency=[]", "ladder.search={max_steps: 1000000000}"}, "ladder.search.max_steps: 1000000000 is not allowed: must be <= 1000"},
		{"duration", []string{"ladder.duration=2000000h"}, "ladder.duration: 2000000h0m0s is not allowed: must be <= 720h0m0s (30 days)"},
		{"cooldown", []string{"ladder.cooldown=1000000h"}, "ladder.cooldown: 1000000h0m0s is not allowed: must be <= 720h0m0s"},
		{"capture step rate", []string{"capture={enabled: true, mode: session, session_name: s, steps: [{segment: short, rate: 1e300}]}"},
			"capture.steps[0].rate: 1e+300 is not allowed: must be <= 1000000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, msg := loadSet(t, tc.sets...)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("problems:\n%s\nwant one saying %q", msg, tc.want)
			}
		})
	}
}

// TestLoadAtTheLimits: the limits themselves are allowed, and the estimates of such a
// plan stay positive (no wrap) however large.
func TestLoadAtTheLimits(t *testing.T) {
	p, msg := loadSet(t, "target.simulator.model=llama-3.1-8b", "segments[0].prompt_tokens.value=100000",
		"segments[0].output_tokens.value=31072", "ladder.concurrency=[1000000]", "ladder.requests=100000000",
		"ladder.warmup.requests=100000000", "ladder.duration=0s", "ladder.grace=720h", "ladder.cooldown=720h")
	if msg != "" {
		t.Fatalf("a plan at the limits: %s", msg)
	}
	for _, s := range p.Steps() {
		if s.Estimated <= 0 || s.Timeout <= 0 {
			t.Errorf("step %d: estimate %v, timeout %v: want positive (saturated, not wrapped)", s.Index, s.Estimated, s.Timeout)
		}
	}
	one := p.Steps()[0]
	one.Concurrency = 1 // 1e8 requests one at a time, each ~10 min: past 292 years
	if got := p.EstimateStep(one); got != math.MaxInt64 {
		t.Errorf("EstimateStep of 1e8 sequential 10-minute requests = %v, want the saturated %v", got, time.Duration(math.MaxInt64))
	}
	if got := TotalEstimate([]Step{{Estimated: math.MaxInt64}, {Estimated: time.Hour}}); got != math.MaxInt64 {
		t.Errorf("TotalEstimate = %v, want saturation at %v", got, time.Duration(math.MaxInt64))
	}
}
