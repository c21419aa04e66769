package profiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sweep"
)

// flakyLaunchNsys writes an nsys stand-in whose first `nsys launch` fails at once with
// the error nsys 2022.4 printed when it lost a startup race (sem_open ENOENT in its
// ProcessWaiter); later launches run the server command. Other sub-commands succeed.
func flakyLaunchNsys(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	marker := filepath.Join(dir, "failed-once")
	script := `#!/bin/sh
case "$1" in
launch)
	if [ ! -e ` + marker + ` ]; then
		touch ` + marker + `
		echo "ProcessWaiterImpl.cpp(166): Throw in function QuadDCommon::ProcessWaiter::ProcessWaiterImpl" >&2
		echo "[boost::errinfo_api_function_*] = sem_open" >&2
		exit 1
	fi
	shift; shift; shift   # launch --session-new=NAME --trace=TRACE
	exec "$@" ;;
*) exit 0 ;;
esac
`
	path := filepath.Join(dir, "nsys")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLaunchRetriesFailedNsysLaunch: when `nsys launch` ends before the server is
// ready, Start launches once more with a new session and the sweep runs against the
// server (a separate simulator process).
func TestLaunchRetriesFailedNsysLaunch(t *testing.T) {
	addr := freeAddr(t)
	p := capturePlan(ModeLaunch)
	p.Target.URL = "http://" + addr + "/v1"
	p.Target.Model = p.Target.Simulator.Model
	p.Target.Launch = &plan.Launch{Command: []string{os.Args[0], "-test.run=^$"},
		Env: []string{envSimServer + "=" + addr}, ReadyTimeout: time.Minute}
	p.Capture.NsysPath = flakyLaunchNsys(t)
	p.Capture.Steps = []plan.CaptureStep{{Segment: "none"}} // capture nothing
	c, err := NewCapturer(p, quiet)
	if err != nil || c.Err() != nil {
		t.Fatalf("NewCapturer: %v %v", err, c.Err())
	}
	// The stand-in's `nsys shutdown` does not end the server: SIGTERM it soon.
	defer func(g time.Duration) { serverStopGrace = g }(serverStopGrace)
	serverStopGrace = 500 * time.Millisecond
	dir := t.TempDir()
	if err := sweep.Run(context.Background(), p, sweep.Options{OutDir: dir, Hook: c, Launcher: c, Logger: quiet}); err != nil {
		t.Fatalf("sweep: %v", err)
	}
	sums := readSteps(t, dir)
	if len(sums) != 2 || sums[1].MeasureRequests != p.Ladder.Requests {
		t.Errorf("steps: %+v", sums)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	if strings.Count(string(log), "sem_open") != 1 || !strings.Contains(string(log), "simulator serving at") {
		t.Errorf("server.log: want one failed launch, then the server:\n%s", log)
	}
	var li LaunchInfo
	readJSON(t, filepath.Join(dir, "profiles", FileLaunchJSON), &li)
	if li.Session == "" || li.ColdStartS <= 0 || li.ServerPID <= 0 {
		t.Errorf("launch.json: %+v", li)
	}
}

// TestLaunchWithoutNsysStopsPromptly: with nsys unavailable the server runs without a
// session; stopping it must SIGTERM it at once instead of first waiting serverStopGrace
// for an `nsys shutdown` that never happened.
func TestLaunchWithoutNsysStopsPromptly(t *testing.T) {
	addr := freeAddr(t)
	p := capturePlan(ModeLaunch)
	p.Target.URL = "http://" + addr + "/v1"
	p.Target.Launch = &plan.Launch{Command: []string{os.Args[0], "-test.run=^$"},
		Env: []string{envSimServer + "=" + addr}, ReadyTimeout: time.Minute}
	p.Capture.NsysPath = "/nonexistent/nsys"
	c, err := NewCapturer(p, quiet)
	if err != nil || c.Err() == nil {
		t.Fatalf("NewCapturer: %v, Err() %v", err, c.Err())
	}
	defer func(g time.Duration) { serverStopGrace = g }(serverStopGrace)
	serverStopGrace = 30 * time.Second
	dir := t.TempDir()
	stop, err := c.Start(context.Background(), p, dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if took := time.Since(t0); took >= serverStopGrace/2 {
		t.Errorf("stopping a server without an nsys session took %s (serverStopGrace %s)", took, serverStopGrace)
	}
	var li LaunchInfo
	readJSON(t, filepath.Join(dir, "profiles", FileLaunchJSON), &li)
	if li.Session != "" || !strings.Contains(li.NsysError, "capture.nsys_path") || li.ServerPID <= 0 {
		t.Errorf("launch.json: %+v", li)
	}
}

// TestLaunchUsageErrorNotRetried: `nsys launch` rejecting its arguments (capture.trace
// bogus) fails Start at once, without a second launch that would print the usage again.
func TestLaunchUsageErrorNotRetried(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "launches")
	script := `#!/bin/sh
case "$1" in
launch)
	echo x >> ` + count + `
	echo "Illegal --trace argument 'bogus'" >&2
	echo "usage: nsys launch [<args>] [application] [<application args>]" >&2
	exit 1 ;;
*) exit 0 ;;
esac
`
	nsys := filepath.Join(dir, "nsys")
	if err := os.WriteFile(nsys, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := capturePlan(ModeLaunch)
	p.Target.URL = "http://" + freeAddr(t) + "/v1"
	p.Target.Launch = &plan.Launch{Command: []string{"/bin/true"}, ReadyTimeout: time.Minute}
	p.Capture.NsysPath, p.Capture.Trace = nsys, "bogus"
	c, err := NewCapturer(p, quiet)
	if err != nil || c.Err() != nil {
		t.Fatalf("NewCapturer: %v %v", err, c.Err())
	}
	defer func(g time.Duration) { serverStopGrace = g }(serverStopGrace)
	serverStopGrace = 500 * time.Millisecond
	runDir := t.TempDir()
	_, err = c.Start(context.Background(), p, runDir)
	if !errors.Is(err, ErrNsysUsage) || !strings.Contains(err.Error(), "capture.trace") {
		t.Fatalf("Start err = %v, want ErrNsysUsage naming capture.trace", err)
	}
	if b, _ := os.ReadFile(count); strings.Count(string(b), "x") != 1 {
		t.Errorf("nsys launch ran %d times, want 1", strings.Count(string(b), "x"))
	}
	if log, _ := os.ReadFile(filepath.Join(runDir, "server.log")); strings.Count(string(log), "usage: nsys") != 1 {
		t.Errorf("server.log:\n%s", log)
	}
}
