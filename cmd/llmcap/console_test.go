package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// closedURL is the /v1 URL of a 127.0.0.1 port nothing listens on (with user info
// userinfo@ when not empty).
func closedURL(t *testing.T, userinfo string) (url, hostport string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hostport = ln.Addr().String()
	ln.Close()
	if userinfo != "" {
		userinfo += "@"
	}
	return "http://" + userinfo + hostport + "/v1", hostport
}

// TestUsageErrorsExit2: an unknown flag or command, a bad flag value and wrong
// arguments exit 2; a command that fails on its own (a missing plan file) exits 1.
func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--no-such-flag"},
		{"frobnicate"},
		{"plan", "-c", "configs/demo.yaml", "--log-format", "xml"},
		{"plan", "-c", "configs/demo.yaml", "--log-level", "loud"},
		{"plan", "-c", "configs/demo.yaml", "--concurrency", "1,x"},
		{"plan", "-c", "configs/demo.yaml", "--set", "no-equals-sign"},
		{"plan"},
		{"run", "extra-arg", "-c", "configs/demo.yaml"},
		{"analyze"},
		{"report", "a", "b"},
	} {
		if r := llmcap(t, nil, args...); r.code != 2 || !strings.HasPrefix(r.stderr, "llmcap: ") {
			t.Errorf("llmcap %s: exit %d, stderr %q; want exit 2 with the reason", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := llmcap(t, nil, "plan", "-c", filepath.Join(t.TempDir(), "missing.yaml")); r.code != 1 {
		t.Errorf("a missing plan file: exit %d, want 1\n%s", r.code, r.stderr)
	}
}

// TestSetTypoDidYouMean: a --set key that names no plan key suggests the nearest one.
func TestSetTypoDidYouMean(t *testing.T) {
	r := llmcap(t, nil, "plan", "-c", "configs/demo.yaml", "--set", "ladder.duraton=5s")
	if r.code != 1 || !strings.Contains(r.stderr, `ladder.duraton: unknown key "duraton" is not allowed: did you mean duration?`) ||
		!strings.Contains(r.stderr, "(the key comes from --set)") {
		t.Errorf("exit %d, stderr %q; want the suggestion", r.code, r.stderr)
	}
}

// TestLogFormatJSON: --log-format json writes every stderr line as a JSON object
// (slog's JSONHandler: time, level, msg), one per finished step among them, with the
// plan's secrets masked (a metrics endpoint's password, here of a closed port whose
// scrapes fail and are logged with their URL).
func TestLogFormatJSON(t *testing.T) {
	const secret = "sekrit-json-log-pass-4c2a"
	_, hostport := closedURL(t, "")
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", dir, "--log-format", "json",
		"--set", "target.metrics_urls=[http://mon:"+secret+"@"+hostport+"/metrics]")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	steps, scrapes := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line is not JSON: %v\n%s", err, line)
		}
		if rec["time"] == nil || rec["level"] == nil || rec["msg"] == nil {
			t.Errorf("record lacks time, level or msg: %s", line)
		}
		switch msg, _ := rec["msg"].(string); {
		case strings.HasSuffix(msg, " done") && rec["requests"] != nil:
			steps++
		case msg == "metrics scrape failed":
			scrapes++
		}
	}
	if steps != 2 || scrapes == 0 {
		t.Errorf("%d step records and %d scrape failures, want 2 and some:\n%s", steps, scrapes, r.stderr)
	}
	if strings.Contains(r.stderr, secret) {
		t.Errorf("the secret is in the JSON log:\n%s", r.stderr)
	}
}

// TestQuietPrintsAnswerAndPaths: --quiet prints no info or warning line (stderr stays
// empty on a run that succeeds) and only the answer and the output paths on stdout.
func TestQuietPrintsAnswerAndPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "run", "-q", "-c", tinyPlan(t), "-o", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("--quiet printed on stderr:\n%s", r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "Answer: One ") || !strings.Contains(r.stdout, "\noutputs in "+dir+":\n") ||
		strings.Contains(r.stdout, "Segment ") || strings.Contains(r.stdout, "warning:") {
		t.Errorf("--quiet stdout:\n%s\nwant the answer and the outputs only", r.stdout)
	}
}

// TestConsoleOutsideTerminal: without a terminal (here pipes), a run prints one compact
// line per finished step and no progress bar, and no line of stderr or stdout is wider
// than 160 columns (long ones are wrapped at spaces).
func TestConsoleOutsideTerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "run", "-c", tinyPlan(t), "-o", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	steps := 0
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.Contains(line, " step ") && strings.Contains(line, "/2 done segment=chat concurrency=") {
			steps++
		}
	}
	if steps != 2 || strings.Contains(r.stderr, "\r") || strings.Contains(r.stderr, "level=INFO") {
		t.Errorf("%d step lines, want 2 compact ones and no bar:\n%s", steps, r.stderr)
	}
	for _, out := range []string{r.rawStderr, r.rawStdout} {
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > 160 {
				t.Errorf("line of %d columns:\n%s", n, line)
			}
		}
	}
	if !strings.Contains(r.rawStdout, "\n    ") {
		t.Errorf("no wrapped line in the summary (its answer and warnings are longer than 160 columns):\n%s", r.stdout)
	}
}

// TestSummaryHasNoInternalNames: the console summary of a real run on the simulator
// names no internal value (a capacity method, a NaN) and says how sure the capacity is
// in the words of the report (analysis.CertaintyText).
func TestSummaryHasNoInternalNames(t *testing.T) {
	for _, ladder := range []string{"[1, 2]", "[1, 16]"} { // every load passes; the top one fails
		dir := filepath.Join(t.TempDir(), "run")
		cfg := tinyPlan(t)
		r := llmcap(t, nil, "run", "-c", cfg, "-o", dir, "--set", "ladder.concurrency="+ladder,
			"--set", "sla.ttft_ms.p95=5")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		for _, raw := range []string{"at_least", "(measured)", "(interpolated)", "(model)", "below_first_step", "no_data", "NaN", "bound by -"} {
			if strings.Contains(r.stdout, raw) {
				t.Errorf("ladder %s: summary holds %q:\n%s", ladder, raw, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, "\n  At least ") && !strings.Contains(r.stdout, "\n  Measured: ") &&
			!strings.Contains(r.stdout, "\n  Modelled ") {
			t.Errorf("ladder %s: no certainty line under the capacity:\n%s", ladder, r.stdout)
		}
	}
}

// TestPreflightFailureLeavesNoDirectory: a run against a closed port fails at its
// preflight and leaves no run directory (nor the runs/ parent it created).
func TestPreflightFailureLeavesNoDirectory(t *testing.T) {
	url, _ := closedURL(t, "")
	parent := t.TempDir()
	dir := filepath.Join(parent, "runs", "x")
	r := llmcap(t, nil, "run", "-c", tinyPlan(t), "-o", dir, "--set", "target.url="+url, "--set", "target.model=m")
	if r.code != 1 || !strings.Contains(r.stderr, "cannot reach target "+url) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if entries, err := os.ReadDir(parent); err != nil || len(entries) != 0 {
		t.Errorf("left %v behind (%v)", entries, err)
	}
}
