package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
)

// TestRecordsOfNoStepOrImpossibleAreLeftOut runs a one-step sweep on the embedded
// simulator, then appends hand-edited copies of one of its records: one for step 99
// (which steps.jsonl does not have), and four with impossible values (TTFT −50 ms, E2E
// 1e308 ms, −3 output tokens, phase "bogus"). The analysis of the edited run is the
// original's — one step with the same requests and TTFT p95, no phantom step — and
// warns: four corrupt lines (damaged-lines, the first one's reason "impossible record")
// and one record of step 100 left out (unknown-steps, counted from 1).
func TestRecordsOfNoStepOrImpossibleAreLeftOut(t *testing.T) {
	p := realSimPlan()
	p.Ladder.Concurrency = []int{2}
	p.Ladder.Duration = time.Second
	p.Ladder.Warmup.Duration = 200 * time.Millisecond
	p.Ladder.Grace = 3 * time.Second
	p.Target.Simulator.SpeedUp = 8
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	orig, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, rundir.FileRecords)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	var rec map[string]any
	i := slices.IndexFunc(lines, func(l []byte) bool {
		return json.Unmarshal(l, &rec) == nil && rec["phase"] == rundir.PhaseMeasure && rec["status"] == rundir.StatusOK
	})
	if i < 0 {
		t.Fatal("no measured record")
	}
	edits := []map[string]any{{"step": 99}, {"ttft_ms": -50.0}, {"e2e_ms": 1e308}, {"output_tokens": -3}, {"phase": "bogus"}}
	for n, e := range edits {
		r := map[string]any{}
		for k, v := range rec {
			r[k] = v
		}
		r["request_id"] = "edited-" + string(rune('a'+n))
		for k, v := range e {
			r[k] = v
		}
		l, _ := json.Marshal(r)
		b = append(append(b, l...), '\n')
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Segments) != 1 || len(got.Segments[0].Steps) != 1 {
		t.Fatalf("segments %d, steps %d: want the one step the run has", len(got.Segments), len(got.Segments[0].Steps))
	}
	g, w := got.Segments[0].Steps[0], orig.Segments[0].Steps[0]
	if g.Requests != w.Requests || g.TTFTMs.P95 != w.TTFTMs.P95 || g.E2EMs.Mean != w.E2EMs.Mean || g.OutputTokenThroughput != w.OutputTokenThroughput {
		t.Errorf("edited run: %d requests, TTFT p95 %v, E2E mean %v, %v tok/s; want the original's %d, %v, %v, %v",
			g.Requests, g.TTFTMs.P95, g.E2EMs.Mean, g.OutputTokenThroughput, w.Requests, w.TTFTMs.P95, w.E2EMs.Mean, w.OutputTokenThroughput)
	}
	var damaged, unknown *Warning
	for k := range got.Warnings {
		switch got.Warnings[k].Kind {
		case WarnDamagedLines:
			damaged = &got.Warnings[k]
		case WarnUnknownSteps:
			unknown = &got.Warnings[k]
		}
	}
	if damaged == nil || damaged.Data.Count != 4 || !strings.Contains(damaged.Message, "impossible record: ttft_ms -50") {
		t.Errorf("damaged-lines warning %+v, want 4 corrupt lines, the first TTFT -50", damaged)
	}
	if unknown == nil || unknown.Data.Count != 1 || !slices.Equal(unknown.Data.Steps, []string{"100"}) ||
		!strings.HasPrefix(unknown.Message, "records.jsonl: 1 record of step 100 left out") {
		t.Errorf("unknown-steps warning %+v, want 1 record of step 100", unknown)
	}
}

// TestHugeNegativeR2ReadsShort: a failed fit's R² of −7.27e153 (two steps whose TTFT
// p95 hardly differ) is written with 3 significant digits in the fit warning and the
// summary's model line, not as a 150-digit number; ordinary values keep their decimals.
func TestHugeNegativeR2ReadsShort(t *testing.T) {
	sa := &SegmentAnalysis{Segment: "s", Fit: &Fit{R2: -7.2738542e153, Residuals: []float64{1, -1}}}
	if msg := fitWarning(sa); !strings.Contains(msg, "(R² -7.27e+153 < 0:") {
		t.Errorf("fit warning %q, want R² -7.27e+153", msg)
	}
	for r2, want := range map[float64]string{-7.2738542e153: "R² -7.27e+153 (no fit: worse than the mean TTFT p95)",
		-0.4213: "R² -0.42 (no fit: worse than the mean TTFT p95)", 0.98765: "R² 0.988"} {
		if got := r2Text(r2); got != want {
			t.Errorf("r2Text(%g) = %q, want %q", r2, got, want)
		}
	}
}
