package analysis

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/plan"
)

// Thresholds of the server's own queue evidence (its running and waiting gauges).
const (
	// backlogMinMean and backlogMinShare: a step's mean waiting requests count as a
	// backlog at or above backlogMinMean and backlogMinShare of the requests in the
	// system; fewer are requests caught between two iterations (a closed loop's next
	// request waits for the iteration in progress).
	backlogMinMean  = 0.5
	backlogMinShare = 0.05
	// atLimitFrac: a running mean at or above this fraction of the running limit is at
	// the limit.
	atLimitFrac = 0.9
	// unknownLimitShare: with no configured limit and no plateau, a backlog of at least
	// this share of the requests in the system (and room in the KV cache) is a slot queue.
	unknownLimitShare = 0.25
	// plateauTol and plateauLoadStep: two backlogged steps whose loads differ by at least
	// plateauLoadStep× and whose running means agree within plateauTol× show the
	// running plateau (running stopped growing with the load).
	plateauTol      = 1.1
	plateauLoadStep = 1.25
)

// runLimit is what a segment's running batch is judged against: the configured limit
// when the run recorded it (n, what), and the running plateau the segment's steps
// showed (plateau, plateauWhat; 0 when none).
type runLimit struct {
	n           float64 // the configured limit, requests; 0 unknown
	configured  bool
	what        string // e.g. "max_num_seqs 8, from the simulator settings in run.json"
	plateau     float64
	plateauWhat string
}

// runLimitOf is the running limit of a segment: dep's configured one and the running
// plateau of steps.
func runLimitOf(steps []StepStats, dep deployment) runLimit {
	var l runLimit
	if dep.runLimit > 0 {
		l.n, l.configured = float64(dep.runLimit), true
		l.what = fmt.Sprintf("%s %d, from %s", dep.runLimitSetting, dep.runLimit, dep.runLimitFrom)
	}
	l.plateau, l.plateauWhat = runningPlateau(steps)
	return l
}

// runningPlateau is the running batch at which the server stopped admitting more: the
// larger running mean of two backlogged steps (sorted by load, KV cache not full) whose
// loads differ by at least plateauLoadStep× while their running means agree within
// plateauTol×; 0 when no two steps show it.
func runningPlateau(steps []StepStats) (float64, string) {
	best, what := 0.0, ""
	for i := range steps {
		a := &steps[i]
		if !slotBacklogged(a) {
			continue
		}
		for j := i + 1; j < len(steps); j++ {
			b := &steps[j]
			if !slotBacklogged(b) || b.Load < plateauLoadStep*a.Load {
				continue
			}
			ra, rb := a.Server.RunningMean, b.Server.RunningMean
			if ra > 0 && rb <= plateauTol*ra && ra <= plateauTol*rb && math.Max(ra, rb) > best {
				best = math.Max(ra, rb)
				what = fmt.Sprintf("the running plateau of %.1f the server reported at loads %s and %s", best, fmtNum(a.Load), fmtNum(b.Load))
			}
		}
	}
	return best, what
}

// slotBacklogged reports whether s has scraped server metrics showing a backlog with the
// KV cache not full (a step whose running batch a plateau may come from).
func slotBacklogged(s *StepStats) bool {
	return s.Server != nil && backlogged(s) && !kvFull(s.Server)
}

// requestsInSystem is the number of requests a step held on average: the concurrency
// (closed loop), a users step's measured in flight, else the rate × mean E2E (Little's
// law).
func requestsInSystem(s *StepStats) float64 {
	switch {
	case s.Schedule == plan.ScheduleConcurrency || (s.Rate == 0 && s.Concurrency > 0):
		return s.Load
	case s.Schedule == plan.ScheduleUsers:
		return usersInFlight(s)
	}
	return s.Rate * s.E2EMs.Mean / 1000
}

// backlogged reports whether the server's waiting gauge shows a backlog at s (see
// backlogMinMean); false without server metrics.
func backlogged(s *StepStats) bool {
	sv := s.Server
	return sv != nil && sv.WaitingMean >= math.Max(backlogMinMean, backlogMinShare*requestsInSystem(s))
}

// transientQueue reports whether requests at s waited at times with the running batch
// at its limit (configured or plateau): a waiting maximum of one or more while running
// reached atLimitFrac of the limit, though the mean backlog is below backlogged's.
func transientQueue(s *StepStats, lim runLimit) bool {
	sv := s.Server
	n := lim.n
	if !lim.configured {
		n = lim.plateau
	}
	return sv != nil && n > 0 && sv.WaitingMax >= 1 && sv.RunningMax >= atLimitFrac*n
}

// kvFull reports whether the KV cache was the limit in a window: usage at kvFullFrac or
// more, or preemptions (only when a KV gauge or the preemption counter was scraped).
func kvFull(sv *ServerStats) bool {
	return sv.Preemptions > 0 || (sv.kvKnown() && sv.KVCacheUsageMax >= kvFullFrac)
}

