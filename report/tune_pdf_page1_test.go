package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"
)

// TestTunePDFPageOneStatesTheRecommendation: page 1 of tune-report.pdf holds the tune
// package's answer as written, the exact launch command (its wrapped lines' shell
// continuations aside), the gain, the trial counts and why the search stopped; the
// trials and the failed trials' logs follow on later pages.
func TestTunePDFPageOneStatesTheRecommendation(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	lowDPI(t)
	dir := writeTuneFixture(t)
	if _, err := WriteTune(dir, []string{"pdf"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileTunePDF)
	p1 := pdfPageText(t, path, "1")
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	cmd := tuneCommandText(tuneFixtureArgv(128, 8192, 0.9), []string{"VLLM_LOGGING_LEVEL=INFO"})
	if cmd != "VLLM_LOGGING_LEVEL=INFO vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000 --max-num-seqs 128 "+
		"--max-num-batched-tokens 8192 --gpu-memory-utilization 0.9" {
		t.Fatalf("command line %q", cmd)
	}
	for _, want := range []string{flat(tuneFixtureAnswer), "+38% users over the starting configuration",
		"10 trials: 8 measured their configuration, 2 failed", "the trial budget was used up (tune.budget.trials = 10)",
		"Trial 5's capacity is interpolated", "2 failed trials are not plotted", "Page 1 of"} {
		if !strings.Contains(p1, want) {
			t.Errorf("page 1 lacks %q:\n%s", want, p1)
		}
	}
	if !strings.Contains(strings.ReplaceAll(p1, ` \ `, " "), cmd) {
		t.Errorf("page 1 lacks the command %q:\n%s", cmd, p1)
	}
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", "-f", "2", path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	rest := flat(string(out))
	for _, want := range []string{"Every trial", "Settings and results", "max_num_seqs", "Failed trials",
		"Trial 7 (generation 2): exited", "torch.OutOfMemoryError: CUDA out of memory", "Search space"} {
		if !strings.Contains(rest, want) {
			t.Errorf("pages 2 on lack %q:\n%s", want, rest)
		}
	}
}

// TestTunePDFWithoutMeasuredTrial: when every trial failed, the PDF says there is no
// chart and no gain instead, and the charts format writes no file.
func TestTunePDFWithoutMeasuredTrial(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	dir := writeTuneFixture(t)
	trials, _, err := rundir.ReadTrials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, rundir.FileTrials)); err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		if !tr.OK() {
			if err := rundir.AppendTrial(dir, &tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	res := &rundir.TuneResult{Objectives: tuneFixtureObjectives(t, dir), Trials: 2, Recommended: -1, Baseline: -1,
		Answer: "No configuration met the SLA: both trials failed.", Stop: "interrupted"}
	if err := rundir.WriteTuneResult(dir, res); err != nil {
		t.Fatal(err)
	}
	paths, err := WriteTune(dir, []string{"charts", "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 || filepath.Base(paths[0]) != FileTunePDF {
		t.Errorf("wrote %v, want the PDF alone", paths)
	}
	p1 := pdfPageText(t, filepath.Join(dir, FileTunePDF), "1")
	for _, want := range []string{"No configuration met the SLA", "no chart, because no trial measured its configuration",
		"No gain to state: no trial measured its configuration.", "2 trials: 0 measured their configuration, 2 failed", "it was interrupted"} {
		if !strings.Contains(p1, want) {
			t.Errorf("page 1 lacks %q:\n%s", want, p1)
		}
	}
}
