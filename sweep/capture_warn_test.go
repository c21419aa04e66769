package sweep

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// TestCaptureFailureWarning: a sweep whose captures fail says so in run.json's warnings
// (one warning per error, naming the steps), which the analysis and the CLI summary show.
func TestCaptureFailureWarning(t *testing.T) {
	srv := newRTServer(t, 0, 0)
	p := rtPlan(srv.url())
	p.Ladder.Concurrency = []int{1, 2}
	p.Ladder.Requests = 4
	dir := t.TempDir()
	if err := Run(context.Background(), p, Options{OutDir: dir, Hook: &rtHook{failBefore: true}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.FileRun))
	if err != nil {
		t.Fatal(err)
	}
	var m rundir.RunMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := "profile capture failed (steps short c=1, short c=2): before measure: boom"
	if !slices.Contains(m.Warnings, want) {
		t.Errorf("run.json warnings %q, want %q", m.Warnings, want)
	}
}

// TestNoteCaptureResumed: a step recaptured successfully on resume leaves the warning
// of its interrupted capture; other steps' failures stay.
func TestNoteCaptureResumed(t *testing.T) {
	rn := &runner{meta: &rundir.RunMeta{Warnings: []string{"other"}}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	st := func(i, c int) plan.Step {
		return plan.Step{Index: i, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: c}
	}
	rn.noteCapture(st(0, 2), "nsys stop hung")
	rn.noteCapture(st(1, 8), "nsys stop hung")
	rn.noteCapture(st(2, 16), "capture convert: no data")
	rn.noteCapture(st(1, 8), "")
	got := strings.Join(rn.meta.Warnings, " | ")
	want := "other | profile capture failed (step chat c=2): nsys stop hung | profile capture failed (step chat c=16): capture convert: no data"
	if got != want {
		t.Errorf("warnings\n got %s\nwant %s", got, want)
	}
}
