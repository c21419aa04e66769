package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLogFormatJSONLongRecordStaysOneLine: with --log-format json every stderr line is
// a whole JSON object even when a record is far longer than 160 columns (the debug
// "plan loaded" record holds the whole plan): the console wraps text lines at spaces,
// never JSON ones. The raw stderr is read, not the test helper's unwrapped copy.
func TestLogFormatJSONLongRecordStaysOneLine(t *testing.T) {
	r := llmcap(t, nil, "plan", "-c", "configs/demo.yaml", "--log-format", "json", "--log-level", "debug")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.rawStderr)
	}
	loaded := 0
	for _, line := range strings.Split(strings.TrimSpace(r.rawStderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line is not JSON: %v\n%.300s", err, line)
		}
		if rec["msg"] == "plan loaded" && len(line) > 160 {
			loaded++
		}
	}
	if loaded != 1 {
		t.Errorf("%d long \"plan loaded\" records, want 1:\n%.2000s", loaded, r.rawStderr)
	}
}

// TestLogFormatJSONAssumedDefaults: a one-off run from flags lists the defaults it
// assumed; with --log-format json that list is a JSON record too (stderr stays JSON
// lines only), naming each default.
func TestLogFormatJSONAssumedDefaults(t *testing.T) {
	r := llmcap(t, nil, "plan", "--url", "simulator", "--model", "llama-3.1-8b", "--concurrency", "1,2",
		"--log-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.rawStderr)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(r.rawStderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line is not JSON: %v\n%s\nstderr:\n%s", err, line, r.rawStderr)
		}
		if d, ok := rec["defaults"].([]any); ok && len(d) > 0 && strings.Contains(line, "ladder.grace: 30s") {
			found = true
		}
	}
	if !found {
		t.Errorf("no record lists the assumed defaults:\n%s", r.rawStderr)
	}
}

// TestQuietOneOffRunPrintsNoDefaults: --quiet keeps a one-off run's stderr empty (the
// list of assumed defaults is information, not an error) and stdout the answer and
// the output paths.
func TestQuietOneOffRunPrintsNoDefaults(t *testing.T) {
	dir := t.TempDir() + "/run"
	r := llmcap(t, nil, "run", "-q", "--url", "simulator", "--model", "llama-3.1-8b", "--concurrency", "1",
		"--duration", "300ms", "--warmup", "0", "--set", "ladder.grace=200ms", "--set", "target.simulator.speed_up=20",
		"--set", "report.formats=[json]", "-o", dir)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("--quiet printed on stderr:\n%s", r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "Answer: One ") || !strings.Contains(r.stdout, "outputs in "+dir+":") {
		t.Errorf("--quiet stdout:\n%s", r.stdout)
	}
}

// TestBadOneOffFlagValueExit2: a one-off flag with a value of the wrong form is a usage
// error (exit 2, as a bad --concurrency or --log-format is), with the flag's own message.
func TestBadOneOffFlagValueExit2(t *testing.T) {
	for _, c := range []struct{ flag, value, want string }{
		{"--duration", "abc", `--duration "abc": want a duration > 0`},
		{"--warmup", "soon", `--warmup "soon": want a duration`},
		{"--isl", "many", `--isl "many"`},
		{"--goodput", "ttft:x", `--goodput "ttft:x"`},
		{"--endpoint-type", "grpc", `--endpoint-type "grpc"`},
		{"--header", "no colon", `--header "no colon"`},
	} {
		r := llmcap(t, nil, "plan", "--url", "simulator", "--model", "m", c.flag, c.value)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "llmcap: ") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s %q: exit %d, stderr %q; want exit 2 and %q", c.flag, c.value, r.code, r.stderr, c.want)
		}
	}
}

// TestLogFormatJSONFailureIsARecord: under --log-format json the error a command fails
// with is a JSON record too (level ERROR, msg "llmcap: …" with the message, the exit
// status), so stderr stays JSON lines only; the exit status is unchanged.
func TestLogFormatJSONFailureIsARecord(t *testing.T) {
	r := llmcap(t, nil, "plan", "-c", "configs/demo.yaml", "--log-format", "json", "--set", "ladder.durration=3s")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.rawStderr)
	}
	var last map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.rawStderr), "\n") {
		last = nil
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("stderr line is not JSON: %v\n%s", err, line)
		}
	}
	msg, _ := last["msg"].(string)
	if last["level"] != "ERROR" || !strings.HasPrefix(msg, "llmcap: ") || !strings.Contains(msg, "did you mean duration?") ||
		last["exit_status"] != float64(1) {
		t.Errorf("last record %v, want the error with its exit status", last)
	}
}
