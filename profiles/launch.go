package profiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/llmcap/llmcap/launch"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"
)

// Launch-mode defaults.
const (
	rssPollInterval = 500 * time.Millisecond
	// FileLaunchJSON (in runDir/profiles) records the launched server's cold start and
	// peak RSS.
	FileLaunchJSON = rundir.FileLaunchJSON
)

// LaunchInfo is profiles/launch.json (rundir owns the file type).
type LaunchInfo = rundir.LaunchInfo

// launched is the state of a server started by Start.
type launched struct {
	proc   *launch.Process
	exited <-chan struct{} // proc.Exited()
	path   string          // launch.json

	stopOnce sync.Once
	stopErr  error

	mu   sync.Mutex
	info LaunchInfo
	tree map[int]bool // server-tree pids seen (nsys processes excluded)
	done chan struct{}
}

// serverStopGrace is how long stop waits for the server to end after `nsys shutdown`,
// and after SIGTERM, before escalating (a variable for tests).
var serverStopGrace = 15 * time.Second

// noSessionStopGrace is how long stop waits after SIGTERM for a server started without
// nsys (no session to shut down) before SIGKILL (a variable for tests).
var noSessionStopGrace = 5 * time.Second

// launchAttempts is how often Start runs `nsys launch` when it ends before the server
// is ready: nsys 2022.4 sometimes fails at startup (a sem_open ENOENT thrown from its
// ProcessWaiter, seen when another nsys session started at the same moment).
const launchAttempts = 2

// Start launches the target server (launch mode): `nsys launch --session-new=NAME
// --trace=TRACE <target.launch.command>` with output to runDir/server.log, waits until
// GET {target.url}/models answers 200 (target.launch.ready_timeout, default 5m), and
// samples the server tree's peak RSS. When nsys ends before the server is ready it tries
// once more with a new session. Without nsys it starts the plain command (captures
// then fail with the nsys error). The returned stop stops any capture, shuts the session
// down (`nsys shutdown`), ends the server and writes profiles/launch.json.
func (c *Capturer) Start(ctx context.Context, p *plan.Plan, runDir string) (func() error, error) {
	l := p.Target.Launch
	if l == nil || len(l.Command) == 0 {
		return nil, errors.New("capture launch: target.launch.command is empty")
	}
	if err := os.MkdirAll(filepath.Join(runDir, rundir.DirProfiles), 0o755); err != nil {
		return nil, fmt.Errorf("capture launch: %w", err)
	}
	var la *launched
	for attempt := 1; ; attempt++ {
		var early bool
		var err error
		la, early, err = c.launchOnce(ctx, p, runDir)
		if err == nil {
			break
		}
		if !early || c.nsys == nil || attempt >= launchAttempts || errors.Is(err, ErrNsysUsage) {
			return nil, err
		}
		c.log.Warn("capture launch: nsys ended before the server was ready; retrying with a new session", "attempt", attempt, "err", err)
	}
	c.mu.Lock()
	c.launch = la
	c.session = la.info.Session
	c.mu.Unlock()
	c.log.Info("capture launch: server ready", "cold_start_s", la.info.ColdStartS, "session", la.info.Session)
	_ = la.write()
	return func() error { return c.stopLaunched(la) }, nil
}

