package profiles

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Why `nsys stop` hangs (measured with Debian's nsys 2022.4 on this GPU-less machine):
// the session agent's perf_event reader — used by CPU IP sampling (--sample) and by
// context-switch tracing (--cpuctxsw), both on by default for `nsys start` — sometimes
// never ends when the collection stops: the agent's AnalysisService thread waits forever
// to join it (gdb: pthread_clockjoin_ex on a thread blocked in epoll_wait on the
// perf_event fds), so `nsys stop` prints "Generating '/tmp/nsys-report-XXXX.qdstrm'" and
// then nothing; signalling the agent ends the stop but leaves an incomplete .qdstrm
// ("Qdstrm file is incomplete or invalid"). Measured with `nsys launch` of serve-sim
// under load and 3–5 start/stop cycles per session: with the defaults 6 of 18 stops
// hung; with only --sample=none 2 of 5, with only --cpuctxsw=none 3 of 6; with both off
// no perf_event fd is opened and none of 21 stops hung (12 after 4 s windows, 9 after
// 0.3 s ones). llmcap's summaries use none of that data (kernel, CUDA API, OS runtime
// and NVTX tables), so startArgs turns both off unless capture.extra_args sets them.
var perfEventFlags = []struct{ long, short, off string }{
	{"--sample", "-s", "--sample=none"},
	{"--cpuctxsw", "", "--cpuctxsw=none"},
}

// perfEventDefaults returns --sample=none and --cpuctxsw=none, each unless extra sets it.
func perfEventDefaults(extra []string) []string {
	var out []string
	for _, f := range perfEventFlags {
		set := slices.ContainsFunc(extra, func(a string) bool {
			return a == f.long || strings.HasPrefix(a, f.long+"=") || (f.short != "" && (a == f.short || strings.HasPrefix(a, f.short+"=")))
		})
		if !set {
			out = append(out, f.off)
		}
	}
	return out
}

// defaultStallTimeout is how long `nsys stop` may go without progress (new output, a
// growing .qdstrm) before it counts as hung. Writing and importing a large CUDA trace
// prints progress or grows the file throughout, so a minute of silence is a hang.
const defaultStallTimeout = 60 * time.Second

// ErrStopHung is returned (wrapped) when `nsys stop` made no progress for
// Nsys.StallTimeout or ran past Nsys.StopTimeout; the stop command was killed.
var ErrStopHung = errors.New("nsys stop hung")

var qdstrmInOutput = regexp.MustCompile(`Generating '([^']+\.qdstrm)'`)

// Stop runs `nsys stop --session=SESSION` and watches it: when its output and the
// .qdstrm it names ("Generating '….qdstrm'") stop changing for StallTimeout, or it runs
// past StopTimeout, it kills the command and returns an error wrapping ErrStopHung. It
// returns the .qdstrm path nsys named ("" when none), also on failure, so a caller can
// try to import what was written.
func (n *Nsys) Stop(ctx context.Context, session string) (string, error) {
	f, err := os.CreateTemp("", "llmcap-nsys-stop-*.out")
	if err != nil {
		return "", fmt.Errorf("nsys output file: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	args := []string{"stop", "--session=" + session}
	cmd := exec.Command(n.Path, args...)
	cmd.Stdout, cmd.Stderr = f, f // a file, not a pipe: see Nsys.run
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("nsys stop: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	w := stopWatch{out: f.Name(), session: session, start: time.Now()}
	w.last = w.start
	tick := time.NewTicker(n.pollInterval())
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			out, _ := os.ReadFile(f.Name())
			q := cmp.Or(qdstrmOf(out), w.qdstrm)
			if err != nil {
				return q, fmt.Errorf("nsys %s: %w: %s", strings.Join(args, " "), err, tail(out))
			}
			return q, nil
		case <-ctx.Done():
			return n.killStop(cmd, done, &w, fmt.Errorf("nsys stop: %w", ctx.Err()))
		case now := <-tick.C:
			w.poll(now)
			if stalled := now.Sub(w.last); stalled >= n.stallTimeout() {
				return n.killStop(cmd, done, &w, fmt.Errorf("%w: no progress for %s (%s)", ErrStopHung,
					stalled.Round(100*time.Millisecond), w.describe()))
			}
			if ran := now.Sub(w.start); n.StopTimeout > 0 && ran >= n.StopTimeout {
				return n.killStop(cmd, done, &w, fmt.Errorf("%w: still running after %s", ErrStopHung, ran.Round(time.Second)))
			}
		}
	}
}

// killStop kills a `nsys stop` command and returns the .qdstrm being written (named in
// its output or held open by the session's agent) with cause.
func (n *Nsys) killStop(cmd *exec.Cmd, done <-chan error, w *stopWatch, cause error) (string, error) {
	w.poll(time.Now())
	_ = cmd.Process.Kill()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	out, _ := os.ReadFile(w.out)
	return cmp.Or(qdstrmOf(out), w.qdstrm), cause
}

func (n *Nsys) stallTimeout() time.Duration {
	if n.StallTimeout > 0 {
		return n.StallTimeout
	}
	return defaultStallTimeout
}

func (n *Nsys) pollInterval() time.Duration {
	return min(time.Second, max(10*time.Millisecond, n.stallTimeout()/10))
}

// qdstrmOf returns the .qdstrm path a `nsys stop`/`nsys profile` output names, or "".
func qdstrmOf(out []byte) string {
	if m := qdstrmInOutput.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}

// stopWatch tracks a running `nsys stop`'s progress: its output size and the size of
// the .qdstrm being written (nsys prints its name only at the end; until then it is
// found among the session agent's open files).
type stopWatch struct {
	out, session string
	start, last  time.Time
	outSize      int64
	qdSize       int64
	qdstrm       string
	lastOut      []byte
}

func (w *stopWatch) poll(now time.Time) {
	st, err := os.Stat(w.out)
	if err == nil && st.Size() != w.outSize {
		w.outSize, w.last = st.Size(), now
		w.lastOut, _ = os.ReadFile(w.out)
		if q := qdstrmOf(w.lastOut); q != "" {
			w.qdstrm = q
		}
	}
	if w.qdstrm == "" {
		w.qdstrm = agentQdstrm(w.session)
	}
	if w.qdstrm != "" {
		if st, err := os.Stat(w.qdstrm); err == nil && st.Size() != w.qdSize {
			w.qdSize, w.last = st.Size(), now
		}
	}
}

// describe says what the stop had done so far, for the hang message.
func (w *stopWatch) describe() string {
	out := "no output"
	if t := tail(w.lastOut); t != "" {
		out = fmt.Sprintf("output %q", t)
	}
	if w.qdstrm == "" {
		return out + "; no .qdstrm found"
	}
	return fmt.Sprintf("%s; %s: %d bytes, not growing", out, w.qdstrm, w.qdSize)
}

// killSessionAgents ends the nsys agents serving session (SIGTERM, then SIGKILL after
// grace) and reports how many there were.
func killSessionAgents(session string, grace time.Duration) int {
	pids := sessionAgents(session)
	for _, pid := range pids {
		_ = sendSignal(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for _, pid := range pids {
		for pidAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if pidAlive(pid) {
			_ = sendSignal(pid, syscall.SIGKILL)
		}
	}
	return len(pids)
}

// adoptQdstrm moves the .qdstrm a hung stop left (in nsys's temporary directory) to
// base.qdstrm, where EnsureReport looks; it reports whether one was moved.
func adoptQdstrm(qdstrm, base string) (bool, error) {
	if qdstrm == "" {
		return false, nil
	}
	if _, err := os.Stat(qdstrm); err != nil {
		return false, nil
	}
	dst := base + ".qdstrm"
	if err := os.Rename(qdstrm, dst); err == nil {
		return true, nil
	}
	if err := copyFile(qdstrm, dst); err != nil { // across file systems
		return false, fmt.Errorf("keep %s: %w", qdstrm, err)
	}
	_ = os.Remove(qdstrm)
	return true, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// agentQdstrm returns a .qdstrm file held open by an agent of session, or "".
func agentQdstrm(session string) string {
	for _, pid := range sessionAgents(session) {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			if t, err := os.Readlink(fd); err == nil && strings.HasSuffix(t, ".qdstrm") {
				return t
			}
		}
	}
	return ""
}
