package analysis

import (
	"math"

	"github.com/llmcap/llmcap/plan"
)

// UsersSource says where a capacity's user count comes from (Capacity.UsersSource).
type UsersSource string

// Sources of Capacity.Users.
const (
	// UsersMeasured: a users ladder (ladder.users) measured them: each step drove a
	// closed population of N users, each waiting for its answer and thinking
	// sla.think_time on average before its next request, so the requests in flight
	// fluctuated as in production. The capacity load is users.
	UsersMeasured UsersSource = "measured"
	// UsersConverted: converted from a concurrency or rate ladder's capacity with the
	// think time, users = X · (R + Z), an estimate: it assumes users see the latency
	// measured at a fixed number of requests in flight, while users arriving at random
	// make that number fluctuate and queue more.
	UsersConverted UsersSource = "converted"
)

// usersThroughput is a users step's throughput in req/s: the rate at which its users
// sent in the measurement window ((n − 1) / send span of its measured requests). A
// closed population sends as fast as it is answered, so this is its steady-state
// throughput; for a segment drawn from a mix step it is already the segment's own
// share (its requests only).
func usersThroughput(s *StepStats) float64 { return s.sentRateRps }

// usersInFlight is a users step's mean requests in flight, N = X · R (Little's law):
// the whole step's throughput (a mix segment's share undone) times its mean residence
// time R (residenceMs; the mix step's mean E2E for a segment drawn from the mix).
func usersInFlight(s *StepStats) float64 {
	x, r := s.LittleThroughputRps, residenceMs(s)
	if s.MixShare > 0 {
		x, r = x/s.MixShare, s.mixE2EMs
	}
	return x * r / 1000
}

// usersLadder reports whether steps (one segment's ladder) are users steps.
func usersLadder(steps []StepStats) bool {
	return len(steps) > 0 && steps[0].Schedule == plan.ScheduleUsers
}

// usersAtCapacity fills the throughput, latency and users of a users ladder's capacity
// result r: the capacity load is the users (UsersWithThinkTime; Users its floor), and
// MaxConcurrencyWithinSLA is the requests in flight there, X · R, with the throughput X
// and residence R interpolated between the last passing and the first failing steps
// like the capacity itself (measured), the model's where it interpolated or projected, or the last step's
// when every step met the SLA.
func usersAtCapacity(c *Capacity, r capResult, steps []StepStats, sf segFit, thinkS float64) {
	c.ThinkTimeS, c.UsersSource = thinkS, UsersMeasured
	whole := func(s *StepStats) (x, rS, lout, share float64) { // the whole step's X and R
		x, rS, share = s.LittleThroughputRps, residenceMs(s)/1000, s.MixShare
		if share > 0 {
			x, rS = x/share, s.mixE2EMs/1000
		}
		return x, rS, s.OutputTokensMean, share
	}
	var x, rS, lout, share float64
	modelled := (r.method == MethodModel || r.method == MethodInterpolated) && sf.ok && steps[0].MixShare == 0
	switch {
	case r.method == MethodMeasured || (r.method == MethodInterpolated && !modelled):
		xa, ra, la, sa := whole(&steps[r.pass])
		xb, rb, lb, sb := whole(&steps[r.fail])
		lerp := func(u, v float64) float64 { return u + r.frac*(v-u) }
		x, rS, lout, share = lerp(xa, xb), lerp(ra, rb), lerp(la, lb), lerp(sa, sb)
	case modelled:
		m := sf.eval.m
		x, rS, lout = 1000*m.throughput(r.value, m.lout), m.e2e(r.value, m.lout)/1000, m.lout
	case r.method == MethodModel || r.method == MethodAtLeast:
		x, rS, lout, share = whole(&steps[len(steps)-1])
	default: // below the first step, or no data: no users within the SLA
		return
	}
	c.UsersWithThinkTime = r.value
	c.Users = int(math.Floor(r.value + 1e-9))
	c.MaxConcurrencyWithinSLA = x * rS
	if share > 0 {
		x *= share
	}
	c.ThroughputAtCapacity, c.OutputTokensPerSAtCapacity = x, x*lout
}

// convertedUsers is the UsersSource of a concurrency or rate ladder's capacity c:
// converted when it has users, else none.
func convertedUsers(c *Capacity) UsersSource {
	if c.UsersWithThinkTime > 0 {
		return UsersConverted
	}
	return ""
}
