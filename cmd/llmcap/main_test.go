package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/llmcap/llmcap/plan"
)

// bin is the llmcap binary built once for all tests: the CLI is tested as users run it.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "llmcap-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "llmcap")
	build := exec.Command("go", "build", "-race", "-o", bin, ".")
	if !raceEnabled {
		build = exec.Command("go", "build", "-o", bin, ".")
	}
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build llmcap: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one finished llmcap invocation.
// result is a finished llmcap: stdout and stderr with the console's wrapped lines
// joined again (unwrapped), as printed (rawStdout, rawStderr), and the exit status.
type result struct {
	stdout, stderr       string
	rawStdout, rawStderr string
	code                 int
}

// unwrapped joins the continuation lines of console output wrapped at word boundaries
// (sweep.Wrap: "\n" and four spaces) back into their lines.
func unwrapped(s string) string { return strings.ReplaceAll(s, "\n    ", " ") }

// llmcap runs the binary in the repository root with args and extra environment.
func llmcap(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: unwrapped(out.String()), stderr: unwrapped(errb.String()), rawStdout: out.String(), rawStderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("llmcap %v: %v", args, err)
	}
	return r
}

func TestPlanDemo(t *testing.T) {
	r := llmcap(t, nil, "plan", "-c", "configs/demo.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// The demo searches the mix for its capacity in users: one opening step and a bound
	// on the time the search may take.
	rows := regexp.MustCompile(`(?m)^1\s+mix\s+users\s+25 users\s+2s\s+10s\s+\S+$`).FindAllString(r.stdout, -1)
	if len(rows) != 1 || !strings.Contains(r.stdout, "1 capacity search over users from 25 to 2000") {
		t.Errorf("found %d opening steps, want the mix's search:\n%s", len(rows), r.stdout)
	}
	if !regexp.MustCompile(`estimated wall time: at most \dm\d+s \(8 steps if every search used its max_steps`).MatchString(r.stdout) {
		t.Errorf("no bound on the time:\n%s", r.stdout)
	}

	r = llmcap(t, nil, "plan", "-c", "configs/demo.yaml", "--json")
	if r.code != 0 {
		t.Fatalf("--json exit %d: %s", r.code, r.stderr)
	}
	var out planOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json does not parse: %v\n%s", err, r.stdout)
	}
	var sum time.Duration
	for i, s := range out.Steps {
		if s.Index != i || s.Estimated <= 0 {
			t.Errorf("step %d: %+v", i, s)
		}
		sum += s.Estimated
	}
	// 8 steps of at most 2 s warm-up + 10 s window + 10 s grace + 1 s allowance (the
	// tester's demo run took 1m53s, past the old "at most 1m44s").
	if bound := 8 * (23 * time.Second); len(out.Steps) != 1 || out.EstimatedNs < sum || out.EstimatedNs != bound {
		t.Errorf("steps %d, estimate %v (opener %v), want one search bounded by %v", len(out.Steps), out.EstimatedNs, sum, bound)
	}
	if out.Plan.Name != "demo" || len(out.Constraints) != 2 {
		t.Errorf("plan %q, constraints %v", out.Plan.Name, out.Constraints)
	}
}

// TestPlanCaptureColumn checks that plan marks which steps a capture plan captures:
// capture.steps names concurrency 8, knee may take the others.
func TestPlanCaptureColumn(t *testing.T) {
	r := llmcap(t, nil, "plan", "-c", "configs/capture-sim.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	marks := regexp.MustCompile(`(?m)^\d+\s+chat\s+concurrency\s+(\d+)\s+.*\s(capture|knee|–)$`).FindAllStringSubmatch(r.stdout, -1)
	got := map[string]string{}
	for _, m := range marks {
		got[m[1]] = m[2]
	}
	if got["2"] != "knee" || got["8"] != "capture" || got["16"] != "knee" || !strings.Contains(r.stdout, "CAPTURE") {
		t.Errorf("capture marks %v:\n%s", got, r.stdout)
	}
	if r = llmcap(t, nil, "plan", "-c", "configs/demo.yaml"); strings.Contains(r.stdout, "CAPTURE") {
		t.Errorf("a plan without capture shows a CAPTURE column:\n%s", r.stdout)
	}
}

// TestPrecedenceFlagsEnv checks --set > LLMCAP_* > file on the real command.
func TestPrecedenceFlagsEnv(t *testing.T) {
	env := []string{"LLMCAP_TARGET_SIMULATOR_MAX_NUM_SEQS=48", "LLMCAP_LADDER_DURATION=4s"}
	r := llmcap(t, env, "plan", "-c", "configs/demo.yaml", "--json", "--set", "ladder.duration=3s",
		"--set", "ladder.concurrency=[2, 4]")
	var out planOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stderr)
	}
	if got := out.Plan.Target.Simulator.MaxNumSeqs; got != 48 {
		t.Errorf("max_num_seqs = %d, want 48 from the environment", got)
	}
	// The demo searches the mix only: two fixed levels replace its search.
	if out.Plan.Ladder.Duration != 3*time.Second || len(out.Steps) != 2 || out.Plan.Ladder.Search != nil {
		t.Errorf("duration %v, %d steps, search %v; want --set to win (3s, 2 steps, no search)", out.Plan.Ladder.Duration,
			len(out.Steps), out.Plan.Ladder.Search)
	}
}

