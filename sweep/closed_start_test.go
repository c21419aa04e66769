package sweep

import (
	"context"
	"math"
	"testing"
	"time"
)

// TestClosedLoopStartRespectsCancel: a closed loop (or users loop) whose window has
// closed — or whose run was interrupted — starts no worker and returns at once, however
// large n is: before, it started n goroutines first, so a huge concurrency never ended
// its step and SIGTERM had no effect.
func TestClosedLoopStartRespectsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, loop := range map[string]func(*stepRun, int){"closed": (*stepRun).closedLoop, "users": (*stepRun).usersLoop} {
		s := &stepRun{sendCtx: ctx} // no runner: a started worker would dereference it and panic
		done := make(chan struct{})
		go func() {
			defer close(done)
			loop(s, math.MaxInt)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s loop with a cancelled sendCtx still starting workers after 5 s", name)
		}
	}
}
