package profiles

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// capture is one step's nsys collection: started once (maybe after a delay), stopped
// once (by the duration timer or at the window's end).
type capture struct {
	c       *Capturer
	step    plan.Step
	session string
	dir     string // absolute capture directory
	rel     string // relative to the run directory
	base    string // nsys output path without extension

	cancel    chan struct{} // closed to abandon a delayed start
	startDone chan struct{} // closed when the (delayed) start attempt ended

	mu        sync.Mutex
	started   bool
	startErr  error
	stopOnce  sync.Once
	stopErr   error
	startedAt time.Time
	stoppedAt time.Time
	timer     *time.Timer
	hung      bool // `nsys stop` hung and was killed (recoverHung)
	adopted   bool // the hung stop's .qdstrm was moved to base.qdstrm
}

func newCapture(c *Capturer, step plan.Step, session, dir, rel string) *capture {
	return &capture{c: c, step: step, session: session, dir: dir, rel: rel,
		base: filepath.Join(dir, defaultCaptureRep), cancel: make(chan struct{}), startDone: make(chan struct{})}
}

// start runs `nsys start` and arms the duration timer.
func (cp *capture) start(ctx context.Context) error {
	defer close(cp.startDone)
	out, err := cp.c.nsys.run(ctx, nsysQuickTimeout, cp.c.startArgs(cp.session, cp.base)...)
	if err == nil && strings.Contains(string(out), "Exception") {
		// nsys 2022.4 can print an exception (e.g. NotImplementedException) and exit 0.
		err = fmt.Errorf("nsys start: %s", tail(out))
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err != nil {
		cp.startErr = fmt.Errorf("capture start: %w", err)
		return cp.startErr
	}
	cp.started, cp.startedAt = true, timeNow()
	if d := cp.c.cfg.Duration; d > 0 {
		cp.timer = time.AfterFunc(d, func() { _ = cp.stop(context.Background()) })
	}
	return nil
}

// startAfter starts the capture after delay unless cancelled first.
func (cp *capture) startAfter(ctx context.Context, delay time.Duration) {
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		if err := cp.start(ctx); err != nil {
			cp.c.log.Warn("capture start failed", "step", cp.step.Index+1, "err", err)
		}
	case <-cp.cancel:
		close(cp.startDone)
	}
}

// minCaptureWindow is the shortest collection. With CPU sampling and context-switch
// tracing on, nsys 2022.4's `nsys stop` often hung after short collections; that was
// its perf_event reader (see perfEventFlags): with both off, 0 of 9 stops after 0.3 s
// windows hung. A one-second floor stays as a margin.
const minCaptureWindow = time.Second

// stop runs `nsys stop` once, no earlier than minCaptureWindow after the start.
func (cp *capture) stop(ctx context.Context) error {
	cp.stopOnce.Do(func() {
		cp.mu.Lock()
		wait := minCaptureWindow - timeNow().Sub(cp.startedAt)
		cp.mu.Unlock()
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		qdstrm, err := cp.c.nsys.Stop(ctx, cp.session)
		if errors.Is(err, ErrStopHung) {
			err = cp.recoverHung(err, qdstrm)
		}
		cp.mu.Lock()
		cp.stoppedAt = timeNow()
		if err != nil {
			cp.stopErr = fmt.Errorf("capture stop: %w", err)
		}
		cp.mu.Unlock()
	})
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.stopErr
}

// recoverHung handles a hung `nsys stop`: it ends the session's agents (the session is
// unusable afterwards) and moves the .qdstrm the stop named into the capture directory,
// where ConvertReport imports it with QdstrmImporter. It returns err, annotated.
func (cp *capture) recoverHung(err error, qdstrm string) error {
	n := killSessionAgents(cp.session, 5*time.Second)
	moved, merr := adoptQdstrm(qdstrm, cp.base)
	cp.mu.Lock()
	cp.hung, cp.adopted = true, moved
	cp.mu.Unlock()
	cp.c.log.Warn("capture: nsys stop hung; ended the session's agents", "step", cp.step.Index+1,
		"agents", n, "qdstrm", qdstrm, "kept", moved, "err", err)
	if merr != nil {
		return fmt.Errorf("%w; ended %d nsys agent(s); %w", err, n, merr)
	}
	return fmt.Errorf("%w; ended %d nsys agent(s) of session %s", err, n, cp.session)
}

// finish abandons a pending delayed start, waits for a start in progress and stops a
// started capture. It fails when the capture never started or stopping failed.
func (cp *capture) finish(ctx context.Context) error {
	select {
	case <-cp.startDone:
	default:
		close(cp.cancel)
		<-cp.startDone
	}
	cp.mu.Lock()
	started, startErr := cp.started, cp.startErr
	if cp.timer != nil {
		cp.timer.Stop()
	}
	cp.mu.Unlock()
	if !started {
		if startErr != nil {
			return startErr
		}
		return errors.New("capture did not start before the measurement window closed (capture.delay too long?)")
	}
	return cp.stop(ctx)
}

// window is the captured wall time.
func (cp *capture) window() time.Duration {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stoppedAt.IsZero() {
		return 0
	}
	return cp.stoppedAt.Sub(cp.startedAt)
}

// hungWithData reports whether `nsys stop` hung and left a .qdstrm to import.
func (cp *capture) hungWithData() bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.hung && cp.adopted
}

// stopFailed reports whether `nsys stop` itself failed (the session is then suspect).
func (cp *capture) stopFailed() bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.stopErr != nil
}
