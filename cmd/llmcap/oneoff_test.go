package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// startSim starts `llmcap serve-sim` on a free loopback port (sped up 10×) and returns
// its base URL; the server stops with the test.
func startSim(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(bin, "serve-sim", "--addr", "127.0.0.1:0", "--speed-up", "10")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/v1)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("serve-sim banner %q: %v", line, err)
	}
	return m[1]
}

// TestOneOffRunFromFlags is the acceptance run: no plan file, the target, ladder, window
// and SLA from flags, the rest from the defaults; it produces the whole run directory
// and the reports, and says what it assumed.
func TestOneOffRunFromFlags(t *testing.T) {
	url := startSim(t)
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "run", "--url", url, "--model", "llama-3.1-8b", "--concurrency", "1,2,4", "--duration", "5s",
		"--goodput", "time_to_first_token:500", "-o", dir)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	block := "no plan file: defaults for what the flags leave out (--print-plan writes the whole plan, a file to start from):\n" +
		`  segments: one segment "default", prompt 512 tokens, output 128 tokens (max_tokens)` + "\n" +
		"  ladder.warmup: 5s per step, left out of the statistics\n" +
		"  ladder.grace: 30s for the requests in flight at the window's end to finish (they count)\n"
	if !strings.HasPrefix(r.stderr, block) {
		t.Errorf("stderr does not start with the assumed defaults (and only those the flags leave out):\n%s", r.stderr)
	}
	for _, f := range []string{"run.json", "records.jsonl", "steps.jsonl", "server-metrics.jsonl", "analysis.json",
		"report.pdf", "report.html", "report.xlsx", "report.json", "summary.md", "steps.csv", "charts"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	meta, err := rundir.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := meta.Plan
	if p.Name != "llama-3.1-8b" || p.Target.URL != url || len(p.Segments) != 1 || p.Segments[0].Name != "default" ||
		!reflect.DeepEqual(p.Ladder.Concurrency, []int{1, 2, 4}) || p.Ladder.Search != nil || p.Ladder.Duration != 5*time.Second {
		t.Errorf("stored plan: name %q, url %q, segments %+v, ladder %+v", p.Name, p.Target.URL, p.Segments, p.Ladder)
	}
	// --goodput is the SLA: TTFT p95 ≤ 500 ms alone, no default ITL bound.
	if got := p.Constraints(); !reflect.DeepEqual(got, []plan.Constraint{{Metric: "ttft", Stat: "p95", ThresholdMs: 500}}) {
		t.Errorf("SLA %v, want TTFT p95 500 from --goodput alone", got)
	}
	steps, _ := os.ReadFile(filepath.Join(dir, "steps.jsonl"))
	if n := strings.Count(string(steps), "\n"); n != 3 {
		t.Errorf("steps.jsonl has %d steps, want 3", n)
	}
	if !strings.Contains(r.stdout, "Segment default") || !strings.Contains(r.stdout, "outputs in "+dir) {
		t.Errorf("no summary of segment default:\n%s", r.stdout)
	}
}

// planJSON runs `llmcap plan --json` with args and returns the resolved plan.
func planJSON(t *testing.T, env []string, args ...string) planOutput {
	t.Helper()
	r := llmcap(t, env, append([]string{"plan", "--json"}, args...)...)
	var out planOutput
	if err := json.Unmarshal([]byte(r.rawStdout), &out); r.code != 0 || err != nil {
		t.Fatalf("plan %v: exit %d, %v\n%s", args, r.code, err, r.stderr)
	}
	return out
}

// TestPrintPlanRoundTrip: --print-plan writes YAML (the API key masked, never its
// value), exits 0 without running, and loads back with -c to the same plan, steps and
// estimate; printed again it is the same text.
func TestPrintPlanRoundTrip(t *testing.T) {
	const key = "sk-print-plan-4b1e9c"
	env := []string{"LLMCAP_PRINT_TEST_KEY=" + key}
	for _, args := range [][]string{
		{"--url", "http://127.0.0.1:9/v1", "--model", "stories:latest"},
		{"--url", "http://127.0.0.1:9/v1", "--model", "m", "--isl", "512±64", "--osl", "100+-10", "--request-rate", "1,2",
			"--burstiness", "0.5", "--warmup", "10", "--endpoint-type", "completions", "--api-key-env", "LLMCAP_PRINT_TEST_KEY",
			"--goodput", "time_to_first_token:300 inter_token_latency:40 request_latency:9000"},
		{"-c", "configs/demo.yaml", "--duration", "4s"},
	} {
		r := llmcap(t, env, append([]string{"run", "--print-plan"}, args...)...)
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, key) || strings.Contains(r.stderr, "sweep starting") {
			t.Fatalf("run --print-plan %v: exit %d (or the key leaked, or it ran)\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
		file := filepath.Join(t.TempDir(), "printed.yaml")
		if err := os.WriteFile(file, []byte(r.rawStdout), 0o600); err != nil {
			t.Fatal(err)
		}
		want, got := planJSON(t, env, args...), planJSON(t, env, "-c", file)
		want.Plan.Name, got.Plan.Name = "", "" // the printed file gives the name; compare the rest
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: the printed plan loads back differently:\nwant %+v\ngot  %+v", args, want, got)
		}
		again := llmcap(t, env, "plan", "--print-plan", "-c", file)
		if body(again.stdout) != body(r.stdout) {
			t.Errorf("%v: printed twice differs:\n%s\n---\n%s", args, r.stdout, again.stdout)
		}
	}
}

