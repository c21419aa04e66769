package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretTinyPlan is tinyPlan with a secret in target.extra_body, which run.json masks.
func secretTinyPlan(t *testing.T, secret string) string {
	t.Helper()
	b, err := os.ReadFile(tinyPlan(t))
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(string(b), "extra_body: {ignore_eos: true}", "extra_body: {ignore_eos: true, api_key: "+secret+", headers: {authorization: 'Bearer "+secret+"'}}", 1)
	p := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResumeOfAPlanWithSecretsNeedsThePlanFile: run.json records which fields it
// masked; `sweep --resume DIR` alone (or with --set) would send the mask in their place,
// so it is refused naming them and the command to use; with -c the original plan it
// resumes. The Ctrl-C message of such a run gives the command with -c.
func TestResumeOfAPlanWithSecretsNeedsThePlanFile(t *testing.T) {
	const secret = "eb-resume-key-5c2e"
	cfg := secretTinyPlan(t, secret)
	dir := filepath.Join(t.TempDir(), "run")
	if r := llmcap(t, nil, "sweep", "-c", cfg, "-o", dir); r.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", r.code, r.stderr)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(meta), `"redacted_fields": [`) || !strings.Contains(string(meta), `"target.extra_body.api_key"`) ||
		strings.Contains(string(meta), secret) {
		t.Errorf("run.json lacks redacted_fields or holds the secret:\n%s", meta)
	}
	want := "target.extra_body.api_key, target.extra_body.headers.authorization), so the target would get \"REDACTED\" for them; pass the original plan file: " +
		"llmcap sweep --resume " + dir + " -c PLAN"
	for _, args := range [][]string{{"sweep", "--resume", dir}, {"sweep", "--resume", dir, "--set", "target.request_timeout=1m"}} {
		r := llmcap(t, nil, args...)
		if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "sweep resuming") {
			t.Errorf("%v: exit %d, want a refusal with %q\n%s", args, r.code, want, r.stderr)
		}
	}
	if r := llmcap(t, nil, "sweep", "--resume", dir, "-c", cfg); r.code != 0 || !strings.Contains(r.stderr, "resuming with the plan from -c") {
		t.Errorf("resume with -c: exit %d\n%s", r.code, r.stderr)
	}

	msg := interruptedSweep("sweep", dir, "plans/sec ret.yaml").Error()
	if want := "resume with: llmcap sweep --resume " + shellQuote(dir) + " -c 'plans/sec ret.yaml' (the original plan file"; !strings.Contains(msg, want) {
		t.Errorf("Ctrl-C message %q lacks %q", msg, want)
	}
	if msg := interruptedSweep("sweep", dir, "").Error(); !strings.Contains(msg, " -c PLAN (the original plan file") {
		t.Errorf("Ctrl-C message without a known plan file: %q", msg)
	}

	plain := filepath.Join(t.TempDir(), "plain")
	if r := llmcap(t, nil, "sweep", "-c", tinyPlan(t), "-o", plain); r.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", r.code, r.stderr)
	}
	if msg := interruptedSweep("sweep", plain, "x.yaml").Error(); strings.Contains(msg, "-c") || !strings.HasSuffix(msg, "llmcap sweep --resume "+shellQuote(plain)) {
		t.Errorf("Ctrl-C message of a run without secrets: %q", msg)
	}
	if r := llmcap(t, nil, "sweep", "--resume", plain); r.code != 0 {
		t.Errorf("resume of a run without secrets: exit %d\n%s", r.code, r.stderr)
	}
}
