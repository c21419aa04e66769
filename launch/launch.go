// Package launch starts and stops the target server: the embedded simulator's peers
// (vLLM, SGLang, llama.cpp, Ollama) when the plan has a target.launch command. The
// sweep's plain launcher and the profiles package's nsys-wrapped launcher both use it,
// so a launched server is started, awaited and stopped the same way everywhere.
package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"
)

// Defaults of the plain target.launch runner.
const (
	// DefaultReadyTimeout is how long a launched server may take to answer GET /models
	// when target.launch.ready_timeout is unset.
	DefaultReadyTimeout = 5 * time.Minute
	pollInterval        = 500 * time.Millisecond
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL.
	StopGrace = 10 * time.Second
)

// Option changes how StartProcess starts its process.
type Option func(*exec.Cmd)

// DieWithParent has the started process killed when the llmcap that started it dies
// (Linux's parent-death signal; elsewhere it does nothing).
func DieWithParent() Option { return dieWithParent }

// KillGroup sends SIGKILL to the process group led by pid (outside Unix, to the process
// pid); a group already gone is not an error.
func KillGroup(pid int) error { return killGroup(pid) }

// Process is a started server process in a process group of its own (stopping it also
// stops the workers it forks, e.g. a server started through a shell script), its output
// appended to a log file.
type Process struct {
	Cmd    *exec.Cmd
	exited chan struct{}

	mu      sync.Mutex
	exitErr error
}

// StartProcess starts argv with the current environment plus env, appending its stdout
// and stderr to logPath; with red set, through a pipe that masks red's secrets line by
// line (redact.Writer: a server printing its own arguments does not put an API key in
// server.log). Errors: the log cannot be opened, or the program cannot start.
//
// With DieWithParent the process is also killed (SIGKILL, Linux only) if the llmcap
// that started it dies, even by kill -9 (its process group's other members are not:
// `llmcap tune --resume` stops those, see KillGroup).
func StartProcess(argv, env []string, logPath string, red *redact.Redactor, opts ...Option) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("launch: no command")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("launch: open %s: %w", logPath, err)
	}
	out, copied := logf, closedChan()
	var pr *os.File
	if red != nil {
		if pr, out, err = os.Pipe(); err != nil {
			logf.Close()
			return nil, fmt.Errorf("launch: log pipe: %w", err)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	ownProcessGroup(cmd)
	for _, o := range opts {
		o(cmd)
	}
	err = cmd.Start()
	if pr != nil {
		out.Close() // the child holds its own copy of the write end
		if err != nil {
			pr.Close()
		} else {
			copied = copyRedacted(pr, logf, red)
		}
	}
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %q: %w", argv[0], err)
	}
	p := &Process{Cmd: cmd, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		select { // the log is complete unless a forked child still holds the pipe
		case <-copied:
		case <-time.After(logDrain):
		}
		if pr == nil {
			logf.Close()
		}
		close(p.exited)
	}()
	return p, nil
}

// logDrain bounds how long an ended process's exit waits for its last output to reach
// the log.
const logDrain = time.Second

// copyRedacted copies the pipe r into logf through a redact.Writer, closing both at the
// pipe's end; the returned channel is closed then.
func copyRedacted(r, logf *os.File, red *redact.Redactor) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		w := redact.NewWriter(logf, red)
		_, _ = io.Copy(w, r)
		_ = w.Close()
		r.Close()
		logf.Close()
	}()
	return done
}

// closedChan is a closed channel.
func closedChan() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Pid is the process's (and its group's) id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Exited is closed when the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr is how the process ended (nil while running or after a clean exit).
func (p *Process) ExitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitErr
}

// Stop terminates the process group (SIGTERM, then SIGKILL after grace; outside Unix the
// process is killed) and waits for the process to exit.
func (p *Process) Stop(grace time.Duration) error {
	pid := p.Pid()
	if err := terminateGroup(pid); err != nil {
		return fmt.Errorf("stop server pid %d: %w", pid, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(grace):
	}
	if err := killGroup(pid); err != nil {
		return fmt.Errorf("kill server pid %d: %w", pid, err)
	}
	<-p.exited
	return nil
}

// Command starts p.Target.Launch's command (its output goes to server.log in the run
// directory, its secrets masked), waits until GET {url}/models answers 200 or its ready_timeout (default
// DefaultReadyTimeout) passes, and returns a stop function (SIGTERM to the process group,
// SIGKILL after StopGrace). A server that is not ready is stopped before the error
// returns.
func Command(ctx context.Context, p *plan.Plan, runDir string) (stop func() error, err error) {
	l := p.Target.Launch
	if l == nil || len(l.Command) == 0 {
		return nil, errors.New("target.launch: no command")
	}
	logPath := filepath.Join(runDir, rundir.FileServerLog)
	proc, err := StartProcess(l.Command, l.Env, logPath, p.Redactor())
	if err != nil {
		return nil, fmt.Errorf("target.launch: %w", err)
	}
	stop = func() error { return proc.Stop(StopGrace) }
	timeout := l.ReadyTimeout
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	if err := WaitReady(ctx, ModelsURL(p.Target.URL), timeout, proc.Exited()); err != nil {
		stop()
		return nil, fmt.Errorf("target.launch: %w (see %s)", err, logPath)
	}
	return stop, nil
}

// WaitReady polls url (GET, every 500 ms) until it answers 200 twice in a row, one poll
// apart, with the process still running, and fails when exited is closed (the server
// process ended), ctx ends or timeout passes. The second answer guards against another
// server already on the port: a launched server that dies on "address in use" must not
// be taken for ready because its neighbour answers. Used for a launched server's
// readiness on GET {url}/models.
func WaitReady(ctx context.Context, url string, timeout time.Duration, exited <-chan struct{}) error {
	_, err := WaitReadyEvery(ctx, url, timeout, exited, pollInterval)
	return err
}

// WaitReadyEvery is WaitReady polling every interval; it also returns when the first of
// the two 200s in a row came (a server's cold start ends there).
func WaitReadyEvery(ctx context.Context, url string, timeout time.Duration, exited <-chan struct{}, interval time.Duration) (firstOK time.Time, err error) {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 5 * time.Second}
	oks := 0
	gone := errors.New("server exited before it was ready")
	for {
		select {
		case <-exited:
			return firstOK, gone
		default:
		}
		if resp, err := client.Get(url); err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			if oks++; oks == 1 {
				firstOK = time.Now()
			}
		} else {
			if err == nil {
				resp.Body.Close()
			}
			oks = 0
		}
		if oks >= 2 {
			select {
			case <-exited:
				return firstOK, gone
			default:
				return firstOK, nil
			}
		}
		if time.Now().After(deadline) {
			return firstOK, fmt.Errorf("server not ready at %s after %s", url, timeout)
		}
		select {
		case <-exited:
			return firstOK, gone
		case <-ctx.Done():
			return firstOK, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// ModelsURL is {base}/models for an OpenAI base URL ("http://h:p/v1").
func ModelsURL(base string) string { return strings.TrimRight(base, "/") + "/models" }
