//go:build cgo && linux

package sim

/*
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

// llmcap_gpu_wait is where the engine thread blocks while the simulated GPU runs an
// iteration: a CLOCK_MONOTONIC condition variable waited on until the iteration's end
// (or until cancelled), as a real engine's scheduler thread blocks on the GPU step.
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int cancelled;
} llmcap_gpu_wait;

static llmcap_gpu_wait *llmcap_gpu_wait_new(void) {
	llmcap_gpu_wait *w = calloc(1, sizeof *w);
	pthread_condattr_t ca;
	if (w == NULL) return NULL;
	if (pthread_condattr_init(&ca) != 0) { free(w); return NULL; }
	if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 || pthread_cond_init(&w->cv, &ca) != 0) {
		pthread_condattr_destroy(&ca);
		free(w);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	if (pthread_mutex_init(&w->mu, NULL) != 0) {
		pthread_cond_destroy(&w->cv);
		free(w);
		return NULL;
	}
	return w;
}

// llmcap_gpu_wait_for blocks for ns nanoseconds (absolute CLOCK_MONOTONIC deadline, so
// spurious wake-ups do not shorten it); it returns 1 when cancelled, else 0.
static int llmcap_gpu_wait_for(llmcap_gpu_wait *w, long long ns) {
	struct timespec dl;
	int cancelled;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += ns / 1000000000LL;
	dl.tv_nsec += ns % 1000000000LL;
	if (dl.tv_nsec >= 1000000000L) { dl.tv_sec++; dl.tv_nsec -= 1000000000L; }
	pthread_mutex_lock(&w->mu);
	while (!w->cancelled) {
		if (pthread_cond_timedwait(&w->cv, &w->mu, &dl) == ETIMEDOUT) break;
	}
	cancelled = w->cancelled;
	pthread_mutex_unlock(&w->mu);
	return cancelled;
}

static void llmcap_gpu_wait_cancel(llmcap_gpu_wait *w) {
	pthread_mutex_lock(&w->mu);
	w->cancelled = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static void llmcap_gpu_wait_free(llmcap_gpu_wait *w) {
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
*/
import "C"

import (
	"context"
	"sync/atomic"
	"time"
)

// GPUWaitCall names the C library call that blocks for each simulated GPU step: with
// cgo on Linux, pthread_cond_timedwait on a CLOCK_MONOTONIC condition variable, so an
// OS-runtime trace of the server (nsys --trace=osrt) sees one call per iteration lasting
// the iteration's wall time, as it sees a real engine thread block on its GPU step.
// Without cgo it is "" (a Go timer: invisible to libc tracers).
//
// The call is made by the waiter's stepper goroutine; the driver waits for whichever
// ends first, the stepper's libc wait or a Go timer for the same deadline. On an idle
// host libc wins: a Go timer fires up to ~1 ms late there (epoll's millisecond timeout;
// BenchmarkGPUWait). Under a stream fan-out the timer wins: a timer's goroutine runs
// next on its P, while one returning from a blocking cgo call with no idle P queues in
// the global run queue behind every stream handler the last iteration woke
// (BenchmarkGPUWaitBusy).
const GPUWaitCall = "pthread_cond_timedwait"

// gpuWaiter blocks the driver for an iteration's wall time: a libc wait on the stepper
// goroutine raced with a Go timer.
type gpuWaiter struct {
	w       *C.llmcap_gpu_wait // nil: the C state could not be set up; Go timer only
	ctx     context.Context
	timer   *time.Timer
	steps   chan time.Time // the driver → stepper: the deadline of the step begun
	woke    chan time.Time // stepper → driver: the deadline its libc wait reached
	stop    chan struct{}
	watcher chan struct{}
	// libcWaits counts the stepper's libc waits, skippedSteps the steps whose deadline
	// had passed before the stepper got to them (for tests).
	libcWaits, skippedSteps atomic.Int64
}

// newGPUWaiter returns a waiter cancelled when ctx is done; close releases it.
func newGPUWaiter(ctx context.Context) *gpuWaiter {
	g := &gpuWaiter{w: C.llmcap_gpu_wait_new(), ctx: ctx, timer: time.NewTimer(time.Hour),
		steps: make(chan time.Time, 1), woke: make(chan time.Time, 1), stop: make(chan struct{}), watcher: make(chan struct{})}
	if g.w == nil {
		close(g.watcher)
		return g
	}
	go func() {
		defer close(g.watcher)
		stepperDone := make(chan struct{})
		go g.stepper(stepperDone)
		select {
		case <-ctx.Done():
		case <-g.stop:
		}
		C.llmcap_gpu_wait_cancel(g.w)
		<-stepperDone
	}()
	return g
}

// stepper waits out each step's deadline in libc and reports it on woke, until the
// C wait is cancelled. A step whose deadline passed before the stepper got to it (a
// starved host) is skipped.
func (g *gpuWaiter) stepper(done chan<- struct{}) {
	defer close(done)
	for {
		var dl time.Time
		select {
		case dl = <-g.steps:
		case <-g.stop:
			return
		case <-g.ctx.Done():
			return
		}
		if d := time.Until(dl); d > 0 {
			if C.llmcap_gpu_wait_for(g.w, C.longlong(d)) != 0 {
				return // cancelled
			}
			g.libcWaits.Add(1)
		} else {
			g.skippedSteps.Add(1)
		}
		select { // drop a wake-up the driver never took (the timer ended that step first)
		case <-g.woke:
		default:
		}
		g.woke <- dl // never blocks: only the stepper sends, and the buffer has room
	}
}

// wait blocks for d; it reports false when ctx was done first.
func (g *gpuWaiter) wait(d time.Duration) bool {
	if g.w == nil {
		return timerWait(g.ctx, g.timer, d)
	}
	dl := time.Now().Add(d)
	select { // replace a step the stepper has not started (it fell behind)
	case <-g.steps:
	default:
	}
	g.steps <- dl
	g.timer.Reset(d)
	for {
		select {
		case <-g.ctx.Done():
			return false
		case <-g.timer.C:
			return true
		case got := <-g.woke:
			if got.Equal(dl) {
				return g.ctx.Err() == nil
			}
			// a wake-up for an earlier step that the timer ended first
		}
	}
}

// libcOnly blocks the calling goroutine in the libc wait for d, without the timer race
// (the driver's wait before the race; BenchmarkGPUWait compares the two). It reports
// false when the wait was cancelled.
func (g *gpuWaiter) libcOnly(d time.Duration) bool {
	return C.llmcap_gpu_wait_for(g.w, C.longlong(d)) == 0 && g.ctx.Err() == nil
}

// close stops the stepper and the cancellation watcher and frees the C state.
func (g *gpuWaiter) close() {
	g.timer.Stop()
	if g.w == nil {
		return
	}
	close(g.stop)
	<-g.watcher
	C.llmcap_gpu_wait_free(g.w)
	g.w = nil
}

// timerWait blocks for d on timer; it reports false when ctx was done first.
func timerWait(ctx context.Context, timer *time.Timer, d time.Duration) bool {
	timer.Reset(d)
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
