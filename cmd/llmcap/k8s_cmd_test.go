package main

import (
	"os"
	"strings"
	"testing"
)

// TestK8sManifest: the example plan prints the golden manifest on stdout (exit 0);
// bad flags are usage errors (exit 2) naming the flag; a plan the pods cannot run
// fails (exit 1) naming the plan field.
func TestK8sManifest(t *testing.T) {
	args := []string{"k8s", "manifest", "-c", "kube/testdata/chat-4-shards.yaml", "--shards", "4",
		"--image", "registry.example.com/llmcap:v1", "--namespace", "bench", "--spread", "--api-key-secret", "llm-api/key"}
	r := llmcap(t, nil, args...)
	want, err := os.ReadFile("../../kube/testdata/manifest-4-shards.golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || r.rawStdout != string(want) {
		t.Errorf("exit %d, stderr %s; stdout differs from kube's golden file:\n%s", r.code, r.stderr, r.rawStdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"k8s", "manifest", "-c", "configs/demo.yaml", "--image", "x"}, 2, "--shards 0"},
		{[]string{"k8s", "manifest", "-c", "configs/demo.yaml", "--shards", "2"}, 2, "--image"},
		{append(args, "-o", "runs/x"), 2, "prints to stdout"},
		{append(args, "--set", "seed=1"), 2, "--set seed=1"},
		{[]string{"k8s", "manifest", "-c", "configs/demo.yaml", "--shards", "2", "--image", "x"}, 1, "target.url"},
	} {
		r := llmcap(t, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("llmcap %q: exit %d, stderr %q, stdout %d bytes; want exit %d, %q on stderr, nothing on stdout",
				tc.args, r.code, r.stderr, len(r.stdout), tc.code, tc.want)
		}
	}
}
