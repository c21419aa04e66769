package sweep

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/plan"
)

// fdMargin is the file descriptors reserved beyond the connections: the run
// directory's files, the scraper, the launched server's pipes, the log.
const fdMargin = 64

// fdMost is where fdsNeeded saturates (2^53, exact in a float64): far past any
// RLIMIT_NOFILE, and small enough that doubling it and adding fdMargin cannot wrap.
const fdMost = 1 << 53

// fdsNeeded is the file descriptors a sweep of steps needs: one connection per
// in-flight request (twice for the in-process simulator, which holds the server side
// too) plus fdMargin. A users step counts every user (all of them may be in flight at
// once). Uncapped open-loop steps count ceil(rate) in flight (a request per second in
// flight each), a floor rather than a bound. The count is done in float64 and
// saturates at fdMost, so no level (concurrency 2^62, rate 1e300) wraps it negative.
func fdsNeeded(steps []plan.Step, ladder plan.Ladder, simulator bool) int {
	most := 0.0
	for _, st := range steps {
		most = math.Max(most, stepConns(st, ladder))
	}
	if simulator {
		most *= 2
	}
	return int(math.Min(most, fdMost)) + fdMargin
}

// stepConns is the connections step st may hold at once (see fdsNeeded).
func stepConns(st plan.Step, ladder plan.Ladder) float64 {
	switch st.Schedule {
	case plan.ScheduleConcurrency:
		return float64(st.Concurrency)
	case plan.ScheduleUsers:
		return float64(st.Users) // at most every user in flight at once
	}
	if ladder.MaxConcurrency > 0 {
		return float64(ladder.MaxConcurrency)
	}
	return math.Ceil(st.Rate)
}

// fdLever names what to lower when steps need too many open files: the load of the
// step needing the most (the ladder's concurrency, users or rate, or
// ladder.max_concurrency when it caps a rate step; ladder.search.max in a search).
func fdLever(steps []plan.Step, ladder plan.Ladder) string {
	var top plan.Step
	most := -1.0
	for _, st := range steps {
		if n := stepConns(st, ladder); n > most {
			top, most = st, n
		}
	}
	switch {
	case ladder.Search != nil:
		return "ladder.search.max"
	case top.Schedule == plan.ScheduleConcurrency:
		return "the ladder's concurrency"
	case top.Schedule == plan.ScheduleUsers:
		return "the ladder's users"
	case ladder.MaxConcurrency > 0:
		return "ladder.max_concurrency"
	}
	return "the ladder's rate, or cap it with ladder.max_concurrency"
}

// ensureFDs raises the soft RLIMIT_NOFILE up to the hard limit when need exceeds it,
// and fails naming `ulimit -n` and lever (fdLever) when even the hard limit is too low.
func ensureFDs(need int, lever string) error {
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
		return fdError(need, soft, hard, lever)
	}
	return nil
}

// fdError is the error of a ladder that needs need open files against the limits;
// lever names what to lower instead (fdLever).
func fdError(need int, soft, hard uint64, lever string) error {
	return fmt.Errorf("the ladder needs about %d open files (connections) but the limit is %d "+
		"(hard limit %d): raise it with `ulimit -n %d` (or lower %s)", need, soft, hard, need, lever)
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
	steps := stepsBound(p, p.Steps())
	need := fdsNeeded(steps, p.Ladder, p.Target.IsSimulator())
	soft, hard, ok := OpenFilesLimit()
	if !ok || hard >= uint64(need) {
		return nil
	}
	return fdError(need, soft, hard, fdLever(steps, p.Ladder))
}
