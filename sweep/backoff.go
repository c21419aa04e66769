package sweep

import (
	"math/rand/v2"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// Backoff of a closed-loop slot or a user after a fast failure (docs/metrics.md
// "Fast failures"): the n-th failure in a row waits backoffBase·2^(n−1), at most
// backoffMax, with equal jitter (half fixed, half uniform), or the server's Retry-After
// when longer (at most maxRetryAfter). A success resets it.
const (
	backoffBase   = 50 * time.Millisecond
	backoffMax    = 2 * time.Second
	maxRetryAfter = 60 * time.Second
)

// backoff is one slot's (or user's) backoff state; not safe for concurrent use.
type backoff struct {
	rng   *rand.Rand
	fails int // consecutive fast failures
}

// newBackoff returns slot k's backoff of step st, its jitter seeded by the plan seed,
// the step and the slot.
func newBackoff(seed int64, step, k int) *backoff {
	return &backoff{rng: seededRand(seed, 0xBAC0, uint64(step), uint64(k))}
}

// after returns how long the slot waits after rec before its next send: 0 after a
// success (which resets the backoff) or a failure that is not fast (backsOff).
func (b *backoff) after(rec *rundir.Record) time.Duration {
	if rec.OK() {
		b.fails = 0
		return 0
	}
	if !backsOff(rec.ErrorClass) {
		return 0
	}
	b.fails++
	d := backoffMax
	if b.fails <= 6 { // 50 ms · 2^5 = 1.6 s; from the 7th failure on, the cap
		d = min(backoffBase<<(b.fails-1), backoffMax)
	}
	d = d/2 + time.Duration(b.rng.Int64N(int64(d/2)+1))
	ra := min(time.Duration(rec.RetryAfterMs)*time.Millisecond, maxRetryAfter)
	return max(d, ra)
}

// backsOff reports whether a failure of error class cls backs its slot off: every
// failure but the slow ones (a client timeout: the request already waited it out) and
// cancellations (the step protocol's, not the server's). Context-length errors back
// off too: they are as fast as any 400, and a plan whose prompts all exceed the
// context would otherwise spin the same way.
func backsOff(cls string) bool {
	switch cls {
	case rundir.ErrCancelled, rundir.ErrTimeoutConnect, rundir.ErrTimeoutFirstByte,
		rundir.ErrTimeoutIdle, rundir.ErrTimeoutRequest:
		return false
	}
	return true
}

// holdOff waits until t or until the window closes (sendCtx); it reports whether the
// window is still open.
func (s *stepRun) holdOff(timer *time.Timer, t time.Time) bool {
	if d := time.Until(t); d > 0 {
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-s.sendCtx.Done():
			timer.Stop()
			return false
		}
	}
	return s.sendCtx.Err() == nil
}
