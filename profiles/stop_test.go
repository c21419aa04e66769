package profiles

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/sweep"
)

// hangingNsys writes an nsys stand-in that behaves like Debian's nsys 2022.4 when its
// perf_event reader never ends: `nsys start` leaves a session agent (`… --start-agent
// --session-name=NAME`) holding a .qdstrm open, and `nsys stop` prints nothing and never
// returns. It returns the stand-in's path and the .qdstrm path.
func hangingNsys(t *testing.T, session string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	qd := filepath.Join(dir, "nsys-report-test.qdstrm")
	agent := filepath.Join(dir, "agent.sh")
	// The agent keeps fd 3 on the .qdstrm (as nsys's agent does) until killed.
	if err := os.WriteFile(agent, []byte("#!/bin/sh\nexec 3>>"+qd+"\nprintf 'QDSTRM partial' >&3\nwhile :; do sleep 1; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
case "$1" in
start) setsid sh ` + agent + ` --start-agent --session-name=` + session + ` </dev/null >/dev/null 2>&1 &
       echo "Collection started" ;;
stop)  exec sleep 600 ;;
--version) echo "NVIDIA Nsight Systems version 2022.4.2.1-fake" ;;
*) echo "fake nsys: $*" >&2; exit 1 ;;
esac
`
	path := filepath.Join(dir, "nsys")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, qd
}

// TestStopHangRecovers runs a real sweep (embedded simulator) whose capture's `nsys stop`
// hangs: the hang is detected after StallTimeout, the session's agent is ended, the
// .qdstrm it was writing is kept in the capture directory, the step records why the
// capture failed, the sweep completes, and a later chosen step is skipped with the reason.
func TestStopHangRecovers(t *testing.T) {
	p := capturePlan(ModeSession)
	p.Capture.SessionName = "llmcap-hang-" + filepath.Base(t.TempDir())
	p.Ladder.Concurrency = []int{1, 2, 3}
	p.Capture.Steps = nil
	p.Capture.Knee = true // every step passes the default SLA: all three are chosen
	fake, qd := hangingNsys(t, p.Capture.SessionName)
	p.Capture.NsysPath = fake
	c, err := NewCapturer(p, quiet)
	if err != nil || c.Err() != nil {
		t.Fatalf("NewCapturer: %v %v", err, c.Err())
	}
	c.nsys.StallTimeout = 300 * time.Millisecond
	defer func() { killSessionAgents(p.Capture.SessionName, time.Second) }()
	dir := t.TempDir()
	t0 := time.Now()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Hook: c, Logger: quiet}); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	t.Logf("sweep with a hung stop took %v", time.Since(t0).Round(time.Millisecond))
	defer func() { t.Logf("step 0 capture_error: %s", readSteps(t, dir)[0].CaptureError) }()
	sums := readSteps(t, dir)
	if len(sums) != 3 {
		t.Fatalf("%d steps", len(sums))
	}
	e0 := sums[0].CaptureError
	if !strings.Contains(e0, ErrStopHung.Error()) || !strings.Contains(e0, "no progress") || !strings.Contains(e0, "ended 1 nsys agent") {
		t.Errorf("step 0 capture_error %q: want the hang, detected by stall, and the agent ended", e0)
	}
	if agents := sessionAgents(p.Capture.SessionName); len(agents) != 0 {
		t.Errorf("session agents still running: %v", agents)
	}
	kept := filepath.Join(dir, StepDir(sums[0].Step), defaultCaptureRep+".qdstrm")
	if b, err := os.ReadFile(kept); err != nil || string(b) != "QDSTRM partial" {
		t.Errorf("kept .qdstrm %s: %q %v", kept, b, err)
	}
	if _, err := os.Stat(qd); !os.IsNotExist(err) {
		t.Errorf("the hung stop's .qdstrm is still at %s (%v)", qd, err)
	}
	// The partial .qdstrm is not importable (no importer, or an invalid file): said so.
	if !strings.Contains(e0, "importing what it wrote failed") {
		t.Errorf("step 0 capture_error %q: want the import failure", e0)
	}
	for _, s := range sums[1:] {
		if !strings.Contains(s.CaptureError, "capture skipped: the nsys session failed on an earlier step") {
			t.Errorf("step %d capture_error %q", s.Step.Index, s.CaptureError)
		}
	}
}

// TestStartArgsTurnOffPerfEvents checks that captures turn off CPU sampling and
// context-switch tracing (the perf_event collection that hangs nsys 2022.4's stop)
// unless capture.extra_args sets them.
func TestStartArgsTurnOffPerfEvents(t *testing.T) {
	c := &Capturer{}
	args := c.startArgs("s", "/x/capture")
	if !slices.Contains(args, "--sample=none") || !slices.Contains(args, "--cpuctxsw=none") {
		t.Errorf("default start args %v", args)
	}
	c.cfg.ExtraArgs = []string{"-s", "process-tree", "--cpuctxsw=process-tree"}
	args = c.startArgs("s", "/x/capture")
	if slices.Contains(args, "--sample=none") || slices.Contains(args, "--cpuctxsw=none") || args[len(args)-1] != "--cpuctxsw=process-tree" {
		t.Errorf("start args with extra_args %v", args)
	}
}
