package main

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/plan"
)

// fdMargin mirrors sweep's reserve of file descriptors beyond the connections (the
// run directory's files, the scraper, a launched server's pipes, the log).
const fdMargin = 64

// fdsNeeded is the file descriptors p's sweep needs, counted as the sweep counts them
// (sweep/fdlimit.go): one connection per in-flight request, twice for the in-process
// simulator (it holds the server side too), plus fdMargin. Open-loop steps count
// ceil(rate), or ladder.max_concurrency when set.
func fdsNeeded(p *plan.Plan) int {
	most := 0
	for _, st := range p.Steps() {
		n := st.Concurrency
		if st.Schedule != plan.ScheduleConcurrency {
			n = int(math.Ceil(st.Rate))
			if p.Ladder.MaxConcurrency > 0 {
				n = p.Ladder.MaxConcurrency
			}
		}
		most = max(most, n)
	}
	if p.Target.IsSimulator() {
		most *= 2
	}
	return most + fdMargin
}

// checkOpenFiles fails, before any run directory exists, when p's ladder needs more
// open files than the hard RLIMIT_NOFILE allows (the sweep raises the soft limit up
// to the hard one itself, so only the hard limit can stop it). Where the limit is
// unknown it passes.
func checkOpenFiles(p *plan.Plan) error {
	need := fdsNeeded(p)
	soft, hard, ok := openFilesLimit()
	if !ok || hard >= uint64(need) {
		return nil
	}
	return fmt.Errorf("the ladder needs about %d open files (connections) but the limit is %d (hard limit %d): "+
		"raise it with `ulimit -n %d` (or lower the ladder's concurrency)", need, soft, hard, need)
}
