//go:build unix

package launch

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// TestStopEndsTheProcessGroup: Stop ends the launched shell and the child it forked
// (the group), and the log holds the process's output.
func TestStopEndsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	pidFile := filepath.Join(dir, "child.pid")
	p, err := StartProcess([]string{"sh", "-c", "echo started; sleep 60 & echo $! > " + pidFile + "; wait"}, nil, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 1 {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if child == 0 || !alive(child) {
		t.Fatalf("child pid %d not running", child)
	}
	if err := p.Stop(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("Stop returned before the process exited")
	}
	for deadline := time.Now().Add(2 * time.Second); alive(child) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(child) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Error("the forked child outlived Stop")
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "started") {
		t.Errorf("server.log = %q, want the process's output", b)
	}
}

// TestCommandWaitsForModels: Command returns once GET {url}/models answers 200, and
// fails (naming the log) when the process exits before it is ready, even while another
// server already answers on the URL (a launched server that lost the port).
func TestCommandWaitsForModels(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-ready:
			if r.URL.Path == "/v1/models" {
				w.Write([]byte(`{"data":[]}`))
				return
			}
		default:
		}
		http.Error(w, "loading", http.StatusServiceUnavailable)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	time.AfterFunc(700*time.Millisecond, func() { close(ready) })
	dir := t.TempDir()
	p := &plan.Plan{Target: plan.Target{URL: "http://" + ln.Addr().String() + "/v1",
		Launch: &plan.Launch{Command: []string{"sleep", "30"}, ReadyTimeout: 10 * time.Second}}}
	start := time.Now()
	stop, err := Command(context.Background(), p, dir)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 600*time.Millisecond {
		t.Errorf("Command returned after %v, before the server answered 200", waited)
	}
	if err := stop(); err != nil {
		t.Error(err)
	}
	p.Target.Launch.Command = []string{"sh", "-c", "echo dying; exit 3"}
	_, err = Command(context.Background(), p, dir)
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") && !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("a process that exits: %v, want a readiness failure", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(dir, "server.log")) {
		t.Errorf("error %q does not name the server log", err)
	}
}
