package sweep

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// Defaults of the plain target.launch runner.
const (
	defaultReadyTimeout = 5 * time.Minute
	launchPollInterval  = 500 * time.Millisecond
	launchStopGrace     = 10 * time.Second
)

// launchTarget starts p.Target.Launch's command (its output goes to server.log in the
// run directory), waits until GET {url}/models answers 200 or ReadyTimeout passes, and
// returns a stop function that sends SIGTERM to the process (group) by PID, then SIGKILL
// after launchStopGrace.
func launchTarget(ctx context.Context, p *plan.Plan, runDir string) (stop func() error, err error) {
	l := p.Target.Launch
	if l == nil || len(l.Command) == 0 {
		return nil, errors.New("target.launch: no command")
	}
	logf, err := os.OpenFile(filepath.Join(runDir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("target.launch: %w", err)
	}
	cmd := exec.Command(l.Command[0], l.Command[1:]...)
	cmd.Env = append(os.Environ(), l.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("target.launch: start %q: %w", l.Command[0], err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(exited) }()
	stop = func() error { return stopProcess(cmd.Process.Pid, exited) }
	timeout := l.ReadyTimeout
	if timeout <= 0 {
		timeout = defaultReadyTimeout
	}
	if err := WaitReady(ctx, modelsURL(p.Target.URL), timeout, exited); err != nil {
		stop()
		return nil, fmt.Errorf("target.launch: %w (see %s)", err, filepath.Join(runDir, "server.log"))
	}
	return stop, nil
}

// WaitReady polls url (GET, every 500 ms) until it answers 200, and fails when exited is
// closed (the server process ended), ctx ends or timeout passes. Used for a launched
// server's readiness on GET {url}/models.
func WaitReady(ctx context.Context, url string, timeout time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server not ready at %s after %s", url, timeout)
		}
		select {
		case <-exited:
			return errors.New("server exited before it was ready")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(launchPollInterval):
		}
	}
}

// stopProcess terminates the process group of pid (SIGTERM, then SIGKILL after
// launchStopGrace; outside Unix the process is killed) and waits for it to exit.
func stopProcess(pid int, exited <-chan struct{}) error {
	if err := terminateGroup(pid); err != nil {
		return fmt.Errorf("stop server pid %d: %w", pid, err)
	}
	select {
	case <-exited:
		return nil
	case <-time.After(launchStopGrace):
	}
	if err := killGroup(pid); err != nil {
		return fmt.Errorf("kill server pid %d: %w", pid, err)
	}
	<-exited
	return nil
}

// modelsURL is {base}/models for an OpenAI base URL ("http://h:p/v1").
func modelsURL(base string) string { return strings.TrimRight(base, "/") + "/models" }
