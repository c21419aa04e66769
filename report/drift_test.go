package report

import (
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// driftAnalysis sweeps a one-step plan with the drift probe against the simulator
// (fraction of prompts nondeterministic) and analyses it.
func driftAnalysis(t *testing.T, fraction float64) (string, *analysis.Analysis) {
	t.Helper()
	p := &plan.Plan{Name: "drift", Seed: 5,
		Target: plan.Target{URL: plan.TargetSimulator, API: "chat", Model: "llama-3.2-1b",
			ExtraBody: map[string]any{"ignore_eos": true},
			Simulator: plan.Simulator{GPU: "H200", Model: "llama-3.2-1b", MaxNumSeqs: 64, MaxNumBatchedTokens: 8192,
				GPUMemoryUtilization: 0.9, BlockSize: 16, SpeedUp: 200, NondeterministicFraction: fraction},
			MetricsInterval: 100 * time.Millisecond},
		Segments: []plan.Segment{{Name: "chat", Weight: 1, PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 32},
			OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 16}}},
		Ladder: plan.Ladder{Concurrency: []int{2}, Requests: 8, Grace: 10 * time.Second},
		SLA:    plan.SLA{MaxErrorRate: 0.01},
		Report: plan.Report{Headroom: 0.2},
		Drift:  &plan.Drift{Seed: 1234, MaxTokens: 64, Repeats: 2, Concurrency: 4},
	}
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, a
}

// TestDriftSectionInEveryReport: the Markdown, HTML and PDF reports of a run against a
// simulator with 20% nondeterministic prompts say, in the analysis's words, how many of
// the 50 outputs changed and that the server is not deterministic, and list where; with
// 0% they say it is deterministic.
func TestDriftSectionInEveryReport(t *testing.T) {
	lowDPI(t)
	for _, fraction := range []float64{0.2, 0} {
		dir, a := driftAnalysis(t, fraction)
		want := "this server is not deterministic"
		if fraction == 0 {
			want = "All 50 outputs were identical between repeats at temperature 0 (seed 1234, 64 tokens): this server is deterministic."
		}
		if !strings.Contains(a.Drift.Text, want) {
			t.Fatalf("fraction %g: drift text %q lacks %q", fraction, a.Drift.Text, want)
		}
		if err := Write(dir, a, []string{"md", "html", "pdf"}); err != nil {
			t.Fatal(err)
		}
		md := readText(t, filepath.Join(dir, FileMarkdown))
		page := html.UnescapeString(readText(t, filepath.Join(dir, FileHTML)))
		for name, text := range map[string]string{"summary.md": strings.ReplaceAll(md, `\`, ""), "report.html": page} {
			if !strings.Contains(text, driftHeading) || !strings.Contains(text, a.Drift.Text) {
				t.Errorf("fraction %g: %s lacks the drift section %q", fraction, name, a.Drift.Text)
			}
			if changes := strings.Count(text, "differs at character"); changes != len(a.Drift.Changed) {
				t.Errorf("fraction %g: %s lists %d changes; want %d", fraction, name, changes, len(a.Drift.Changed))
			}
		}
		if _, err := exec.LookPath("pdftotext"); err != nil {
			continue // the PDF's words are checked where poppler is installed
		}
		out, err := exec.Command("pdftotext", "-enc", "UTF-8", filepath.Join(dir, FilePDF), "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		if flat := strings.Join(strings.Fields(string(out)), " "); !strings.Contains(flat, a.Drift.Text) {
			t.Errorf("fraction %g: the PDF lacks %q", fraction, a.Drift.Text)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
