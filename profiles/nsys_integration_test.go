package profiles

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"

	"github.com/google/pprof/profile"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sim"
	"github.com/llmcap/llmcap/sweep"
)

// envSimServer makes the test binary serve the engine simulator on the given address
// (the server process launched under nsys by the integration test).
const envSimServer = "LLMCAP_PROFILES_TEST_SIM_ADDR"

func TestMain(m *testing.M) {
	if addr := os.Getenv(envSimServer); addr != "" {
		os.Exit(serveSim(addr))
	}
	os.Exit(m.Run())
}

// serveSim runs the simulator until SIGTERM/SIGINT.
func serveSim(addr string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cfg := plan.Default().Target.Simulator
	cfg.SpeedUp = 20
	srv, err := sim.Start(ctx, cfg, addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve sim:", err)
		return 1
	}
	fmt.Println("simulator serving at", srv.URL())
	// Built with cgo, the simulator waits out each GPU step in libc (sim.GPUWaitCall),
	// which is what nsys's osrt trace records.
	<-ctx.Done()
	srv.Close()
	return 0
}

// needNsys skips (saying why) when nsys cannot run here.
func needNsys(t *testing.T) string {
	t.Helper()
	path, err := FindNsys("")
	if err != nil {
		t.Skipf("real nsys needed (%v); install it with scripts/install-nsys.sh", err)
	}
	if testing.Short() {
		t.Skip("-short: the real-nsys launch-mode test takes ~20 s")
	}
	return path
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestLaunchModeRealNsys runs a real sweep (sweep.Run, two concurrency steps) against
// the simulator served by a separate process that the Capturer starts under real nsys
// (launch mode, osrt trace); both steps are captured, summarised with nsys stats and
// written as CSV tables and valid pprof profiles.
func TestLaunchModeRealNsys(t *testing.T) {
	needNsys(t)
	addr := freeAddr(t)
	p := capturePlan(ModeLaunch)
	p.Target.URL = "http://" + addr + "/v1"
	p.Target.Model = p.Target.Simulator.Model
	p.Target.Launch = &plan.Launch{Command: []string{os.Args[0], "-test.run=^$"},
		Env: []string{envSimServer + "=" + addr}, ReadyTimeout: time.Minute}
	p.Ladder.Requests = 12
	p.Ladder.Warmup = plan.Warmup{Requests: 2}
	// Both steps: two start/stop cycles in one launched session (with CPU sampling and
	// context-switch tracing on, nsys 2022.4 hung in a third of such stops).
	p.Capture.Steps = []plan.CaptureStep{{Segment: "chat"}}
	c, err := NewCapturer(p, quiet)
	if err != nil || c.Err() != nil {
		t.Fatalf("NewCapturer: %v %v", err, c.Err())
	}
	c.nsys.StallTimeout = 30 * time.Second // fail, not hang, if nsys misbehaves
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Hook: c, Launcher: c, Logger: quiet}); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	sums := readSteps(t, dir)
	if len(sums) != 2 {
		t.Fatalf("%d steps", len(sums))
	}
	for _, s := range sums {
		if sim.GPUWaitCall == "" {
			// Built without cgo the simulator makes no libc calls: each capture says so.
			t.Logf("built without cgo: step %d capture_error %q", s.Step.Index, s.CaptureError)
			if !strings.Contains(s.CaptureError, "no GPU kernel, CUDA API or OS runtime data") {
				t.Errorf("step %d capture_error %q, want the missing data named", s.Step.Index, s.CaptureError)
			}
			continue
		}
		if s.CaptureError != "" || s.Captured != StepDir(s.Step) {
			t.Fatalf("step %d: captured %q error %q", s.Step.Index, s.Captured, s.CaptureError)
		}
		d := filepath.Join(dir, s.Captured)
		checkCaptureDir(t, d, s.Step)
		var cs Summary
		readJSON(t, filepath.Join(d, FileCaptureJSON), &cs)
		if cs.DurationNs < minCaptureWindow.Nanoseconds() || cs.Report != "capture.nsys-rep" || cs.StopHung != "" {
			t.Errorf("step %d capture.json: window %d ns report %q stop_hung %q", s.Step.Index, cs.DurationNs, cs.Report, cs.StopHung)
		}
		checkGPUWaitRow(t, filepath.Join(d, cs.Tables[KindOSRT]), p.Ladder.Requests)
	}
	var li LaunchInfo
	readJSON(t, filepath.Join(dir, "profiles", FileLaunchJSON), &li)
	if li.Session == "" || li.ColdStartS <= 0 || li.ColdStartS > 60 || li.ServerPID <= 0 || li.PeakRSSBytes < 1<<20 {
		t.Errorf("launch.json: %+v", li)
	}
	if pidAlive(li.ServerPID) {
		t.Errorf("server pid %d still running after stop", li.ServerPID)
	}
	t.Logf("cold start %.2f s, peak RSS %.1f MiB", li.ColdStartS, float64(li.PeakRSSBytes)/(1<<20))
}

