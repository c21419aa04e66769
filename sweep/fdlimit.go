package sweep

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/plan"
)

// fdMargin is the file descriptors reserved beyond the connections: the run
// directory's files, the scraper, the launched server's pipes, the log.
const fdMargin = 64

// fdsNeeded is the file descriptors a sweep of steps needs: one connection per
// in-flight request (twice for the in-process simulator, which holds the server side
// too) plus fdMargin. A users step counts every user (all of them may be in flight at
// once). Uncapped open-loop steps count ceil(rate) in flight (a request per second in
// flight each), a floor rather than a bound.
func fdsNeeded(steps []plan.Step, ladder plan.Ladder, simulator bool) int {
	most := 0
	for _, st := range steps {
		n := st.Concurrency
		switch st.Schedule {
		case plan.ScheduleConcurrency:
		case plan.ScheduleUsers:
			n = st.Users // at most every user in flight at once
		default:
			n = int(math.Ceil(st.Rate))
			if ladder.MaxConcurrency > 0 {
				n = ladder.MaxConcurrency
			}
		}
		most = max(most, n)
	}
	if simulator {
		most *= 2
	}
	return most + fdMargin
}

// ensureFDs raises the soft RLIMIT_NOFILE up to the hard limit when need exceeds it,
// and fails naming `ulimit -n` when even the hard limit is too low.
func ensureFDs(need int) error {
	soft, hard, err := getNoFile()
	if err != nil || soft >= uint64(need) {
		return nil // unknown on this platform, or enough
	}
	target := min(uint64(need)*2, hard)
	if target > soft {
		if err := setNoFile(target, hard); err == nil {
			soft = target
		}
	}
	if soft < uint64(need) {
		return fdError(need, soft, hard)
	}
	return nil
}

// fdError is the error of a ladder that needs need open files against the limits.
func fdError(need int, soft, hard uint64) error {
	return fmt.Errorf("the ladder needs about %d open files (connections) but the limit is %d "+
		"(hard limit %d): raise it with `ulimit -n %d` (or lower the ladder's concurrency)", need, soft, hard, need)
}

// OpenFilesLimit returns RLIMIT_NOFILE's soft and hard limits; ok is false where they
// cannot be read.
func OpenFilesLimit() (soft, hard uint64, ok bool) {
	soft, hard, err := getNoFile()
	return soft, hard, err == nil
}

// CheckOpenFiles fails, with the same error a sweep would give, when p's whole ladder
// needs more open files (fdsNeeded) than the hard RLIMIT_NOFILE allows; the sweep
// raises the soft limit up to the hard one itself, so only the hard limit can stop it.
// Where the limit is unknown it passes. The CLI calls it before creating a run
// directory.
func CheckOpenFiles(p *plan.Plan) error {
	need := fdsNeeded(stepsBound(p, p.Steps()), p.Ladder, p.Target.IsSimulator())
	soft, hard, ok := OpenFilesLimit()
	if !ok || hard >= uint64(need) {
		return nil
	}
	return fdError(need, soft, hard)
}
