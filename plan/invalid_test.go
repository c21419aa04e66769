package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Building blocks of small plans for the table tests.
const (
	okSegments = `
segments:
  - name: short
    weight: 1
    prompt_tokens: {dist: fixed, value: 100}
    output_tokens: {dist: fixed, value: 50}
`
	okLadder = `
ladder:
  concurrency: [1, 2]
  duration: 5s
`
)

// writePlan writes yaml into a fresh temp dir and returns the file path.
func writePlan(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadMinimalValid(t *testing.T) {
	p, err := Load(writePlan(t, okSegments+okLadder), nil)
	if err != nil {
		t.Fatalf("minimal plan: %v", err)
	}
	if p.Name != "plan" {
		t.Errorf("Name = %q, want the file's base name %q", p.Name, "plan")
	}
	if got := len(p.Steps()); got != 2 {
		t.Errorf("steps = %d, want 2", got)
	}
}

// TestLoadInvalid checks that each broken plan is rejected with a problem at exactly
// the expected field path, and that the message shows the bad value and what is allowed.
func TestLoadInvalid(t *testing.T) {
	cases := []struct {
		name, yaml string
		path       string // expected FieldError.Path
		contains   string // expected substring of that problem's message
	}{
		{"unknown top-level key", okSegments + okLadder + "ladr: {concurrency: [1]}\n",
			"ladr", `unknown key "ladr"`},
		{"unknown nested key", okSegments + okLadder + "target: {urll: http://x}\n",
			"target.urll", "known keys here are api, api_key_env"},
		{"unknown key in a list element", `
segments:
  - name: a
    weight: 1
    promt_tokens: {dist: fixed, value: 1}
    prompt_tokens: {dist: fixed, value: 1}
    output_tokens: {dist: fixed, value: 1}
` + okLadder, "segments[0].promt_tokens", "unknown key"},
		{"wrong type int", okSegments + okLadder + "target: {simulator: {max_num_seqs: lots}}\n",
			"target.simulator.max_num_seqs", `"lots" is not allowed: must be an integer`},
		{"wrong type in list", okSegments + "ladder: {concurrency: [1, four], duration: 5s}\n",
			"ladder.concurrency[1]", "must be an integer"},
		{"wrong type duration", okSegments + "ladder: {concurrency: [1], duration: soon}\n",
			"ladder.duration", "must be a duration"},
		{"negative mean", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
  - {name: b, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
  - {name: c, weight: 1, prompt_tokens: {dist: normal, mean: -5, stddev: 1}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[2].prompt_tokens.mean", "-5 is not allowed: must be > 0"},
		{"zero concurrency", okSegments + "ladder: {concurrency: [1, 0], duration: 5s}\n",
			"ladder.concurrency[1]", "0 is not allowed: must be > 0"},
		{"tensor_parallel not dividing the heads", okSegments + okLadder + "target: {simulator: {model: llama-3.1-8b, tensor_parallel: 3}}\n",
			"target.simulator.tensor_parallel", "3 is not allowed: must divide model llama-3.1-8b's 32 attention heads (valid: 1, 2, 4, 8, 16 or 32)"},
		{"zero max_num_seqs", okSegments + okLadder + "target: {simulator: {max_num_seqs: 0}}\n",
			"target.simulator.max_num_seqs", "must be > 0"},
		{"weights sum to zero", `
segments:
  - {name: a, weight: 0, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[*].weight", "must sum to a positive number"},
		{"negative weight", `
segments:
  - {name: a, weight: -1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].weight", "must be >= 0"},
		// An explicit empty ladder or window is an error; a missing one gets the
		// defaults (section_defaults_test.go).
		{"empty ladder", okSegments + "ladder: {concurrency: [], duration: 5s}\n",
			"ladder", "must set ladder.concurrency"},
		{"both concurrency and rate", okSegments + "ladder: {concurrency: [1], rate: [2], duration: 5s}\n",
			"ladder.rate", "only one of ladder.concurrency, ladder.rate and ladder.users"},
		{"no window", okSegments + "ladder: {concurrency: [1], duration: 0s}\n",
			"ladder.duration", "ladder.duration and/or ladder.requests"},
		{"unknown distribution", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: zipf, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens.dist", `"zipf" is not allowed: must be one of fixed, uniform`},
		{"missing trace file", `
segments:
  - {name: t, weight: 1, trace: {format: mooncake, file: nowhere.jsonl}}
`, "segments[0].trace.file", "must name an existing file"},
		{"unknown trace format", `
segments:
  - {name: t, weight: 1, trace: {format: parquet, file: plan.yaml}}
`, "segments[0].trace.format", "must be one of mooncake, azure"},
		{"missing empirical file", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: empirical, file: lens.csv, column: x}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens.file", "must name an existing file"},
		{"SLA on an unknown metric", okSegments + okLadder + "sla: {tpot_ms: {p95: 10}}\n",
			"sla.tpot_ms", "known keys here are e2e_ms, goodput, itl_ms, max_error_rate"},
		{"SLA on an unknown statistic", okSegments + okLadder + "sla: {ttft_ms: {p42: 10}}\n",
			"sla.ttft_ms.p42", "must be one of p50, p90, p95, p99, mean"},
		{"SLA threshold zero", okSegments + okLadder + "sla: {itl_ms: {p95: 0}}\n",
			"sla.itl_ms.p95", "must be > 0"},
		{"bad URL", okSegments + okLadder + "target: {url: 'localhost:8000', model: m}\n",
			"target.url", `"localhost:8000" is not allowed: must be an http:// or https:// URL`},
		{"bad metrics URL", okSegments + okLadder + "target: {metrics_urls: ['ftp://x/metrics']}\n",
			"target.metrics_urls[0]", "must be an http:// or https:// URL"},
		{"bad api", okSegments + okLadder + "target: {api: responses}\n",
			"target.api", "must be one of chat, completions"},
		{"unknown arrival", okSegments + "ladder: {rate: [1], arrival: bursty, duration: 5s}\n",
			"ladder.arrival", "must be one of poisson, gamma, constant"},
		{"unknown report format", okSegments + okLadder + "report: {formats: [pdf, docx]}\n",
			"report.formats[1]", `"docx" is not allowed: must be one of pdf, html, xlsx, charts`},
		{"capture launch without launch", okSegments + okLadder + "capture: {enabled: true, mode: launch}\n",
			"capture.mode", "needs target.launch"},
		{"shared prefix longer than a fixed prompt", `
segments:
  - {name: a, weight: 1, shared_prefix_tokens: 1000, prompt_tokens: {dist: fixed, value: 300}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].shared_prefix_tokens", "1000 is not allowed: must be smaller than the fixed prompt_tokens.value, 300: the shared prefix is part of prompt_tokens"},
		{"shared prefix equal to a uniform prompt's min", `
segments:
  - {name: a, weight: 1, shared_prefix_tokens: 100, prompt_tokens: {dist: uniform, min: 100, max: 900}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].shared_prefix_tokens", "must be smaller than prompt_tokens.min, 100"},
		{"shared prefix above an unbounded prompt's mean", `
segments:
  - {name: a, weight: 1, shared_prefix_tokens: 600, prompt_tokens: {dist: lognormal, mean: 500, stddev: 200}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].shared_prefix_tokens", "must be smaller than prompt_tokens.mean (the distribution is unbounded below), 500"},
		{"duplicate segment names", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
  - {name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[1].name", "must be unique"},
		{"reserved segment name", `
segments:
  - {name: mix, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].name", "reserved for the weighted mix"},
		{"error rate above one", okSegments + okLadder + "sla: {max_error_rate: 2}\n",
			"sla.max_error_rate", "between 0 and 1"},
		{"unset API key env", okSegments + okLadder + "target: {api_key_env: LLMCAP_TEST_UNSET_KEY_VAR}\n",
			"target.api_key_env", "must name a set, non-empty environment variable"},
		{"server without model", okSegments + okLadder + "target: {url: 'http://127.0.0.1:8000/v1'}\n",
			"target.model", "must name the served model"},
		{"gamma burstiness zero", okSegments + "ladder: {rate: [1], arrival: gamma, burstiness: 0, duration: 5s}\n",
			"ladder.burstiness", "must be > 0"},
		{"uniform max below min", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: uniform, min: 100, max: 10}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens.max", "must be > 0 and >= min (100)"},
		{"multi-turn zero turns", `
segments:
  - name: a
    weight: 1
    prompt_tokens: {dist: fixed, value: 8}
    output_tokens: {dist: fixed, value: 8}
    multi_turn: {turns: 0}
` + okLadder, "segments[0].multi_turn.turns", "must be > 0"},
		// Non-finite numbers (YAML .nan, .inf) fail at their field, not later in the sweep.
		{"NaN weight", `
segments:
  - {name: a, weight: .nan, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].weight", "NaN is not allowed: must be a finite number"},
		{"infinite weight", `
segments:
  - {name: a, weight: .inf, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].weight", "+Inf is not allowed: must be a finite number"},
		{"NaN mean", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: normal, mean: .nan, stddev: 1}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens.mean", "NaN is not allowed: must be a finite number"},
		{"-Inf mean", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: normal, mean: -.inf, stddev: 1}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens.mean", "-Inf is not allowed: must be a finite number"},
		{"infinite stddev", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: lognormal, mean: 10, stddev: .inf}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens.stddev", "+Inf is not allowed: must be a finite number"},
		{"infinite uniform max", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: uniform, min: 1, max: .inf}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens.max", "+Inf is not allowed: must be a finite number"},
		{"NaN think time", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}, multi_turn: {turns: 2, think_time_s: {dist: fixed, value: .nan}}}
` + okLadder, "segments[0].multi_turn.think_time_s.value", "must be a finite number"},
		{"NaN SLA threshold", okSegments + okLadder + "sla: {ttft_ms: {p95: .nan}}\n",
			"sla.ttft_ms.p95", "NaN is not allowed: must be a finite number"},
		{"NaN error rate", okSegments + okLadder + "sla: {max_error_rate: .nan}\n",
			"sla.max_error_rate", "must be a finite number"},
		{"NaN rate", okSegments + "ladder: {rate: [1, .nan], duration: 5s}\n",
			"ladder.rate[1]", "NaN is not allowed: must be a finite number"},
		{"NaN burstiness", okSegments + "ladder: {rate: [1], arrival: gamma, burstiness: .nan, duration: 5s}\n",
			"ladder.burstiness", "must be a finite number"},
		{"NaN early-stop factor", okSegments + "ladder: {concurrency: [1], duration: 5s, early_stop: {enabled: true, factor: .nan}}\n",
			"ladder.early_stop.factor", "must be a finite number"},
		{"NaN simulator speed-up", okSegments + okLadder + "target: {simulator: {speed_up: .nan}}\n",
			"target.simulator.speed_up", "must be a finite number"},
		{"infinite temperature", okSegments + okLadder + "target: {temperature: .inf}\n",
			"target.temperature", "must be a finite number"},
		{"NaN in extra_body", okSegments + okLadder + "target: {extra_body: {top_p: .nan}}\n",
			"target.extra_body.top_p", "NaN is not allowed: must be a finite number"},
		{"NaN headroom", okSegments + okLadder + "report: {headroom: .nan}\n",
			"report.headroom", "must be a finite number"},
		{"infinite GPU price", okSegments + okLadder + "report: {gpu_hour_usd: .inf}\n",
			"report.gpu_hour_usd", "must be a finite number"},
		// Ports.
		{"port above 65535", okSegments + okLadder + "target: {url: 'http://127.0.0.1:70000/v1', model: m}\n",
			"target.url", "must have a port between 1 and 65535 (not 70000)"},
		{"port 0", okSegments + okLadder + "target: {url: 'http://127.0.0.1:0/v1', model: m}\n",
			"target.url", "must have a port between 1 and 65535 (not 0)"},
		{"metrics port above 65535", okSegments + okLadder + "target: {metrics_urls: ['http://h:99999/metrics']}\n",
			"target.metrics_urls[0]", "must have a port between 1 and 65535"},
		// Wrong types, negative durations, empty or zero-weight segments, bad percentiles.
		{"fractional concurrency", okSegments + "ladder: {concurrency: [2, 1.5], duration: 5s}\n",
			"ladder.concurrency[1]", "1.5 is not allowed: must be an integer"},
		{"fractional turns", `
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}, multi_turn: {turns: 2.5}}
` + okLadder, "segments[0].multi_turn.turns", "must be an integer"},
		{"distribution as a word, not a short form", `
segments:
  - {name: a, weight: 1, prompt_tokens: lots, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[0].prompt_tokens",
			`"lots" is not allowed: the mean must be a whole number of tokens from 1 to 10000000 (want a whole number of tokens (512: fixed), mean±sd`},
		{"SLA threshold as a word", okSegments + okLadder + "sla: {e2e_ms: {p99: fast}}\n",
			"sla.e2e_ms.p99", `"fast" is not allowed: must be a number`},
		{"SLA metric as a number", okSegments + okLadder + "sla: {e2e_ms: 500}\n",
			"sla.e2e_ms", "must be a mapping"},
		{"percentile p100", okSegments + okLadder + "sla: {ttft_ms: {p100: 10}}\n",
			"sla.ttft_ms.p100", "must be one of p50, p90, p95, p99, mean"},
		{"percentile without p", okSegments + okLadder + "sla: {ttft_ms: {95: 10}}\n",
			"sla.ttft_ms.95", "must be one of p50, p90, p95, p99, mean"},
		{"negative SLA threshold", okSegments + okLadder + "sla: {e2e_ms: {p99: -3}}\n",
			"sla.e2e_ms.p99", "-3 is not allowed: must be > 0 (ms)"},
		{"negative error rate", okSegments + okLadder + "sla: {max_error_rate: -0.1}\n",
			"sla.max_error_rate", "must be between 0 and 1"},
		{"negative duration", okSegments + "ladder: {concurrency: [1], duration: -5s}\n",
			"ladder.duration", "-5s is not allowed: must be >= 0"},
		{"negative warm-up", okSegments + "ladder: {concurrency: [1], duration: 5s, warmup: {duration: -1s}}\n",
			"ladder.warmup.duration", "must be >= 0"},
		{"negative grace", okSegments + "ladder: {concurrency: [1], duration: 5s, grace: -1s}\n",
			"ladder.grace", "must be >= 0"},
		{"duration without unit", okSegments + "ladder: {concurrency: [1], duration: 5}\n",
			"ladder.duration", `5 has no unit: write e.g. "5s"`},
		{"empty segment list", "segments: []\n" + okLadder, "segments", "must list at least one segment"},
		{"segment without distributions", "segments:\n  - {name: a, weight: 1}\n" + okLadder,
			"segments[0].prompt_tokens.dist", "must be one of fixed, uniform, normal, lognormal, empirical"},
		{"segment without a name", "segments:\n  - {weight: 1, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}\n" + okLadder,
			"segments[0].name", "must be letters, digits"},
		{"two zero weights", `
segments:
  - {name: a, weight: 0, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
  - {name: b, weight: 0, prompt_tokens: {dist: fixed, value: 8}, output_tokens: {dist: fixed, value: 8}}
` + okLadder, "segments[*].weight", "a sum of 0 is not allowed: weights must sum to a positive number"},
		{"repeated users level", okSegments + "ladder: {users: [5, 5], duration: 5s}\nsla: {think_time: 1s}\n",
			"ladder.users[1]", "must not repeat ladder.users[0]"},
		{"seed as a word", "seed: x\n" + okSegments + okLadder, "seed", `"x" is not allowed: must be an integer`},
	}
	if len(cases) < 15 {
		t.Fatalf("only %d invalid cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writePlan(t, tc.yaml)
			_, err := Load(path, nil)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Load: got %v, want a *ValidationError", err)
			}
			for _, p := range ve.Problems {
				if p.Path == tc.path {
					if !strings.Contains(p.Error(), tc.contains) {
						t.Errorf("problem %q lacks %q", p.Error(), tc.contains)
					}
					if !strings.HasPrefix(p.Error(), tc.path+": ") {
						t.Errorf("problem %q does not start with its path", p.Error())
					}
					return
				}
			}
			t.Errorf("no problem at %q; got:\n%v", tc.path, err)
		})
	}
}

// TestLoadReportsEveryProblem checks that several problems are reported together, and
// that a wrongly typed field is not reported a second time by validation.
func TestLoadReportsEveryProblem(t *testing.T) {
	yaml := `
target: {api: grpc, simulator: {max_num_seqs: many}}
segments:
  - {name: a, weight: 1, prompt_tokens: {dist: fixed, value: -1}, output_tokens: {dist: fixed, value: 8}}
ladder: {concurrency: [0], duration: 5s}
report: {formats: [docx]}
`
	_, err := Load(writePlan(t, yaml), nil)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Load: %v", err)
	}
	want := []string{"target.api", "target.simulator.max_num_seqs", "segments[0].prompt_tokens.value",
		"ladder.concurrency[0]", "report.formats[0]"}
	for _, w := range want {
		if !ve.Has(w) {
			t.Errorf("missing problem at %s in:\n%v", w, err)
		}
	}
	if len(ve.Problems) != len(want) {
		t.Errorf("got %d problems, want %d:\n%v", len(ve.Problems), len(want), err)
	}
	if !strings.Contains(err.Error(), "5 problems") {
		t.Errorf("error header does not count the problems: %q", err.Error())
	}
}

func TestLoadSyntaxErrorCarriesLine(t *testing.T) {
	yaml := "name: x\ntarget:\n  url: simulator\n   api: chat\nladder: [\n"
	_, err := Load(writePlan(t, yaml), nil)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("Load: got %T %v, want *SyntaxError", err, err)
	}
	if se.Line != 4 {
		t.Errorf("Line = %d, want 4 (%v)", se.Line, err)
	}
	if !strings.Contains(err.Error(), "plan.yaml:4:") {
		t.Errorf("message %q lacks file:line", err.Error())
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "absent.yaml"), nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load: got %v, want a not-exist error", err)
	}
}

// TestLoadInvalidTrace: a trace file that exists but cannot be replayed (empty, not its
// format, no row in the window, timestamps or a time-scaled span that overflow, token
// counts out of range) is a problem at segments[i].trace.file naming the format ("a
// Mooncake", "an Azure") and the reason alone, every row by its 1-based file line, not
// a warning after which the plan is accepted.
func TestLoadInvalidTrace(t *testing.T) {
	mooncake := func(ts ...string) string {
		var b strings.Builder
		for _, s := range ts {
			b.WriteString(`{"timestamp": ` + s + `, "input_length": 100, "output_length": 10}` + "\n")
		}
		return b.String()
	}
	cases := []struct {
		name, format, data, extra string
		contains                  string
	}{
		{"empty file", "mooncake", "", "", "no rows in window start_row=0 rows=0"},
		{"not JSON lines", "mooncake", "{not json\n", "", "line 1: invalid character"},
		{"window past the end", "mooncake", mooncake("0", "10"), ", start_row: 5", "no rows in window start_row=5 rows=0"},
		{"timestamp overflows", "mooncake", mooncake("0", "1e14"), "", "line 2: timestamp 1e+14 ms is out of range (must be >= 0 and < 4.612e+12 ms)"},
		{"negative timestamp", "mooncake", mooncake("-5", "0"), "", "line 1: timestamp -5 ms is out of range"},
		{"time-scaled span overflows", "mooncake", mooncake("0", "4e12"), ", time_scale: 10",
			"line 2 comes 1.27e+03 years after the window's first row once scaled by time_scale 10"},
		{"negative tokens after a blank line", "mooncake", "\n" + `{"timestamp": 0, "input_length": -10, "output_length": 5}` + "\n", "",
			"line 2: negative token count (prompt -10, output 5)"},
		{"tokens past the cap", "mooncake", `{"timestamp": 0, "input_length": 20000000, "output_length": 5}` + "\n", "",
			"line 1: token count above 10000000 (prompt 20000000, output 5)"},
		{"azure header only", "azure", "TIMESTAMP,ContextTokens,GeneratedTokens\n", "", "no rows in window start_row=0 rows=0 (the file has 0 data rows"},
		{"azure year 2300", "azure", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,10,5\n2300-01-01 00:00:00.0000000,10,5\n", "",
			"line 3: TIMESTAMP 2300-01-01 00:00:00.0000000 is out of range"},
		{"azure bad timestamp", "azure", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,10,5\n9999-99-99 99:99:99,1,1\n", "",
			`line 3: TIMESTAMP: parsing time "9999-99-99 99:99:99"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writePlan(t, "segments:\n  - {name: t, weight: 1, trace: {format: "+tc.format+", file: trace.data"+tc.extra+"}}\n")
			if err := os.WriteFile(filepath.Join(filepath.Dir(path), "trace.data"), []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path, nil)
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) != 1 {
				t.Fatalf("Load: got %v, want one problem", err)
			}
			p := ve.Problems[0]
			want := map[string]string{"mooncake": "must be a Mooncake trace: ", "azure": "must be an Azure trace: "}[tc.format] + tc.contains
			if p.Path != "segments[0].trace.file" || !strings.Contains(p.Error(), want) {
				t.Errorf("problem %q, want one at segments[0].trace.file saying %q", p.Error(), want)
			}
			for _, not := range []string{"at least one row in the window", "trace " + filepath.Join(filepath.Dir(path), "trace.data") + ":", "row 0", "row 1:"} {
				if strings.Contains(p.Error(), not) {
					t.Errorf("problem %q says %q (a prefix unrelated to the reason, the file twice, or a 0-based row)", p.Error(), not)
				}
			}
		})
	}
}
