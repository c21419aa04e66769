package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// closedLoop keeps exactly n requests in flight (warm-up included): n workers, each
// sending its next request as soon as its previous one returns, until the window closes.
// After a fast failure a worker first waits out its backoff (backoff.after); its next
// record's scheduled_ns is then when the worker was ready, so the wait shows as that
// record's schedule lag (other closed-loop records have no scheduled time). Starting
// the workers stops as soon as the window closes or the run is interrupted (sendCtx),
// so even a huge n cannot keep the step from ending.
func (s *stepRun) closedLoop(n int) {
	var wg sync.WaitGroup
	for k := range n {
		if s.sendCtx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			bo := newBackoff(s.rn.plan.Seed, s.st.Index, s.shard.global(k))
			timer := time.NewTimer(time.Hour)
			timer.Stop()
			defer timer.Stop()
			var ready time.Time // after a backed-off failure: when the worker was ready
			for s.sendCtx.Err() == nil {
				phase, ok := s.claim()
				if !ok {
					return
				}
				j := s.wl.next(time.Now())
				rec := s.newRecord(j, phase)
				s.execute(j, rec, ready)
				ready = time.Time{}
				if wait := bo.after(rec); wait > 0 {
					ready = time.Now()
					if !s.holdOff(timer, ready.Add(wait)) {
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// usersLoop drives a closed population of n users (a users step): each user first
// waits the residual of a think time (thinker.first, so users do not start in
// lock-step), then loops: claim a send, send, wait for the answer, think, repeat. A
// think time is drawn from ladder.think_time_dist with mean sla.think_time between
// sessions; inside a multi-turn session the user waits the session's own
// multi_turn.think_time_s before its next turn, and thinks the SLA think time only
// after the session's last turn (or a failed turn, which ends the session). The
// requests in flight are those of the users not thinking, so they fluctuate. Each
// request's scheduled time (scheduled_ns) is when its user's think ended; a think is
// cut short when the window closes (sendCtx). After a fast failure the user also waits
// out its backoff (backoff.after) when that ends after its think: the excess shows as
// the next record's schedule lag. Starting the users stops once sendCtx is done, as in
// closedLoop.
func (s *stepRun) usersLoop(n int) {
	var wg sync.WaitGroup
	for u := range n {
		if s.sendCtx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.user(s.shard.global(u))
		}()
	}
	wg.Wait()
}

// user is one user of a users step (see usersLoop).
func (s *stepRun) user(u int) {
	th := newThinker(s.rn.plan, s.st, u)
	bo := newBackoff(s.rn.plan.Seed, s.st.Index, u)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	at := time.Now().Add(th.first())
	var hold time.Time // the end of a backoff: no send before it
	var sess *session  // the open multi-turn session, nil between sessions
	for k := 0; ; {
		if !s.holdOff(timer, laterOf(at, hold)) {
			return
		}
		phase, ok := s.claim()
		if !ok {
			return
		}
		if sess == nil {
			k++
		}
		j := s.wl.userJob(u, k, sess)
		rec := s.newRecord(j, phase)
		s.execute(j, rec, at)
		hold = time.Time{}
		if wait := bo.after(rec); wait > 0 {
			hold = time.Now().Add(wait)
		}
		sess = nil
		if next, more := j.sess.nextTurn(rec.OK()); more {
			sess, at = j.sess, next
			continue
		}
		at = time.Now().Add(th.next())
	}
}

// laterOf is the later of a and b.
func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// arrivalFunc returns the k-th arrival's offset from the step origin and its job (nil:
// draw one from the workload), or false when the schedule has ended.
type arrivalFunc func(k int) (offset time.Duration, j *job, ok bool)

// openLoop sends requests at absolute times origin+offset: each wait is computed from
// the origin, never from the previous send, so sleeping never accumulates drift. The
// scheduled time is recorded (scheduled_ns) next to the actual send (sent_ns). With
// Ladder.MaxConcurrency a request past the cap waits for a slot (its lag grows). The
// open loop never backs off, Retry-After included: it is a fixed arrival process, and a
// failed request never holds back the next arrival (its error is recorded).
func (s *stepRun) openLoop(next arrivalFunc) {
	var sem chan struct{}
	if c := s.rn.plan.Ladder.MaxConcurrency; c > 0 {
		if s.shard != nil { // the cap is the whole step's: each shard holds its share
			c = max(splitInt(c, s.shard.Index, s.shard.Count), 1)
		}
		sem = make(chan struct{}, c)
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for k := 0; ; k++ {
		off, j, ok := next(k)
		if !ok {
			return
		}
		at := s.origin.Add(off)
		if d := time.Until(at); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-s.sendCtx.Done():
				return
			}
		} else if s.sendCtx.Err() != nil {
			return
		}
		phase, ok := s.claim()
		if !ok {
			return
		}
		if j == nil {
			j = s.wl.next(at)
		}
		rec := s.newRecord(j, phase)
		s.reqWG.Add(1)
		go func() {
			defer s.reqWG.Done()
			if sem != nil {
				select {
				case sem <- struct{}{}:
					defer func() { <-sem }()
				case <-s.reqCtx.Done():
				}
			}
			s.execute(j, rec, at)
		}()
	}
}

// traceJob builds the job of trace row k: one single-turn session per row.
func (s *stepRun) traceJob(k int) *job {
	g := s.trace
	row := g.trace.rows[k]
	r := seededRand(s.rn.plan.Seed, 0x7ACE, uint64(s.st.Index), uint64(k))
	sess := &session{id: fmt.Sprintf("s%04d-t%06d", s.st.Index, k), seg: g, rng: r, turn: 1}
	j := &job{seg: g, sess: sess, turn: 0, intendedP: row.Prompt, intendedO: row.Output}
	j.req.MaxTokens = row.Output
	text := g.trace.promptText(row, s.rn.plan.Seed, r)
	if s.rn.plan.Target.API == "completions" {
		j.req.Prompt = text
	} else {
		j.req.Messages = []ChatMessage{{Role: "user", Content: text}}
	}
	if s.rn.plan.Seed != 0 {
		j.req.Seed = s.rn.plan.Seed + int64(k)
	}
	return j
}

// arrivals draws open-loop inter-arrival gaps: Poisson (exponential gaps), gamma with
// shape Burstiness (1 = Poisson; < 1 burstier) or constant, at Rate req/s. Offsets are
// summed in float seconds from the origin; the first arrival is at the origin.
type arrivals struct {
	rng   *rand.Rand
	kind  string
	rate  float64
	shape float64
	t     float64 // seconds since origin of the next arrival
}

func newArrivals(p *plan.Plan, st plan.Step) *arrivals {
	a := &arrivals{rng: seededRand(p.Seed, 0xA221, uint64(st.Index)), kind: p.Ladder.Arrival,
		rate: st.Rate, shape: p.Ladder.Burstiness}
	if a.kind == "" {
		a.kind = plan.ArrivalPoisson
	}
	if a.shape <= 0 {
		a.shape = 1
	}
	return a
}

// next returns the next arrival's offset from the origin.
func (a *arrivals) next() time.Duration {
	at := a.t
	if a.rate <= 0 {
		a.t = math.Inf(1)
		return time.Duration(math.MaxInt64)
	}
	switch a.kind {
	case plan.ArrivalConstant:
		a.t += 1 / a.rate
	case plan.ArrivalGamma:
		// Gamma(shape k, scale 1/(rate·k)) has mean 1/rate and CV 1/sqrt(k).
		a.t += gammaSample(a.rng, a.shape) / (a.rate * a.shape)
	default:
		a.t += a.rng.ExpFloat64() / a.rate
	}
	return time.Duration(at * float64(time.Second))
}

// gammaSample draws Gamma(k, 1) by Marsaglia and Tsang (with the k < 1 boost).
func gammaSample(r *rand.Rand, k float64) float64 {
	if k < 1 {
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		return gammaSample(r, k+1) * math.Pow(u, 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
