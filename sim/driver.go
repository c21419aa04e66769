package sim

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/llmcap/llmcap/sla"
)

// stream is the driver → HTTP handler hand-off of one request: the driver stores the
// emitted-token count, then done, then pokes notify; the handler reads done before the
// count so it never misses the last tokens.
type stream struct {
	notify  chan struct{}
	emitted atomic.Int64
	done    atomic.Bool
	length  bool // finish_reason "length" (output reached max_tokens), else "stop"
}

func (st *stream) poke() {
	select {
	case st.notify <- struct{}{}:
	default:
	}
}

// latenessStats keeps the last lateness samples. An iteration's lateness is the wall
// clock instant the driver wakes to complete it minus its scheduled wall-clock end
// (Server.wall of its virtual start + duration), ≥ 0; while work continues the next
// iteration starts at that instant, so it is also how late that one starts against its
// scheduled start (docs/simulator.md).
type latenessStats struct {
	samples []time.Duration
	next    int
	count   int64
	max     time.Duration
	hist    *histogram
}

const latenessWindow = 1 << 16

func (l *latenessStats) add(d time.Duration) {
	if l.hist == nil {
		l.hist = newHistogram(latenessBuckets)
	}
	l.hist.observe(d.Seconds())
	if len(l.samples) < latenessWindow {
		l.samples = append(l.samples, d)
	} else {
		l.samples[l.next] = d
		l.next = (l.next + 1) % latenessWindow
	}
	l.count++
	l.max = max(l.max, d)
}

// DriverStats summarises the real-time driver.
type DriverStats struct {
	// Iterations is the number of iterations run.
	Iterations int64
	// LatenessP50, LatenessP99 and LatenessMax describe how late the driver woke to
	// complete iterations against their scheduled wall-clock ends (latenessStats; over
	// the last 65,536 iterations; max over all).
	LatenessP50, LatenessP99, LatenessMax time.Duration
}

// Stats returns the driver's iteration count and lateness percentiles.
func (s *Server) Stats() DriverStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := DriverStats{Iterations: s.late.count, LatenessMax: s.late.max}
	if n := len(s.late.samples); n > 0 {
		v := make([]float64, n)
		for i, d := range s.late.samples {
			v[i] = float64(d)
		}
		slices.Sort(v)
		st.LatenessP50 = time.Duration(sla.Percentile(v, 0.50))
		st.LatenessP99 = time.Duration(sla.Percentile(v, 0.99))
	}
	return st
}

// virtual converts a wall-clock instant to virtual (simulated) time.
func (s *Server) virtual(t time.Time) time.Duration {
	return time.Duration(float64(t.Sub(s.start)) * s.speedUp)
}

// wall converts virtual time to the wall-clock instant.
func (s *Server) wall(v time.Duration) time.Time {
	return s.start.Add(time.Duration(float64(v) / s.speedUp))
}

// maxLag is how far (wall clock) the driver may run behind its simulated timeline and
// still keep iterations back to back; beyond it (a starved host) it resynchronises. It
// equals the lateness above which the analysis calls a step simulator-late
// (analysis.SimLateLimitMs), so the lag carried over from an absorbed hiccup never makes
// later iterations count as late there.
const maxLag = 5 * time.Millisecond

// drive runs the scheduler on the wall clock: iterations are back to back in virtual
// time while there is work; when idle it waits for an arrival and resynchronises.
//
// Back to back means an iteration starts where the previous one ended, even when the
// driver woke up late for it: the OS's wake-up latency (about 0.1 ms) is absorbed by the
// next, shorter wait instead of being added to simulated time, where it would count
// speed_up times (at speed_up 20, +2 ms on every 10 ms decode step). An iteration never
// starts before the latest arrival (a request cannot join an iteration that began before
// it arrived), and a lag beyond maxLag resynchronises to the wall clock.
func (s *Server) drive(ctx context.Context) {
	defer close(s.done)
	gw := newGPUWaiter(ctx) // the GPU-step wait: libc with cgo on Linux (gpuwait_cgo.go)
	defer gw.close()
	var vnow time.Duration
	for {
		s.mu.Lock()
		vnow = max(vnow, s.lastArrival)
		if now := s.virtual(time.Now()); now-vnow > time.Duration(float64(maxLag)*s.speedUp) {
			vnow = now
		}
		it := s.sched.Step(vnow)
		s.mu.Unlock()
		if it == nil {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
				continue
			}
		}
		end := it.Start + it.Duration
		deadline := s.wall(end)
		if d := time.Until(deadline); d > 0 && !gw.wait(d) {
			return
		}
		late := max(0, time.Since(deadline))
		s.mu.Lock()
		s.late.add(late)
		emitted, finished := s.sched.Complete(it)
		s.metrics.observe(it, emitted, finished, s.speedUp)
		for _, r := range emitted {
			r.stream.emitted.Store(int64(r.Generated))
		}
		for _, r := range finished {
			r.stream.done.Store(true)
		}
		for _, r := range emitted {
			r.stream.poke()
		}
		s.mu.Unlock()
		vnow = end
	}
}

// submit queues r at the current virtual time and wakes the driver.
func (s *Server) submit(r *Request) error {
	s.mu.Lock()
	s.nextID++
	r.ID = s.nextID
	err := s.sched.Add(r, s.virtual(time.Now()))
	if err == nil {
		s.metrics.arrived()
		s.lastArrival = max(s.lastArrival, r.Arrival)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return err
}

// abort removes r (client gone).
func (s *Server) abort(r *Request) {
	s.mu.Lock()
	s.sched.Abort(r)
	s.mu.Unlock()
}
