package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -o must be neither a run directory nor one of the runs compared, and one directory
// given twice needs --labels: each is a usage error (exit 2) before any work, naming
// the fix.
func TestCompareRefusesBadOutAndRepeatedDirUpFront(t *testing.T) {
	tmp := t.TempDir()
	a, b, run := filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "other-run")
	for _, d := range []string{a, b, run} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(run, "run.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a, b, "-o", run}, "is a run directory (it holds run.json)"},
		{[]string{"compare", a, b, "-o", b}, "-o " + b + " is the run directory " + b + " being compared"},
		{[]string{"compare", a, b, "-o", a + "/."}, "is the run directory " + a + " being compared"},
		{[]string{"compare", a, a, "-o", filepath.Join(tmp, "cmp")}, "pass one label per run, e.g. --labels a,b"},
	} {
		r := llmcap(t, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "cmp")); !os.IsNotExist(err) {
		t.Errorf("a refused comparison created its -o (err %v)", err)
	}
}
