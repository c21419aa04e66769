//go:build !cgo || !linux

package sim

import (
	"context"
	"time"
)

// GPUWaitCall names the C library call the driver blocks in while the simulated GPU
// runs an iteration: "" here (built without cgo or off Linux, the wait is a Go timer,
// invisible to libc tracers such as nsys --trace=osrt). With cgo on Linux it is
// "pthread_cond_timedwait".
const GPUWaitCall = ""

// gpuWaiter blocks the driver for an iteration's wall time on a Go timer.
type gpuWaiter struct {
	ctx   context.Context
	timer *time.Timer
}

// newGPUWaiter returns a waiter cancelled when ctx is done; close releases it.
func newGPUWaiter(ctx context.Context) *gpuWaiter {
	return &gpuWaiter{ctx: ctx, timer: time.NewTimer(time.Hour)}
}

// wait blocks for d; it reports false when ctx was done first.
func (g *gpuWaiter) wait(d time.Duration) bool {
	g.timer.Reset(d)
	select {
	case <-g.ctx.Done():
		return false
	case <-g.timer.C:
		return true
	}
}

// close releases the timer.
func (g *gpuWaiter) close() { g.timer.Stop() }
