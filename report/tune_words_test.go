package report

import (
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// TestTuneGainWords: the gain line states the percentage over the baseline, or why
// there is none (no baseline, a failed baseline, nothing measured, the baseline best).
func TestTuneGainWords(t *testing.T) {
	dir := writeTuneFixture(t)
	cases := []struct {
		name        string
		baseline    int
		recommended int
		gain        float64
		want        string
	}{
		{"measured", 0, 4, 0.38, "+38% users over the starting configuration"},
		{"small", 0, 4, 0.052, "+5.2% users over the starting configuration"},
		{"baseline best", 0, 0, 0, "+0%: the starting configuration is already the best found"},
		{"baseline failed", 2, 4, 0, "no gain to state: the starting configuration (trial 2) failed"},
		{"nothing measured", 0, -1, 0, "no gain to state: no trial measured its configuration"},
	}
	for _, c := range cases {
		in, err := readTuneInput(dir)
		if err != nil {
			t.Fatal(err)
		}
		in.result.Baseline, in.result.Recommended, in.result.GainOverBaseline = c.baseline, c.recommended, c.gain
		if got := tuneGainText(in); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	in, _ := readTuneInput(dir)
	in.result.Baseline = -1
	for i := range in.trials {
		in.trials[i].Baseline = false
	}
	if got, want := tuneGainText(in), "no gain to state: the starting configuration (tune.baseline) was not measured"; got != want {
		t.Errorf("baseline not measured: %q, want %q", got, want)
	}
	in.tune.Baseline = nil
	if got, want := tuneGainText(in), "no gain to state: the search had no starting configuration (tune.baseline)"; got != want {
		t.Errorf("no baseline: %q, want %q", got, want)
	}
	in.meta.Plan.Ladder.Search.Over = plan.SearchConcurrency
	in.result.Baseline, in.result.Recommended, in.result.GainOverBaseline = 0, 4, 0.5
	if got, want := tuneGainText(in), "+50% concurrency within the SLA over the starting configuration"; got != want {
		t.Errorf("concurrency ladder: %q, want %q", got, want)
	}
}

// TestTuneCommandShellQuoted: the command line quotes what the shell would read
// (spaces, quotes, $, braces) and leaves plain words and KEY=VALUE assignments as they are.
func TestTuneCommandShellQuoted(t *testing.T) {
	got := tuneCommandText([]string{"ollama", "serve", "--note", "it's $HOME", "{port}"}, []string{"OLLAMA_NUM_PARALLEL=4", "OLLAMA_HOST=127.0.0.1:8000", "X=a b"})
	want := `OLLAMA_NUM_PARALLEL=4 OLLAMA_HOST=127.0.0.1:8000 X='a b' ollama serve --note 'it'\''s $HOME' {port}`
	if got != want {
		t.Errorf("command line\n%s\nwant\n%s", got, want)
	}
	if got := tuneCommandText(nil, []string{"A=1"}); got != tuneNone {
		t.Errorf("no argv: %q", got)
	}
}

// TestTuneMetricUnits: every tune metric's header carries its unit.
func TestTuneMetricUnits(t *testing.T) {
	dir := writeTuneFixture(t)
	in, err := readTuneInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		plan.TuneUsers:          "users within the SLA (users)",
		plan.TuneConcurrency:    "concurrency within the SLA (concurrency)",
		plan.TuneCostPerUser:    "cost per user ($ / user / month)",
		plan.TunePeakRSSMiB:     "server peak RSS (MiB)",
		plan.TuneGPUMemoryMiB:   "GPU memory in use (MiB)",
		plan.TuneTTFTAtTargetMs: "TTFT p95 at 32 users (ms)",
	}
	for _, m := range plan.TuneMetrics {
		if got := tuneMetricHeader(in, m); got != want[m] {
			t.Errorf("%s: %q, want %q", m, got, want[m])
		}
	}
	if got := tuneMetricText(plan.TuneCostPerUser, 1.25); got != "$1.25" {
		t.Errorf("cost: %q", got)
	}
	if got := tuneMetricText(plan.TuneTTFTAtTargetMs, 412); got != "412 ms" {
		t.Errorf("ttft: %q", got)
	}
}

// TestTuneMonoLinesWrap: a long command wraps at spaces into lines that fit the box,
// each but the last ending in a shell continuation, and a word longer than a line is
// cut; joined again, the lines are the command.
func TestTuneMonoLinesWrap(t *testing.T) {
	long := "vllm serve /models/meta-llama/Llama-3.1-8B-Instruct --port 8000 --max-num-seqs 128 " +
		"--max-num-batched-tokens 8192 --gpu-memory-utilization 0.9 --served-model-name llama --enable-prefix-caching"
	width := monoChars(pdfMonoSize)
	lines := tuneMonoLines(long, pdfMonoSize)
	if len(lines) < 2 {
		t.Fatalf("%d lines for %d characters at %d a line", len(lines), len(long), width)
	}
	joined := ""
	for i, l := range lines {
		if len([]rune(l)) > width {
			t.Errorf("line %d is %d characters, over %d: %q", i, len([]rune(l)), width, l)
		}
		if i < len(lines)-1 {
			if l[len(l)-2:] != ` \` {
				t.Errorf("line %d does not end in a continuation: %q", i, l)
			}
			l = l[:len(l)-2]
		}
		if i > 0 {
			l = " " + l[2:]
		}
		joined += l
	}
	if joined != long {
		t.Errorf("joined lines\n%s\nwant\n%s", joined, long)
	}
}
