package sweep

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// thinker draws one user's think times between sessions: exponential (the default) or
// constant, of mean Z = sla.think_time, from the user's own seeded generator.
type thinker struct {
	rng      *rand.Rand
	mean     time.Duration
	constant bool
}

// newThinker returns user u's think-time source in step st: seeded by the plan seed,
// the step and the user, so a run's think times do not depend on goroutine order.
func newThinker(p *plan.Plan, st plan.Step, u int) *thinker {
	return &thinker{rng: seededRand(p.Seed, 0x7411, uint64(st.Index), uint64(u)), mean: p.SLA.ThinkTime,
		constant: p.Ladder.ThinkDist() == plan.ThinkConstant}
}

// next is one think time: Exp(1)·Z, or Z.
func (t *thinker) next() time.Duration {
	if t.constant {
		return t.mean
	}
	return time.Duration(t.rng.ExpFloat64() * float64(t.mean))
}

// first is the wait before a user's first request: the residual of a think time in
// progress when the step starts (its stationary distribution), so that users do not
// start in lock-step. Exponential think times are memoryless (the residual is again
// Exp·Z); constant ones leave a residual uniform on [0, Z).
func (t *thinker) first() time.Duration {
	if t.constant {
		return time.Duration(t.rng.Float64() * float64(t.mean))
	}
	return t.next()
}

// userJob returns user u's next job: the next turn of its open session cont, or, with
// cont nil, the first turn of the user's k-th session. A user's sessions are named
// "sSSSS-uUUUUUU-KKKKK" (step, user, session) and seeded by step, user and session, so
// their content does not depend on goroutine order; they never enter the ready heap
// (the user waits out their turns' think time itself, see session.nextTurn).
func (w *workload) userJob(u, k int, cont *session) *job {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := cont
	if s == nil {
		r := seededRand(w.seed, 0x05E2, uint64(w.step), uint64(u), uint64(k))
		s = w.sessionWith(fmt.Sprintf("s%04d-u%06d-%05d", w.step, u, k), r)
		s.user = true
	}
	j := w.build(s)
	w.nextReq++
	return j
}

// nextTurn reports when a user's session s continues after the turn that just ended
// (ok: it succeeded): at readyAt, once the segment's multi_turn.think_time_s has
// passed (set by workload.done); false when the session is over (its last turn, or a
// failed one).
func (s *session) nextTurn(ok bool) (time.Time, bool) {
	if !ok || s.turn >= s.seg.turns {
		return time.Time{}, false
	}
	return s.readyAt, true
}
