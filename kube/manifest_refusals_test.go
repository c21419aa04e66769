package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// basePlan is a plan the pods can run; the cases below change one part of it.
const basePlan = `name: refusals
target:
  url: http://vllm.inference.svc:8000/v1
  model: m
segments:
  - name: chat
    weight: 1
    prompt_tokens: 512
    output_tokens: 128
ladder:
  concurrency: [4, 8]
  duration: 30s
`

// writePlan writes text as plan.yaml in a new directory, beside a trace, a CSV and a
// key file it may name, and returns its path.
func writePlan(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"plan.yaml":   text,
		"trace.jsonl": `{"timestamp": 0, "input_length": 100, "output_length": 10, "hash_ids": [1]}` + "\n",
		"lengths.csv": "prompt\n100\n200\n",
		"key.txt":     "secret-key\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "plan.yaml")
}

// TestPlansThePodsCannotRunAreRefused: each refusal names the plan field and what
// to do instead.
func TestPlansThePodsCannotRunAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, plan string
		want       []string
	}{
		{"simulator", strings.Replace(basePlan, "url: http://vllm.inference.svc:8000/v1\n  model: m", "url: simulator", 1),
			[]string{"target.url", "llmcap serve-sim"}},
		{"no url (the simulator)", strings.Replace(basePlan, "  url: http://vllm.inference.svc:8000/v1\n  model: m\n", "  api: chat\n", 1),
			[]string{"target.url", "embedded simulator"}},
		{"loopback", strings.Replace(basePlan, "vllm.inference.svc", "127.0.0.1", 1), []string{"target.url", "loopback"}},
		{"loopback metrics", strings.Replace(basePlan, "  model: m\n", "  model: m\n  metrics_urls: [http://localhost:8000/metrics]\n", 1),
			[]string{"target.metrics_urls[0]", "loopback"}},
		{"search by default", strings.Replace(basePlan, "  concurrency: [4, 8]\n", "", 1), []string{"ladder.search", "fixed ladder"}},
		{"search", strings.Replace(basePlan, "  concurrency: [4, 8]\n", "  search: {over: concurrency}\n", 1), []string{"ladder.search"}},
		{"launch", strings.Replace(basePlan, "  model: m\n", "  model: m\n  launch: {command: [vllm, serve, m]}\n", 1),
			[]string{"target.launch"}},
		{"drift", basePlan + "drift: {repeats: 2}\n", []string{"drift:"}},
		{"capture", basePlan + "capture: {enabled: true, mode: session, session_name: s}\n", []string{"capture.enabled"}},
		{"api key file", strings.Replace(basePlan, "  model: m\n", "  model: m\n  api_key_file: key.txt\n", 1),
			[]string{"target.api_key_file", "key.txt", "only plan.yaml"}},
		{"trace", strings.Replace(basePlan, "    output_tokens: 128\n", "    output_tokens: 128\n    trace: {format: mooncake, file: trace.jsonl}\n", 1),
			[]string{"segments[0].trace.file", "trace.jsonl"}},
		{"empirical lengths", strings.Replace(basePlan, "prompt_tokens: 512", "prompt_tokens: {dist: empirical, file: lengths.csv, column: prompt}", 1),
			[]string{"segments[0].prompt_tokens.file", "lengths.csv"}},
		{"header from the environment", strings.Replace(basePlan, "  model: m\n", "  model: m\n  headers: {x-tenant: '${TENANT}'}\n", 1),
			[]string{"target.headers.x-tenant", "${NAME}"}},
		{"no name", strings.Replace(basePlan, "name: refusals\n", "", 1), []string{"name:", "add a name field"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadPlan(writePlan(t, tc.plan))
			if err == nil {
				t.Fatal("LoadPlan accepted the plan")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestRefusalsAreListedTogether: a plan with several problems gets them all at once.
func TestRefusalsAreListedTogether(t *testing.T) {
	text := strings.Replace(basePlan, "  concurrency: [4, 8]\n", "", 1) + "drift: {repeats: 2}\n"
	_, err := LoadPlan(writePlan(t, text))
	if err == nil || !strings.Contains(err.Error(), "ladder.search") || !strings.Contains(err.Error(), "drift:") {
		t.Fatalf("err = %v, want ladder.search and drift together", err)
	}
}

// TestLiteralDollarHeaderIsAccepted: $${ is a literal ${, no variable.
func TestLiteralDollarHeaderIsAccepted(t *testing.T) {
	text := strings.Replace(basePlan, "  model: m\n", "  model: m\n  headers: {x-tag: 'a$${b}'}\n", 1)
	if _, err := LoadPlan(writePlan(t, text)); err != nil {
		t.Fatal(err)
	}
}

// TestAPIKeySecretMatchesThePlan: the key needs both --api-key-secret and
// target.api_key_env (unset here, where it is not needed), or neither.
func TestAPIKeySecretMatchesThePlan(t *testing.T) {
	withEnv := writePlan(t, strings.Replace(basePlan, "  model: m\n", "  model: m\n  api_key_env: LLMCAP_TEST_UNSET_KEY\n", 1))
	without := writePlan(t, basePlan)
	for _, tc := range []struct {
		name, plan, secret, want string
	}{
		{"env without secret", withEnv, "", "give --api-key-secret"},
		{"secret without env", without, "llm-api/key", "add target.api_key_env: LLMCAP_API_KEY"},
		{"both", withEnv, "llm-api/key", ""},
		{"neither", without, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := exampleOptions()
			o.Plan, o.APIKeySecret = tc.plan, tc.secret
			out, err := Generate(o)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			case tc.want == "" && tc.secret != "" && !strings.Contains(string(out), "name: LLMCAP_TEST_UNSET_KEY"):
				t.Errorf("the shard pods get no LLMCAP_TEST_UNSET_KEY:\n%s", out)
			}
		})
	}
}
