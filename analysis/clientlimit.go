package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// clientLagMinMs is the smallest median schedule lag (ms) that can mark an open-loop step
// as client-limited; the lag must also exceed the step's mean E2E (see clientLimited).
const clientLagMinMs = 100

// clientLimited reports whether an open-loop step measured its client rather than the
// server: the client sent below achievedShortFrac × the scheduled rate and the median
// request waited on the client (schedule lag, sent − scheduled) longer than both
// clientLagMinMs and the step's mean E2E — a backlog held client-side, by
// ladder.max_concurrency or by a client that cannot keep up. A burst that a cap delays
// briefly lags a few requests, not the median, and does not lower the send rate.
func clientLimited(s *StepStats) bool {
	if s.Schedule != plan.ScheduleRate || s.MixShare > 0 || s.sentRateRps <= 0 || s.ScheduleLagMs.N == 0 {
		return false
	}
	return s.sentRateRps < achievedShortFrac*s.Rate &&
		s.ScheduleLagMs.P50 > math.Max(clientLagMinMs, s.E2EMs.Mean)
}

// passingServed is the largest throughput (req/s) an open loop's passing steps
// steps[0..pass] served: each step's rate, or less when it was saturated or
// client-limited. A capacity is never below what a step within the SLA served.
func passingServed(steps []StepStats, pass int) float64 {
	x := 0.0
	for i := 0; i <= pass && i < len(steps); i++ {
		x = math.Max(x, math.Min(steps[i].Rate, steps[i].LittleThroughputRps))
	}
	return x
}

// anyClientLimited reports whether a step of steps[0..upto] was client-limited.
func anyClientLimited(steps []StepStats, upto int) bool {
	for i := 0; i <= upto && i < len(steps); i++ {
		if steps[i].ClientLimited {
			return true
		}
	}
	return false
}

// clientWho names what held requests back on the client side.
func clientWho(p *plan.Plan) string {
	if n := p.Ladder.MaxConcurrency; n > 0 {
		return fmt.Sprintf("the client's max_concurrency cap (%d in flight)", n)
	}
	return "the client itself (it fell behind its schedule)"
}

// clientLimitedWarning says which open-loop steps of a segment the client limited, with
// their schedule lag p95 and send rate; "" when none was.
func clientLimitedWarning(sa *SegmentAnalysis, p *plan.Plan) string {
	var rows []string
	served := 0.0
	for i := range sa.Steps {
		s := &sa.Steps[i]
		if !s.ClientLimited {
			continue
		}
		served = math.Max(served, s.LittleThroughputRps)
		rows = append(rows, fmt.Sprintf("rate %s: sent %.2f req/s, schedule lag p95 %s ms",
			fmtNum(s.Rate), s.sentRateRps, commaInt(s.ScheduleLagMs.P95)))
	}
	if len(rows) == 0 {
		return ""
	}
	fix := "raise or remove ladder.max_concurrency to measure the server"
	if p.Ladder.MaxConcurrency <= 0 {
		fix = "run the load generator on a faster or less busy machine"
	}
	return fmt.Sprintf("segment %s: %s limited the offered load (%s): requests waited on the client, so the achieved rate (at most %.2f req/s) is the client's, not the server's; %s",
		sa.Segment, clientWho(p), strings.Join(rows, "; "), served, fix)
}

// servedRateOf is the rate (req/s) at which an open-loop step's requests reached the
// server: the scheduled rate, or what a client-limited step let through (Little's law
// turns it into the requests in flight at the server).
func servedRateOf(s *StepStats) float64 {
	if s.ClientLimited {
		return math.Min(s.Rate, s.RequestThroughput)
	}
	return s.Rate
}