// launchOnce starts the server (under nsys when available) and waits until it is ready;
// early reports that the launched process ended before that.
func (c *Capturer) launchOnce(ctx context.Context, p *plan.Plan, runDir string) (*launched, bool, error) {
	l := p.Target.Launch
	la := &launched{done: make(chan struct{}), tree: map[int]bool{},
		path: filepath.Join(runDir, "profiles", FileLaunchJSON)}
	argv := l.Command
	if c.nsys != nil {
		la.info.Session = fmt.Sprintf("llmcap-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)
		// No --show-output flag: with it (true or false) nsys 2022.4's later `nsys stop`
		// hangs; its default already copies the server's output to server.log.
		argv = append([]string{c.nsys.Path, "launch", "--session-new=" + la.info.Session,
			"--trace=" + c.cfg.Trace}, l.Command...)
	} else if c.nsysErr != nil {
		la.info.NsysError = c.nsysErr.Error()
		c.log.Warn("capture launch: starting the server without nsys", "err", c.nsysErr)
	}
	red := p.Redactor()
	la.info.Command, _ = redact.Argv(argv) // launch.json: the command without its secrets
	la.info.Command = red.Strings(la.info.Command)
	logPath := filepath.Join(runDir, rundir.FileServerLog)
	var logStart int64 // this attempt's output starts here (server.log is appended to)
	if st, err := os.Stat(logPath); err == nil {
		logStart = st.Size()
	}
	if err := la.startProcess(argv, l.Env, logPath, red); err != nil {
		return nil, false, fmt.Errorf("capture launch: %w", err)
	}
	t0 := time.Now()
	go la.sampleRSS()
	timeout := l.ReadyTimeout
	if timeout <= 0 {
		timeout = launch.DefaultReadyTimeout
	}
	if err := launch.WaitReady(ctx, launch.ModelsURL(p.Target.URL), timeout, la.exited); err != nil {
		early := false
		select {
		case <-la.exited:
			early = true
		default:
		}
		_ = c.stopLaunched(la)
		b := readFrom(logPath, logStart)
		if early && c.nsys != nil && nsysUsageError(b) {
			err = fmt.Errorf("%w (check capture.trace and capture.extra_args): %w", ErrNsysUsage, err)
		}
		return nil, early, fmt.Errorf("capture launch: %w (%s ends: %s)", err, logPath, tail(b))
	}
	la.mu.Lock()
	la.info.ColdStartS = time.Since(t0).Seconds()
	la.mu.Unlock()
	return la, false, nil
}

// ErrNsysUsage is returned (wrapped) when `nsys launch` rejected its arguments (it
// printed its usage): launching again would fail the same way, so Start does not retry.
var ErrNsysUsage = errors.New("nsys rejected its arguments")

// nsysUsageError reports whether nsys output is a usage error ("Illegal --trace
// argument …", "usage: nsys launch …").
func nsysUsageError(out []byte) bool {
	return bytes.Contains(out, []byte("usage: nsys")) || bytes.Contains(out, []byte("Illegal --"))
}

// readFrom returns the contents of path from byte offset off ("" on error).
func readFrom(path string, off int64) []byte {
	b, _ := os.ReadFile(path)
	if off > 0 && off <= int64(len(b)) {
		b = b[off:]
	}
	return b
}

// Launched returns the launch record so far (zero before Start).
func (c *Capturer) Launched() LaunchInfo {
	c.mu.Lock()
	la := c.launch
	c.mu.Unlock()
	if la == nil {
		return LaunchInfo{}
	}
	la.mu.Lock()
	defer la.mu.Unlock()
	return la.info
}

// startProcess starts argv (nsys wrapping the server, or the server alone) through the
// shared launcher, its output appended to logPath.
func (la *launched) startProcess(argv, env []string, logPath string, red *redact.Redactor) error {
	proc, err := launch.StartProcess(argv, env, logPath, red)
	if err != nil {
		return err
	}
	la.proc, la.exited = proc, proc.Exited()
	return nil
}

// sampleRSS records the server tree's peak RSS until done or the process exits.
func (la *launched) sampleRSS() {
	t := time.NewTicker(rssPollInterval)
	defer t.Stop()
	for {
		la.sampleOnce()
		select {
		case <-la.done:
			return
		case <-la.exited:
			return
		case <-t.C:
		}
	}
}

func (la *launched) sampleOnce() {
	procs := processTree(la.proc.Pid())
	var hwm int64
	first := 0
	for _, pr := range procs {
		if strings.HasPrefix(pr.comm, "nsys") || pr.comm == "QdstrmImporter" {
			continue
		}
		if first == 0 || pr.pid < first {
			first = pr.pid
		}
		hwm += pr.hwmBytes
	}
	la.mu.Lock()
	defer la.mu.Unlock()
	for _, pr := range procs {
		if !strings.HasPrefix(pr.comm, "nsys") {
			la.tree[pr.pid] = true
		}
	}
	if la.info.ServerPID == 0 && first != 0 {
		la.info.ServerPID = first
	}
	la.info.PeakRSSBytes = max(la.info.PeakRSSBytes, hwm)
}

// stopLaunched stops any capture, shuts the nsys session down, ends the server tree
// and writes launch.json.
func (c *Capturer) stopLaunched(la *launched) error {
	la.stopOnce.Do(func() { la.stopErr = c.stopLaunchedOnce(la) })
	return la.stopErr
}

func (c *Capturer) stopLaunchedOnce(la *launched) error {
	ctx := context.Background()
	c.stopActive(ctx)
	la.sampleOnce()
	close(la.done)
	var errs []error
	termGrace := serverStopGrace
	if la.info.Session != "" && c.nsys != nil {
		if _, err := c.nsys.run(ctx, nsysQuickTimeout, "shutdown", "--session="+la.info.Session); err != nil {
			errs = append(errs, err)
		}
		// `nsys shutdown` ends the server itself (and writes what nsys collected): let it.
		select {
		case <-la.exited:
		case <-time.After(serverStopGrace):
		}
	} else {
		// No nsys session (nsys unavailable): nothing will end the server but us.
		termGrace = noSessionStopGrace
	}
	la.killTree(syscall.SIGTERM)
	select {
	case <-la.exited:
	case <-time.After(termGrace):
		la.killTree(syscall.SIGKILL)
		<-la.exited
	}
	// The server is nsys's child, not ours: it can outlive the launcher briefly.
	if !la.waitTreeGone(serverStopGrace) {
		la.killTree(syscall.SIGKILL)
		la.waitTreeGone(serverStopGrace)
	}
	if la.info.Session != "" {
		for _, pid := range sessionAgents(la.info.Session) { // left behind by a hung stop
			_ = sendSignal(pid, syscall.SIGKILL)
		}
	}
	if err := la.write(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// killTree signals the launch process group and every server-tree pid seen (nsys
// gives the server its own process group).
func (la *launched) killTree(sig syscall.Signal) {
	_ = sendSignal(-la.proc.Pid(), sig)
	la.mu.Lock()
	pids := make([]int, 0, len(la.tree))
	for pid := range la.tree {
		pids = append(pids, pid)
	}
	la.mu.Unlock()
	for _, pid := range pids {
		_ = sendSignal(pid, sig)
	}
}

// waitTreeGone waits up to d for every server-tree pid seen to end (a zombie counts as
// ended); it reports whether they all did.
func (la *launched) waitTreeGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		la.mu.Lock()
		alive := false
		for pid := range la.tree {
			alive = alive || pidAlive(pid)
		}
		la.mu.Unlock()
		if !alive {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pidAlive reports whether pid is a running (not zombie) process, from /proc/PID/stat.
func pidAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')') // the state follows the parenthesised command name
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

func (la *launched) write() error {
	la.mu.Lock()
	if la.proc != nil && la.info.ExitError == "" {
		if err := la.proc.ExitErr(); err != nil {
			la.info.ExitError = err.Error()
		}
	}
	info := la.info
	la.mu.Unlock()
	return writeJSON(la.path, info)
}