// checkGPUWaitRow checks that the osrt table holds the simulator's GPU-step wait
// (sim.GPUWaitCall, built with cgo) at least once per measured request.
func checkGPUWaitRow(t *testing.T, path string, requests int) {
	t.Helper()
	b, _ := os.ReadFile(path)
	t.Logf("%s:\n%s", filepath.Base(path), b)
	rows, err := ReadStatsCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rows, func(r StatRow) bool { return r.Name == sim.GPUWaitCall })
	if i < 0 || rows[i].Count < int64(requests) || rows[i].TotalNs <= 0 {
		t.Errorf("osrt table has no %s row with ≥ %d calls: %+v", sim.GPUWaitCall, requests, rows)
	}
}

// checkCaptureDir checks one capture: the report, a real osrt table, a valid osrt
// profile and capture.json naming the step.
func checkCaptureDir(t *testing.T, d string, st plan.Step) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(d, "capture.nsys-rep")); err != nil {
		t.Error(err)
	}
	var s Summary
	readJSON(t, filepath.Join(d, FileCaptureJSON), &s)
	if s.Step != st.Index || s.Generation == "" || !strings.Contains(s.NsysVersion, "Nsight Systems") || s.OSRTTimeNs <= 0 {
		t.Errorf("capture.json: %+v", s)
	}
	rows, err := ReadStatsCSV(filepath.Join(d, s.Tables[KindOSRT]))
	if err != nil || len(rows) == 0 {
		t.Fatalf("osrt table: %d rows, %v", len(rows), err)
	}
	b, err := os.ReadFile(filepath.Join(d, FileOSRTPprof))
	if err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(bytes.NewReader(b))
	if err != nil || prof.CheckValid() != nil || prof.DefaultSampleType != SampleOSTime || len(prof.Sample) != len(MergeByName(rows)) {
		t.Fatalf("osrt profile: %v samples %d rows %d", err, len(prof.Sample), len(rows))
	}
	root := prof.Sample[0].Location[2].Line[0].Function.Name
	if root != phaseOf(st) {
		t.Errorf("phase frame %q, want %q", root, phaseOf(st))
	}
}

func readSteps(t *testing.T, dir string) []rundir.StepSummary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rundir.FileSteps))
	if err != nil {
		t.Fatal(err)
	}
	var out []rundir.StepSummary
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s rundir.StepSummary
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestConvertRecordedReportRealNsys runs the real `nsys stats` on a recorded report
// (testdata/osrt-2022.4-http-server.nsys-rep: nsys 2022.4, --trace=osrt, a Python HTTP
// server under load) and checks the tables and the OS-runtime profile it yields.
func TestConvertRecordedReportRealNsys(t *testing.T) {
	path := needNsys(t)
	dir := t.TempDir()
	rep := filepath.Join(dir, "capture.nsys-rep")
	b, err := os.ReadFile("testdata/osrt-2022.4-http-server.nsys-rep")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rep, b, 0o644); err != nil {
		t.Fatal(err)
	}
	st := plan.Step{Index: 4, Segment: "chat", Schedule: plan.ScheduleConcurrency, Concurrency: 8}
	s, err := ConvertReport(context.Background(), NewNsys(path), rep, dir, Summary{Step: 4, Phase: phaseOf(st)})
	if err != nil {
		t.Fatal(err)
	}
	if s.GPUTimeNs != 0 || len(s.Profiles) != 1 || s.Profiles[0] != FileOSRTPprof {
		t.Errorf("summary: %+v", s)
	}
	checkCaptureDir(t, dir, st)
	rows, _ := ReadStatsCSV(filepath.Join(dir, s.Tables[KindOSRT]))
	if rows[0].Name != "poll" || rows[0].Count != 1 {
		t.Errorf("largest OS runtime call %+v, want the server's poll", rows[0])
	}
}
