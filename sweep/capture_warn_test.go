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
	i := slices.IndexFunc(m.Warnings, func(w rundir.Warning) bool { return w.Kind == rundir.WarnCaptureFailed })
	if i < 0 || m.Warnings[i].Message != want || m.Warnings[i].Step != rundir.RunWide ||
		!slices.Equal(m.Warnings[i].Data.Steps, []string{"short c=1", "short c=2"}) || m.Warnings[i].Data.Error != "before measure: boom" {
		t.Errorf("run.json warnings %+v, want a capture-failed one: %q", m.Warnings, want)
	}
}

// TestNoteCaptureResumed: a step recaptured successfully on resume leaves the warning
// of its interrupted capture; other steps' failures stay.
func TestNoteCaptureResumed(t *testing.T) {
	rn := &runner{meta: &rundir.RunMeta{Warnings: []rundir.Warning{{Kind: rundir.WarnLegacy, Step: rundir.RunWide, Message: "other"}}},
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	st := func(i, c int) plan.Step {
		return plan.Step{Index: i, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: c}
	}
	rn.noteCapture(st(0, 2), "nsys stop hung")
	rn.noteCapture(st(1, 8), "nsys stop hung")
	rn.noteCapture(st(2, 16), "capture convert: no data")
	rn.noteCapture(st(1, 8), "")
	got := strings.Join(messages(rn.meta.Warnings), " | ")
	want := "other | profile capture failed (step chat c=2): nsys stop hung | profile capture failed (step chat c=16): capture convert: no data"
	if got != want {
		t.Errorf("warnings\n got %s\nwant %s", got, want)
	}
}

// TestNoteCaptureReadsTypedFields: the steps and error of an existing capture warning
// come from its typed fields, not its wording: a warning whose message says something
// else still gets the step added and is rewritten in the standard wording.
func TestNoteCaptureReadsTypedFields(t *testing.T) {
	old := rundir.Warning{Kind: rundir.WarnCaptureFailed, Step: rundir.RunWide, Message: "captures broke somewhere",
		Data: &rundir.WarningData{Steps: []string{"chat c=2"}, Error: "nsys stop hung"}}
	rn := &runner{meta: &rundir.RunMeta{Warnings: []rundir.Warning{old}}, log: slog.New(slog.DiscardHandler)}
	rn.noteCapture(plan.Step{Index: 1, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: 8}, "nsys stop hung")
	w := rn.meta.Warnings
	if len(w) != 1 || w[0].Message != "profile capture failed (steps chat c=2, chat c=8): nsys stop hung" ||
		!slices.Equal(w[0].Data.Steps, []string{"chat c=2", "chat c=8"}) {
		t.Errorf("warnings %+v, want one capture warning for steps chat c=2 and chat c=8", w)
	}
	// A legacy string warning with the old wording is not read back as a capture warning.
	rn.meta.Warnings = []rundir.Warning{{Kind: rundir.WarnLegacy, Step: rundir.RunWide, Message: "profile capture failed (step chat c=2): nsys stop hung"}}
	rn.noteCapture(plan.Step{Index: 0, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: 2}, "")
	if len(rn.meta.Warnings) != 1 || rn.meta.Warnings[0].Kind != rundir.WarnLegacy {
		t.Errorf("legacy warning changed: %+v", rn.meta.Warnings)
	}
}

// messages are the warnings' messages.
func messages(ws []rundir.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}