// admissionQueue decides from the server's gauges whether requests at s wait in an
// admission queue and what holds it. Requests wait (a backlog, see backlogged) and:
// the KV cache is full or preempting below the configured limit → kv_cache; running is
// at the configured limit → slots; running is held at the segment's plateau (capped:
// its window maximum close to its mean) → slots when no limit is configured, below a
// configured one kv_cache when the cache is at least kvRoomyFrac full (else the limit
// is unknown, or the requests wait for the prefill budget when prefillBound); with
// neither a limit nor a plateau, a capped backlog of at least unknownLimitShare of the
// requests in the system → slots unless prefillBound. ok is false when nothing queues:
// requests caught between iterations, or waiting for the prefill budget with slots
// free. why explains the verdict.
func admissionQueue(s *StepStats, lim runLimit, prefillBound bool) (limit QueueLimit, why string, ok bool) {
	sv := s.Server
	if sv == nil || !backlogged(s) {
		return QueueLimitUnknown, "", false
	}
	n := requestsInSystem(s)
	capped := sv.RunningMax <= sv.RunningMean+math.Max(1, 0.1*sv.RunningMean)
	atConfigured := lim.configured && sv.RunningMean >= atLimitFrac*lim.n
	onPlateau := lim.plateau > 0 && capped && sv.RunningMean >= atLimitFrac*lim.plateau &&
		(!lim.configured || lim.plateau < atLimitFrac*lim.n)
	kvWhy := fmt.Sprintf("requests wait for KV cache (%.0f%% full, %.0f preemptions) with %.1f running%s",
		100*sv.KVCacheUsageMax, sv.Preemptions, sv.RunningMean, ofLimit(lim))
	switch {
	case sv.Preemptions > 0 || (kvFull(sv) && !atConfigured):
		return QueueByKVCache, kvWhy, true
	case atConfigured:
		return QueueBySlots, fmt.Sprintf("requests wait for a slot: %.1f waiting, %.1f running at the limit (%s)",
			sv.WaitingMean, sv.RunningMean, lim.what), true
	case onPlateau && !lim.configured:
		return QueueBySlots, fmt.Sprintf("requests wait for a slot: %.1f waiting, %.1f running, held at %s",
			sv.WaitingMean, sv.RunningMean, lim.plateauWhat), true
	case onPlateau && sv.kvKnown() && sv.KVCacheUsageMax >= kvRoomyFrac:
		return QueueByKVCache, fmt.Sprintf("%s: the running batch is held at %s, below the limit", kvWhy, lim.plateauWhat), true
	case onPlateau && !prefillBound:
		return QueueLimitUnknown, fmt.Sprintf("requests wait: %.1f waiting, %.1f running, held at %s, below %s",
			sv.WaitingMean, sv.RunningMean, lim.plateauWhat, lim.what), true
	case !lim.configured && lim.plateau == 0 && capped && !prefillBound && sv.WaitingMean >= unknownLimitShare*n:
		return QueueBySlots, fmt.Sprintf("requests wait for a slot: %.1f of %.1f requests waiting with %.1f running and room in the KV cache",
			sv.WaitingMean, n, sv.RunningMean), true
	}
	return QueueLimitUnknown, "", false
}

// kvKnown reports whether a KV-cache gauge was scraped (a usage of 0 is then a fact).
func (sv *ServerStats) kvKnown() bool { return sv.kvSeen || sv.KVCacheUsageMax > 0 }

// ofLimit is " of <the configured limit>" for evidence, or "" when none is configured.
func ofLimit(lim runLimit) string {
	if !lim.configured {
		return ""
	}
	return fmt.Sprintf(" of %s", lim.what)
}

// serverEvidence is the evidence text of a step's scraped server metrics.
func serverEvidence(sv *ServerStats, lim runLimit) string {
	kv := "KV –"
	if sv.kvKnown() {
		kv = fmt.Sprintf("KV %.0f%%", 100*sv.KVCacheUsageMax)
	}
	e := fmt.Sprintf("server waiting %.1f, running %.1f (max %.0f), %s, preemptions %.0f",
		sv.WaitingMean, sv.RunningMean, sv.RunningMax, kv, sv.Preemptions)
	if lim.configured {
		e += fmt.Sprintf("; running limit %s", lim.what)
	}
	return e
}

// slotsContradicted says why the model's fitted slot count c is not the server's
// queue limit: the server ran more requests at once than c, or its configured running
// limit is above c while no step shows the KV cache full (so nothing holds the batch
// at c). "" when the server's metrics do not contradict c (or none were scraped).
func slotsContradicted(steps []StepStats, lim runLimit, c float64) string {
	maxRun, scraped, kv := 0.0, false, false
	for i := range steps {
		if sv := steps[i].Server; sv != nil {
			scraped = true
			maxRun = math.Max(maxRun, sv.RunningMean)
			kv = kv || kvFull(sv)
		}
	}
	switch {
	case !scraped:
		return ""
	case maxRun > plateauTol*c:
		return fmt.Sprintf("the server ran %.1f requests at once, more than the %.1f fitted slots", maxRun, c)
	case lim.configured && lim.n > plateauTol*c && !kv:
		return fmt.Sprintf("its running limit is %s, above the %.1f fitted slots, and the KV cache never filled", lim.what, c)
	}
	return ""
}

// kvLimitSeen reports whether any step's KV cache was full or preempting.
func kvLimitSeen(steps []StepStats) bool {
	for i := range steps {
		if sv := steps[i].Server; sv != nil && kvFull(sv) {
			return true
		}
	}
	return false
}