// body is printed YAML without its comment lines.
func body(yaml string) string {
	var keep []string
	for _, l := range strings.Split(yaml, "\n") {
		if !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestFlagsCombineWithPlanFile: a flag wins over the file's key, the file's other keys
// stay, and a file that gives every section assumes nothing.
func TestFlagsCombineWithPlanFile(t *testing.T) {
	out := planJSON(t, nil, "-c", "configs/ollama-stories.yaml", "--duration", "3s", "--goodput", "time_to_first_token:300",
		"--endpoint-type", "completions", "--warmup", "2s")
	p := out.Plan
	want := []plan.Constraint{{Metric: "ttft", Stat: "p95", ThresholdMs: 300}, {Metric: "itl", Stat: "p95", ThresholdMs: 50}}
	if !reflect.DeepEqual(out.Constraints, want) || p.Ladder.Duration != 3*time.Second || p.Target.API != "completions" ||
		p.Ladder.Warmup != (plan.Warmup{Duration: 2 * time.Second}) || len(p.Ladder.Concurrency) != 7 || p.Segments[0].Name != "story" {
		t.Errorf("constraints %v, ladder %+v, api %q, segments %+v", out.Constraints, p.Ladder, p.Target.API, p.Segments)
	}
	r := llmcap(t, nil, "plan", "-c", "configs/ollama-stories.yaml", "--request-rate", "auto")
	if r.code != 0 || strings.Contains(r.stderr, "defaults for what") || !strings.Contains(r.stdout, "capacity search over rate") {
		t.Errorf("--request-rate auto: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestOneOffFlagErrors: a bad value is a usage error (exit 2) naming the flag and the form.
func TestOneOffFlagErrors(t *testing.T) {
	target := []string{"--url", "http://127.0.0.1:9/v1", "--model", "m"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--request-rate", "0"}, `--request-rate "0": want auto or a list of rates in req/s > 0, e.g. 2,4,8`},
		{[]string{"--request-rate", "1", "--concurrency", "2"}, "--request-rate and --concurrency: give one of them (a ladder has one schedule)"},
		{[]string{"--arrival", "bursty"}, `--arrival "bursty": want poisson, gamma, constant`},
		{[]string{"--burstiness", "-1"}, `--burstiness "-1": want a number > 0 (the gamma shape: 1 = Poisson, < 1 burstier)`},
		{[]string{"--burstiness", "0.5", "--arrival", "poisson"}, "--burstiness applies to --arrival gamma, not poisson"},
		{[]string{"--isl", "512±x"}, `--isl "512±x": the standard deviation after ± must be a number of tokens >= 0; want a whole number of tokens (512: fixed), mean±sd or mean+-sd (512±64: normal, at least 1), or a distribution such as uniform:min=16,max=48`},
		{[]string{"--osl", "lots"}, `--osl "lots": the mean must be a whole number of tokens from 1 to 10000000; want`},
		{[]string{"--duration", "5"}, `--duration "5": want a duration > 0 with its unit, e.g. 30s or 2m`},
		{[]string{"--warmup", "soon"}, `--warmup "soon": want a duration such as 5s, a request count such as 10, or 0 for none`},
		{[]string{"--endpoint-type", "responses"}, `--endpoint-type "responses": want chat or completions`},
		{[]string{"--goodput", "ttft:500"}, `--goodput "ttft:500": unknown metric "ttft": must be one of time_to_first_token, time_to_first_output_token, inter_token_latency, request_latency`},
		{[]string{"--goodput", "time_to_first_token 500"}, `--goodput "time_to_first_token 500": "time_to_first_token" is not metric:value: want space-separated metric:value pairs`},
	} {
		r := llmcap(t, nil, append(append([]string{"plan"}, target...), tc.args...)...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "llmcap: "+tc.want) {
			t.Errorf("%v: exit %d, stderr %q\nwant it to start %q", tc.args, r.code, r.stderr, "llmcap: "+tc.want)
		}
	}
	r := llmcap(t, nil, "plan", "-c", "configs/demo.yaml", "--isl", "100")
	want := "llmcap: --isl: the plan has 3 segments (short, medium, long); --isl and --osl set the lengths of a plan's one segment"
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("--isl on a mix: exit %d, stderr %q", r.code, r.stderr)
	}
}
