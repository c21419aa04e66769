//go:build cgo && linux

package sim

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestGPUWaitLibc checks the libc GPU-step wait: it never returns before the asked
// duration, and a cancelled context ends a long wait early with false.
func TestGPUWaitLibc(t *testing.T) {
	if GPUWaitCall != "pthread_cond_timedwait" {
		t.Fatalf("GPUWaitCall %q", GPUWaitCall)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := newGPUWaiter(ctx)
	if g.w == nil {
		t.Fatal("C waiter not set up (Go timer fallback in use)")
	}
	for _, d := range []time.Duration{50 * time.Microsecond, time.Millisecond, 3 * time.Millisecond, 1100 * time.Millisecond} {
		t0 := time.Now()
		if !g.wait(d) {
			t.Fatalf("wait(%v) reported cancelled", d)
		}
		if got := time.Since(t0); got < d {
			t.Errorf("wait(%v) returned after %v", d, got)
		}
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

// BenchmarkGPUWait measures how late 2 ms GPU-step waits end (overshoot p50/p99, µs)
// through libc (the cgo driver's wait) and through a Go timer (the pure-Go driver's).
// Run: go test ./sim -run '^$' -bench GPUWait -benchtime 500x
func BenchmarkGPUWait(b *testing.B) {
	const d = 2 * time.Millisecond
	report := func(b *testing.B, late []time.Duration) {
		slices.Sort(late)
		b.ReportMetric(float64(late[len(late)/2].Microseconds()), "late-p50-µs")
		b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "late-p99-µs")
	}
	b.Run("libc", func(b *testing.B) {
		g := newGPUWaiter(context.Background())
		defer g.close()
		late := make([]time.Duration, 0, b.N)
		for b.Loop() {
			t0 := time.Now()
			g.wait(d)
			late = append(late, time.Since(t0)-d)
		}
		report(b, late)
	})
	b.Run("go-timer", func(b *testing.B) {
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		late := make([]time.Duration, 0, b.N)
		for b.Loop() {
			t0 := time.Now()
			timerWait(context.Background(), timer, d)
			late = append(late, time.Since(t0)-d)
		}
		report(b, late)
	})
}
