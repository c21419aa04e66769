package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportAIPerfThenAnalyzeAndReport: llmcap import aiperf writes a run directory
// from three AIPerf exports that llmcap analyze and llmcap report read unchanged: the
// analysis finds the three steps, the report writes its Markdown and CSV.
func TestImportAIPerfThenAnalyzeAndReport(t *testing.T) {
	td := filepath.Join("importer", "testdata", "aiperf")
	dir := filepath.Join(t.TempDir(), "run")
	r := llmcap(t, nil, "import", "aiperf", filepath.Join(td, "c16"), filepath.Join(td, "c1"), filepath.Join(td, "c4"),
		"-o", dir, "--set", "sla.ttft_ms.p95=200")
	if r.code != 0 || !strings.Contains(r.stdout, "step 1: concurrency 1 from") || !strings.Contains(r.stdout, "step 3: concurrency 16") {
		t.Fatalf("import: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := llmcap(t, nil, "analyze", dir); r.code != 0 || !strings.Contains(r.stdout, "analysis.json") {
		t.Fatalf("analyze: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = llmcap(t, nil, "report", dir, "--format", "md,csv")
	if r.code != 0 {
		t.Fatalf("report: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	// An import has no scrapes: no server-metrics.jsonl, none listed.
	if _, err := os.Stat(filepath.Join(dir, "server-metrics.jsonl")); !os.IsNotExist(err) || strings.Contains(r.stdout+r.stderr, "scraped server metrics") {
		t.Errorf("server-metrics.jsonl: %v; report lists it: %v\n%s", err, strings.Contains(r.stdout+r.stderr, "scraped server metrics"), r.stdout)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "steps.csv"))
	if err != nil || strings.Count(strings.TrimSpace(string(csv)), "\n") != 3 {
		t.Errorf("steps.csv: %v\n%s\nwant a header and three steps", err, csv)
	}
}

// TestImportUsageErrors: no file, no -o, a --set of the ladder exit 2; a non-empty
// -o directory exits 1 naming it.
func TestImportUsageErrors(t *testing.T) {
	file := filepath.Join("importer", "testdata", "vllm", "rate2.json")
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", "vllm-bench", "-o", filepath.Join(full, "new")}, 2, "at least one file"},
		{[]string{"import", "vllm-bench", file}, 2, "-o RUN_DIR is required"},
		{[]string{"import", "vllm-bench", file, "-o", filepath.Join(full, "new"), "--set", "ladder.rate=[1]"}, 2, "--set ladder.rate"},
		{[]string{"import", "vllm-bench", file, "-o", full}, 1, "is not empty"},
	} {
		r := llmcap(t, nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}

// TestImportQuietPrintsOnlyThePath: with -q (as with --quiet) import prints no step
// lines and no next commands, only the run directory it wrote.
func TestImportQuietPrintsOnlyThePath(t *testing.T) {
	file := filepath.Join("importer", "testdata", "vllm", "rate2.json")
	for _, q := range []string{"-q", "--quiet"} {
		dir := filepath.Join(t.TempDir(), "run")
		r := llmcap(t, nil, q, "import", "vllm-bench", file, "-o", dir)
		if r.code != 0 || strings.Contains(r.stdout, "step 1") || strings.Contains(r.stdout, "next:") ||
			strings.TrimSpace(r.stdout) != "wrote "+dir || r.stderr != "" {
			t.Errorf("%s: exit %d\nstdout %q\nstderr %q; want only %q", q, r.code, r.stdout, r.stderr, "wrote "+dir)
		}
	}
}

// TestImportUnknownFormatIsAUsageError: llmcap import foo … exits 2 naming the
// formats (not the help and exit 0); llmcap import alone prints the help.
func TestImportUnknownFormatIsAUsageError(t *testing.T) {
	r := llmcap(t, nil, "import", "foo", "x.json", "-o", filepath.Join(t.TempDir(), "o"))
	if r.code != 2 || !strings.Contains(r.stderr, `unknown format "foo"`) || !strings.Contains(r.stderr, "aiperf, vllm-bench") {
		t.Errorf("import foo: exit %d, stderr %q; want exit 2 naming aiperf, vllm-bench", r.code, r.stderr)
	}
	if r := llmcap(t, nil, "import"); r.code != 0 || !strings.Contains(r.stdout, "Available Commands") {
		t.Errorf("import: exit %d, stdout %q; want the help", r.code, r.stdout)
	}
}

// TestImportBadSetExitsAsRunDoes: --set is the plan's override for import as for run:
// a malformed --set (no =) is a usage error (exit 2) for both, and a value the plan
// refuses (sla.ttft_ms.p95=-5) is an invalid plan (exit 1) for both, naming the key.
func TestImportBadSetExitsAsRunDoes(t *testing.T) {
	file := filepath.Join("importer", "testdata", "vllm", "rate2.json")
	for _, c := range []struct {
		set  string
		code int
		want string
	}{
		{"sla.ttft_ms.p95", 2, "want key=value"},
		{"sla.ttft_ms.p95=-5", 1, "sla.ttft_ms.p95"},
	} {
		imp := llmcap(t, nil, "import", "vllm-bench", file, "-o", filepath.Join(t.TempDir(), "o"), "--set", c.set)
		run := llmcap(t, nil, "run", "--url", "simulator", "-o", filepath.Join(t.TempDir(), "r"), "--set", c.set)
		for what, r := range map[string]result{"import": imp, "run": run} {
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%s --set %s: exit %d, stderr %q; want exit %d and %q", what, c.set, r.code, r.stderr, c.code, c.want)
			}
		}
	}
}
