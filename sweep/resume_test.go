package sweep

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// Environment of the resume test's child process (this test binary re-executed).
const (
	rtEnvDir = "LLMCAP_RT_RESUME_DIR"
	rtEnvURL = "LLMCAP_RT_RESUME_URL"
)

// TestResumeChild is the child half of TestKill9ThenResume: it runs the sweep until the
// parent kills it. It does nothing when run normally.
func TestResumeChild(t *testing.T) {
	dir, url := os.Getenv(rtEnvDir), os.Getenv(rtEnvURL)
	if dir == "" {
		t.Skip("child process of TestKill9ThenResume only")
	}
	if err := Run(context.Background(), rtResumePlan(url), Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
}

func rtResumePlan(url string) *plan.Plan {
	p := rtPlan(url)
	p.Ladder.Concurrency = []int{2, 3, 4}
	p.Ladder.Requests = 30
	p.Ladder.Warmup.Requests = 2
	return p
}

func TestKill9ThenResume(t *testing.T) {
	srv := newRTServer(t, 10*time.Millisecond, 20*time.Millisecond)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestResumeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), rtEnvDir+"="+dir, rtEnvURL+"="+srv.url())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once step 0 is finished and step 1 has sent a few requests.
	deadline := time.Now().Add(60 * time.Second)
	var base int
	for {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("child never reached step 1; output:\n%s", out.String())
		}
		b, _ := os.ReadFile(filepath.Join(dir, rundir.FileSteps))
		_, total := srv.stats()
		if n := bytes.Count(b, []byte("\n")); n >= 1 {
			if n > 1 {
				t.Fatalf("child finished step 1 before the kill; make the steps longer")
			}
			if base == 0 {
				base = total
			} else if total >= base+8 {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	before, steps0, meta0 := rtRead(t, dir)
	if len(steps0) != 1 || meta0.State != rundir.StateRunning {
		t.Fatalf("after kill: %d steps, state %q", len(steps0), meta0.State)
	}
	// Simulate a crash between a step's records and its summary (a complete record of
	// the unfinished step 1, e.g. left by an interrupt), then a write torn by the crash.
	f, err := os.OpenFile(filepath.Join(dir, rundir.FileRecords), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "{\"run_id\":%q,\"step\":1,\"request_id\":\"s0001-r000000\",\"status\":\"error\"}\n", meta0.RunID)
	fmt.Fprint(f, `{"run_id":"torn","step":1,"phase":"mea`)
	f.Close()

	if err := Run(context.Background(), rtResumePlan(srv.url()), Options{OutDir: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	recs, steps, meta := rtRead(t, dir)
	checkResumed(t, before, recs, steps)
	if meta.State != rundir.StateComplete || meta.RunID != meta0.RunID {
		t.Errorf("run.json after resume: state %q run %q (was %q)", meta.State, meta.RunID, meta0.RunID)
	}
}

// checkResumed asserts every step exactly once, every finished step's records kept from
// before the kill, and no record lost or duplicated.
func checkResumed(t *testing.T, before, recs []rundir.Record, steps []rundir.StepSummary) {
	t.Helper()
	if len(steps) != 3 {
		t.Fatalf("%d step summaries, want 3", len(steps))
	}
	for i, s := range steps {
		if s.Index != i {
			t.Fatalf("steps.jsonl order %v", steps)
		}
	}
	ids := map[string]bool{}
	perStep := map[int]int{}
	for _, r := range recs {
		if ids[r.RequestID] {
			t.Fatalf("duplicated record %s", r.RequestID)
		}
		ids[r.RequestID] = true
		perStep[r.Step]++
		if !r.OK() {
			t.Errorf("failed record %+v", r)
		}
	}
	for _, s := range steps {
		if n := s.WarmupRequests + s.MeasureRequests + s.GraceRequests; perStep[s.Index] != n || s.MeasureRequests != 30 {
			t.Errorf("step %d: %d records, summary counts %d (measure %d)", s.Index, perStep[s.Index], n, s.MeasureRequests)
		}
	}
	kept := 0
	for _, r := range before {
		if r.Step == 0 {
			if !ids[r.RequestID] {
				t.Errorf("record %s of the finished step 0 lost", r.RequestID)
			}
			kept++
		}
	}
	if kept != perStep[0] {
		t.Errorf("step 0 had %d records before the kill, %d after", kept, perStep[0])
	}
}
