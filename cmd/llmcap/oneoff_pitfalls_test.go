package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulatorModelMismatchRefused: --url simulator --model NAME where NAME is not the
// simulated model would send a model name the embedded simulator does not serve, so
// every request fails with HTTP 404 after the whole ladder has run; the plan is refused
// up front, naming target.simulator.model.
func TestSimulatorModelMismatchRefused(t *testing.T) {
	r := llmcap(t, nil, "plan", "--url", "simulator", "--model", "llama-3.1-70b", "--concurrency", "1")
	if r.code == 0 || !strings.Contains(r.stderr, "target.model") || !strings.Contains(r.stderr, "target.simulator.model") {
		t.Errorf("--url simulator --model llama-3.1-70b: exit %d, want a refusal naming target.simulator.model\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ok := llmcap(t, nil, "plan", "--url", "simulator", "--model", "llama-3.1-70b", "--set", "target.simulator.model=llama-3.1-70b", "--concurrency", "1")
	if ok.code != 0 || !strings.Contains(ok.stdout, "llama-3.1-70b on H100-SXM") {
		t.Errorf("with target.simulator.model set too: exit %d\n%s\n%s", ok.code, ok.stdout, ok.stderr)
	}
}

// TestPrintedPlanWithMaskedSecretIsRefused: --print-plan masks a literal secret (an
// Authorization header given with --header) as REDACTED and says which key it masked;
// loading that file back with -c refuses it instead of sending "REDACTED" as the
// credential to the server.
func TestPrintedPlanWithMaskedSecretIsRefused(t *testing.T) {
	const secret = "Bearer sk-literal-7d41"
	r := llmcap(t, nil, "run", "--print-plan", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--header", "Authorization: "+secret)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "sk-literal-7d41") {
		t.Fatalf("--print-plan: exit %d (or the secret leaked)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "# masked: target.headers.authorization") {
		t.Errorf("--print-plan does not say which key it masked:\n%s", r.stdout)
	}
	file := filepath.Join(t.TempDir(), "printed.yaml")
	if err := os.WriteFile(file, []byte(r.rawStdout), 0o600); err != nil { // YAML: its 4-space indents are not wraps
		t.Fatal(err)
	}
	back := llmcap(t, nil, "plan", "-c", file)
	if back.code == 0 || !strings.Contains(back.stderr, "target.headers.authorization") || !strings.Contains(back.stderr, "REDACTED") {
		t.Errorf("-c of the printed plan: exit %d, want a refusal naming the masked key\n%s\n%s", back.code, back.stdout, back.stderr)
	}
}

// TestArrivalFlagsNeedAnOpenLoop: --arrival and --burstiness shape an open-loop
// (--request-rate) schedule; with a closed-loop concurrency ladder they would be
// silently ignored (vllm bench serve's --burstiness applies to --request-rate only), so
// they are refused with the reason.
func TestArrivalFlagsNeedAnOpenLoop(t *testing.T) {
	target := []string{"--url", "http://127.0.0.1:9/v1", "--model", "m"}
	for _, extra := range [][]string{
		{"--concurrency", "1,2", "--burstiness", "0.5"},
		{"--concurrency", "1,2", "--arrival", "constant"},
		{"--burstiness", "0.5"}, // the default ladder: a search over concurrency
	} {
		r := llmcap(t, nil, append(append([]string{"plan"}, target...), extra...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "--request-rate") {
			t.Errorf("%v: exit %d, want a refusal pointing at --request-rate\n%s\n%s", extra, r.code, r.stdout, r.stderr)
		}
	}
	for _, extra := range [][]string{
		{"--request-rate", "1,2", "--burstiness", "0.5"},
		{"--request-rate", "auto", "--arrival", "constant"},
	} {
		if r := llmcap(t, nil, append(append([]string{"plan"}, target...), extra...)...); r.code != 0 {
			t.Errorf("%v: exit %d\n%s", extra, r.code, r.stderr)
		}
	}
	if r := llmcap(t, nil, "plan", "-c", "configs/sglang.yaml", "--burstiness", "0.8"); r.code != 0 {
		t.Errorf("--burstiness on a plan with a rate ladder: exit %d\n%s", r.code, r.stderr)
	}
}
