package tune

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmcap/llmcap/launch"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"
)

// server is one trial's launched server and its memory watch.
type server struct {
	proc    *launch.Process
	started time.Time
	grace   time.Duration

	stopWatch chan struct{}
	watched   sync.WaitGroup
	mu        sync.Mutex
	peakRSS   uint64
	peakGPU   float64
	gpuSource string
}

// rssEvery and gpuEvery are how often the server's memory is sampled.
const (
	rssEvery = 250 * time.Millisecond
	gpuEvery = 2 * time.Second
	// readyPoll is how often a trial's server is asked GET /models until it answers:
	// the cold start's resolution.
	readyPoll = 50 * time.Millisecond
)

// startServer starts argv with env in a process group of its own (killed if llmcap
// dies), its output to trialDir/server.log with red's secrets masked, records it in the
// tune directory's tune-server.json and starts watching its memory.
func startServer(dir, trialDir string, trial int, argv, env []string, red *redact.Redactor, grace time.Duration) (*server, error) {
	proc, err := launch.StartProcess(argv, env, filepath.Join(trialDir, rundir.FileServerLog), red, launch.DieWithParent())
	if err != nil {
		return nil, err
	}
	s := &server{proc: proc, started: time.Now(), grace: grace, stopWatch: make(chan struct{})}
	ticks, _ := startTicks(proc.Pid())
	if err := rundir.WriteTuneServer(dir, &rundir.TuneServer{Trial: trial, PID: proc.Pid(), StartTicks: ticks}); err != nil {
		s.stop(dir)
		return nil, fmt.Errorf("record the trial's server: %w", err)
	}
	s.watched.Add(1)
	go s.watch()
	return s, nil
}

// watch samples the process group's RSS every rssEvery and its GPU memory every
// gpuEvery until stop.
func (s *server) watch() {
	defer s.watched.Done()
	t := time.NewTicker(rssEvery)
	defer t.Stop()
	var lastGPU time.Time
	for {
		rss, pids := groupRSSBytes(s.proc.Pid())
		var gpu float64
		var gpuOK bool
		if time.Since(lastGPU) >= gpuEvery && len(pids) > 0 {
			lastGPU = time.Now()
			gpu, gpuOK = gpuMemoryMiB(pids)
		}
		s.mu.Lock()
		s.peakRSS = max(s.peakRSS, rss)
		if gpuOK {
			s.peakGPU, s.gpuSource = max(s.peakGPU, gpu), rundir.GPUMemoryNvidiaSMI
		}
		s.mu.Unlock()
		select {
		case <-s.stopWatch:
			return
		case <-t.C:
		}
	}
}

// memory returns the peaks sampled so far: RSS in MiB, GPU memory in MiB and its source.
func (s *server) memory() (rssMiB, gpuMiB float64, gpuSource string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return float64(s.peakRSS) / (1 << 20), s.peakGPU, s.gpuSource
}

// stop ends the server: SIGTERM to its group, SIGKILL after the grace, then SIGKILL to
// any member of the group still alive (a worker that outlived its leader), and removes
// tune-server.json.
func (s *server) stop(dir string) error {
	if s.stopWatch != nil {
		select {
		case <-s.stopWatch:
		default:
			close(s.stopWatch)
		}
		s.watched.Wait()
	}
	err := s.proc.Stop(s.grace)
	if groupAlive(s.proc.Pid()) {
		if kerr := launch.KillGroup(s.proc.Pid()); err == nil {
			err = kerr
		}
	}
	if rerr := rundir.RemoveTuneServer(dir); err == nil {
		err = rerr
	}
	return err
}

// exited reports whether the server's process has exited.
func (s *server) exited() bool {
	select {
	case <-s.proc.Exited():
		return true
	default:
		return false
	}
}

// waitReady waits for GET url/models to answer 200 twice in a row
// (launch.WaitReadyEvery) and returns the cold start: launch to the first 200.
func (s *server) waitReady(ctx context.Context, url string, timeout time.Duration) (time.Duration, error) {
	first, err := launch.WaitReadyEvery(ctx, launch.ModelsURL(url), timeout, s.proc.Exited(), readyPoll)
	if err != nil {
		return time.Since(s.started), err
	}
	return first.Sub(s.started), nil
}

// stopOrphan stops the server a killed earlier tune left running (tune-server.json),
// when the recorded process is still the one it started (same start time), and
// removes the file. It reports the PID it stopped (0: none).
func stopOrphan(dir string) (int, error) {
	rec, ok, err := rundir.ReadTuneServer(dir)
	if err != nil || !ok {
		return 0, err
	}
	stopped := 0
	if t, alive := startTicks(rec.PID); (alive && t == rec.StartTicks) || (!alive && groupAlive(rec.PID)) {
		if err := launch.KillGroup(rec.PID); err != nil {
			return 0, fmt.Errorf("stop trial %d's server (pid %d) left by an earlier tune: %w", rec.Trial, rec.PID, err)
		}
		stopped = rec.PID
		for end := time.Now().Add(5 * time.Second); groupAlive(rec.PID) && time.Now().Before(end); {
			time.Sleep(50 * time.Millisecond)
		}
	}
	return stopped, rundir.RemoveTuneServer(dir)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// logTail returns the last n lines of the file at path ("" when unreadable).
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(b) > 64<<10 {
		b = b[len(b)-64<<10:]
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(string(bytes.Join(lines, []byte("\n"))))
}

// errExited is a server that exited during its trial.
var errExited = errors.New("server exited")

// exitText describes the process's exit ("exit status 1", "signal: killed").
func (s *server) exitText() string {
	if err := s.proc.ExitErr(); err != nil {
		return err.Error()
	}
	return "exit status " + strconv.Itoa(0)
}