func TestErrorsPrintAndExit(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("segments: []\nladder: {concurrency: [0]}\nsla: {ttft: {p95: 1}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
		code int // 2: a usage error (the command line is wrong), 1: the plan is
	}{
		{[]string{"plan", "-c", bad}, []string{"llmcap: ", "segments: an empty list", "ladder.concurrency[0]: 0", "sla.ttft: unknown key"}, 1},
		{[]string{"plan"}, []string{"llmcap: no plan given"}, 2},
		{[]string{"plan", "-c", "configs/demo.yaml", "--set", "nonsense"}, []string{"--set \"nonsense\": want key=value"}, 2},
		{[]string{"report", t.TempDir(), "--format", "docx"}, []string{"llmcap: "}, 2},
		{[]string{"serve-sim", "--max-num-seqs", "0"}, []string{"target.simulator.max_num_seqs: 0 is not allowed"}, 1},
		{[]string{"plan", "-c", "configs/demo.yaml", "--log-level", "loud"}, []string{"--log-level \"loud\""}, 2},
	} {
		r := llmcap(t, nil, tc.args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, r.code, tc.code)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, w, r.stderr)
			}
		}
		if !strings.HasPrefix(r.stderr, "llmcap: ") {
			t.Errorf("%v: stderr does not start with \"llmcap: \": %q", tc.args, r.stderr)
		}
	}
}

// TestAPIKeyNotInOutputs resolves a key from the environment and checks that neither
// `plan` (text and --json, with debug logs) nor a real `run`'s run directory and logs
// contain it.
func TestAPIKeyNotInOutputs(t *testing.T) {
	const key = "sk-cli-test-91f4d2c8e7"
	env := []string{"LLMCAP_CLI_TEST_KEY=" + key}
	set := []string{"--set", "target.api_key_env=LLMCAP_CLI_TEST_KEY", "--log-level", "debug"}
	for _, extra := range [][]string{nil, {"--json"}} {
		args := append([]string{"plan", "-c", "configs/demo.yaml"}, append(set, extra...)...)
		r := llmcap(t, env, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "plan loaded") {
			t.Errorf("debug log of the plan missing: %s", r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, key) {
			t.Errorf("%v: the API key leaked:\n%s\n%s", args, r.stdout, r.stderr)
		}
	}
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, env, append([]string{"sweep", "-c", tinyPlan(t), "-o", dir}, set...)...)
	if r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, key) {
		t.Errorf("the API key leaked into sweep output")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("the API key leaked into %s", f)
		}
	}
	if len(files) == 0 {
		t.Errorf("sweep wrote nothing in %s", dir)
	}
}

