//go:build cgo && linux

package sim

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestGPUWaitLibc checks the GPU-step wait: it never returns before the asked duration,
// every step the stepper reaches in time is waited out in libc (the call an OS-runtime
// trace records; a 1.1 s step always is, a 50 µs one may be skipped on a loaded host),
// and a cancelled context ends a long wait early with false.
func TestGPUWaitLibc(t *testing.T) {
	if GPUWaitCall != "pthread_cond_timedwait" {
		t.Fatalf("GPUWaitCall %q", GPUWaitCall)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := newGPUWaiter(ctx)
	if g.w == nil {
		t.Fatal("C waiter not set up (Go timer fallback in use)")
	}
	steps := []time.Duration{50 * time.Microsecond, time.Millisecond, 3 * time.Millisecond, 1100 * time.Millisecond}
	for i, d := range steps {
		skippedBefore := g.skippedSteps.Load()
		t0 := time.Now()
		if !g.wait(d) {
			t.Fatalf("wait(%v) reported cancelled", d)
		}
		if got := time.Since(t0); got < d {
			t.Errorf("wait(%v) returned after %v", d, got)
		}
		// The stepper's libc wait may end just after the timer won the race (on a loaded
		// machine, milliseconds after): let it finish, or skip the step, before the next.
		for end := time.Now().Add(5 * time.Second); g.libcWaits.Load()+g.skippedSteps.Load() < int64(i+1) && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		if d >= time.Second && g.skippedSteps.Load() != skippedBefore {
			t.Errorf("wait(%v) was skipped, not waited out in libc", d)
		}
	}
	if n, skipped := g.libcWaits.Load(), g.skippedSteps.Load(); n+skipped != int64(len(steps)) {
		t.Errorf("%d libc waits and %d skipped for %d steps", n, skipped, len(steps))
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	t0 := time.Now()
	if g.wait(time.Minute) {
		t.Error("wait(1m) with a cancelled context reported a full wait")
	}
	if got := time.Since(t0); got > 10*time.Second {
		t.Errorf("cancelled wait took %v", got)
	}
	if g.wait(time.Millisecond) {
		t.Error("wait after cancel reported a full wait")
	}
	g.close()
}

// BenchmarkGPUWait measures how late 2 ms GPU-step waits end (overshoot p50/p99, µs) on
// an otherwise idle process: blocked in libc alone (libc), on a Go timer alone
// (go-timer: the pure-Go driver's) and the two raced (race: the cgo driver's wait).
// Run: go test ./sim -run '^$' -bench 'GPUWait$' -benchtime 500x
func BenchmarkGPUWait(b *testing.B) {
	benchGPUWaits(b, 2*time.Millisecond, nil)
}

// BenchmarkGPUWaitBusy measures the same overshoot of 10 ms waits begun right after
// waking 2,000 goroutines that each compute for 20 µs (40 ms of CPU: on two Ps the
// wait's end falls inside the fan-out, as an iteration's end does at 5,000 streams):
// the Go scheduler's part of the driver's lateness.
// Run: GOMAXPROCS=2 go test ./sim -run '^$' -bench GPUWaitBusy -benchtime 40x
func BenchmarkGPUWaitBusy(b *testing.B) {
	const handlers, work = 2000, 20 * time.Microsecond
	pokes := make([]chan struct{}, handlers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer close(stop)
	for i := range pokes {
		pokes[i] = make(chan struct{}, 1)
		go func() {
			for {
				select {
				case <-pokes[i]:
				case <-stop:
					return
				}
				for t0 := time.Now(); time.Since(t0) < work; {
				}
				wg.Done()
			}
		}()
	}
	benchGPUWaits(b, 10*time.Millisecond, func() func() {
		wg.Add(handlers)
		for _, p := range pokes {
			p <- struct{}{}
		}
		return wg.Wait
	})
}

// benchGPUWaits runs the three waits for d; before each wait, load (when not nil)
// starts the fan-out and returns the function that waits for its end.
func benchGPUWaits(b *testing.B, d time.Duration, load func() (drained func())) {
	report := func(b *testing.B, late []time.Duration) {
		slices.Sort(late)
		b.ReportMetric(float64(late[len(late)/2].Microseconds()), "late-p50-µs")
		b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "late-p99-µs")
	}
	g := newGPUWaiter(context.Background())
	defer g.close()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for _, w := range []struct {
		name string
		wait func(time.Duration) bool
	}{
		{"libc", g.libcOnly},
		{"go-timer", func(d time.Duration) bool { return timerWait(context.Background(), timer, d) }},
		{"race", g.wait},
	} {
		b.Run(w.name, func(b *testing.B) {
			late := make([]time.Duration, 0, b.N)
			for b.Loop() {
				drained := func() {}
				if load != nil {
					drained = load()
				}
				t0 := time.Now()
				w.wait(d)
				late = append(late, time.Since(t0)-d)
				drained()
			}
			report(b, late)
		})
	}
}
