package analysis

import (
	"fmt"
	"math"
)

// clientReadLateMinMs is the smallest read lag p95 (ms) that can mark a step as read
// late: below it the client kept up whatever the ITL (clientReadLate).
const clientReadLateMinMs = 5

// clientReadLate reports whether the client read a step's streams late: the p95 of
// the requests' read lag (each request's most-late read, StepStats.ReadLagMs) is above
// both clientReadLateMinMs and the step's ITL p50. A read that late finds the segments
// of more than one event waiting, which the kernel merged and stamped with the latest
// arrival (docs/client.md, "Timestamps"), so at least 5% of the requests have an event
// (their first token, their last) stamped up to that lag after it arrived: TTFT, E2E
// and ITL are then the client's, not only the server's. A step without ITL (1-token
// replies) is judged on clientReadLateMinMs alone.
func clientReadLate(s *StepStats) bool {
	if s.ReadLagMs == nil || s.ReadLagMs.N == 0 {
		return false
	}
	itl := s.ITLMs.P50
	if s.ITLMs.N == 0 || math.IsNaN(itl) {
		itl = 0
	}
	return s.ReadLagMs.P95 > math.Max(clientReadLateMinMs, itl)
}

// clientReadLateWarning says that the client read step s's streams late, with its read
// lag and ITL; "" when it kept up.
func clientReadLateWarning(segment string, s *StepStats) string {
	if !clientReadLate(s) {
		return ""
	}
	itl := ""
	if s.ITLMs.N > 0 {
		itl = fmt.Sprintf(", above its ITL p50 of %s ms", fmtNum(roundTo(s.ITLMs.P50, 2)))
	}
	return fmt.Sprintf("%s: the client read the streams late (read lag p95 %s ms, max %s ms%s): the events that waited "+
		"together carry the last one's arrival, so some TTFT, ITL and E2E values are up to that much late; give the "+
		"load generator more CPU or spread the load over more client processes (llmcap sweep --shard, docs/distributed.md)",
		stepPlace(segment, s), fmtNum(roundTo(s.ReadLagMs.P95, 1)), fmtNum(roundTo(s.ReadLagMs.Max, 1)), itl)
}