// tinyPlan writes a plan that sweeps in about a second on a sped-up simulator.
func tinyPlan(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	yaml := `
name: tiny
target: {simulator: {max_num_seqs: 4, speed_up: 20}, extra_body: {ignore_eos: true}}
segments:
  - {name: chat, weight: 1, prompt_tokens: {dist: fixed, value: 64}, output_tokens: {dist: fixed, value: 16}}
ladder: {concurrency: [1, 2], duration: 500ms, grace: 200ms}
sla: {ttft_ms: {p95: 500}}
report: {formats: [json, md, csv]}
`
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunTiny runs the whole pipeline on the simulator and checks the run directory.
func TestRunTiny(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	r := llmcap(t, nil, "run", "-c", tinyPlan(t), "-o", dir, "--cpuprofile", prof, "--save-icl")
	if r.code != 0 {
		t.Fatalf("run: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if pp, err := profile.Parse(f); err != nil || len(pp.SampleType) == 0 {
		t.Errorf("--cpuprofile wrote no valid pprof profile: %v", err)
	}
	recs, _ := os.ReadFile(filepath.Join(dir, "records.jsonl"))
	if !bytes.Contains(recs, []byte(`"icl_ms":[`)) {
		t.Errorf("--save-icl: no icl_ms arrays in records.jsonl")
	}
	for _, f := range []string{"run.json", "records.jsonl", "steps.jsonl", "analysis.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	if !strings.Contains(r.stdout, "outputs in "+dir) || !strings.Contains(r.stdout, "analysis.json") {
		t.Errorf("run does not say where the outputs are:\n%s", r.stdout)
	}
	steps, _ := os.ReadFile(filepath.Join(dir, "steps.jsonl"))
	if n := bytes.Count(steps, []byte("\n")); n != 2 {
		t.Errorf("steps.jsonl has %d lines, want 2", n)
	}
	// report re-runs the analysis when analysis.json is missing.
	if err := os.Remove(filepath.Join(dir, "analysis.json")); err != nil {
		t.Fatal(err)
	}
	r = llmcap(t, nil, "report", dir, "--format", "md")
	if r.code != 0 || !strings.Contains(r.stdout, "outputs in") {
		t.Errorf("report: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "analysis.json")); err != nil {
		t.Errorf("report did not re-create analysis.json: %v", err)
	}
}

// interruptAfterFirstStep starts cmd (a sweep or run writing the run directory dir),
// waits up to 60 s for its first finished step in steps.jsonl and sends it SIGINT.
func interruptAfterFirstStep(t *testing.T, cmd *exec.Cmd, dir string) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(filepath.Join(dir, "steps.jsonl")); bytes.Count(b, []byte("\n")) >= 1 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}

// TestSweepInterruptAndResume sends SIGINT mid-sweep, expects exit 130 with the resume
// command, then resumes the run to completion.
func TestSweepInterruptAndResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "sweep", "-c", "configs/demo.yaml", "-o", dir,
		"--set", "target.simulator.speed_up=20", "--set", "ladder.concurrency=[1,2,4]",
		"--set", "ladder.duration=1s", "--set", "ladder.warmup.duration=0s", "--set", "ladder.mix=false",
		"--set", "ladder.per_segment=true")
	cmd.Dir = "../.."
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	interruptAfterFirstStep(t, cmd, dir)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted sweep: %v, want exit 130\n%s", err, errb.String())
	}
	want := "llmcap sweep --resume " + dir
	if !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errb.String())
	}
	r := llmcap(t, nil, "sweep", "--resume", dir)
	if r.code != 0 {
		t.Fatalf("resume: exit %d:\n%s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "steps.jsonl"))
	if n := bytes.Count(b, []byte("\n")); n != 9 {
		t.Errorf("after resume steps.jsonl has %d lines, want 9", n)
	}
}

// TestServeSim starts the simulator on a free port, calls /v1/models, then stops it
// with SIGINT.
func TestServeSim(t *testing.T) {
	cmd := exec.Command(bin, "serve-sim", "--addr", "127.0.0.1:0", "--max-num-seqs", "8", "--speed-up", "10")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // already exited on success
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("read banner: %v", err)
	}
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/v1)`).FindStringSubmatch(line)
	if m == nil || !strings.Contains(line, "max_num_seqs 8") {
		t.Fatalf("banner %q lacks the URL or the flag's value", line)
	}
	resp, err := http.Get(m[1] + "/models")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), plan.Default().Target.Simulator.Model) {
		t.Errorf("/v1/models: %d %s", resp.StatusCode, body)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve-sim after Ctrl-C: %v", err)
	}
}

func TestVersion(t *testing.T) {
	r := llmcap(t, nil, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "llmcap ") || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
}

// TestCaptureWiredWithoutNsys enables Nsight capture with an nsys that does not exist:
// the sweep must still complete, and the captured step must carry the capture error
// (which shows the profiles hook was wired into the sweep).
func TestCaptureWiredWithoutNsys(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", dir,
		"--set", "capture.enabled=true", "--set", "capture.mode=session", "--set", "capture.session_name=llmcap",
		"--set", "capture.nsys_path=/nonexistent/nsys", "--set", "capture.steps=[{segment: chat, concurrency: 2}]")
	if r.code != 0 {
		t.Fatalf("sweep with capture: exit %d:\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d steps, want 2", len(lines))
	}
	var first, second struct {
		CaptureError string `json:"capture_error"`
	}
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatalf("steps.jsonl does not parse:\n%s", b)
	}
	if first.CaptureError != "" || second.CaptureError == "" {
		t.Errorf("capture errors: step 0 %q (want none), step 1 %q (want one)", first.CaptureError, second.CaptureError)
	}
}
