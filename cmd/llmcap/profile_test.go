package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileTop: a real nsys kernels table lists its kernels; a CSV without a stats
// table, a non-table file and a directory without kernels.json fail, saying what
// was expected (they used to print nothing and exit 0).
func TestProfileTop(t *testing.T) {
	r := llmcap(t, nil, "profile", "top", "profiles/testdata/kernels-2024.1_cuda_gpu_kern_sum.csv", "-n", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "CLASS") || strings.Count(r.stdout, "\n") < 6 {
		t.Fatalf("real table: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.csv")
	other := filepath.Join(dir, "notes.txt")
	for p, body := range map[string]string{junk: "a,b,c\n1,2,3\n", other: "hello\n"} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for arg, want := range map[string]string{
		junk:  "no kernel rows: not an nsys stats table",
		other: "not a kernels table: want an nsys stats CSV",
		dir:   "not a capture directory: it has no kernels.json",
	} {
		r := llmcap(t, nil, "profile", "top", arg)
		if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, "llmcap: profile top "+arg+": "+want) {
			t.Errorf("profile top %s: exit %d, stdout %q, stderr %q, want %q", arg, r.code, r.stdout, r.stderr, want)
		}
	}
}
