package sweep

import (
	"errors"
	"fmt"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// Shard makes a sweep one shard of a sharded sweep (docs/distributed.md): shard Index
// (0-based) of Count drives its share of every step (shareOf), all shards on one
// timeline that starts at StartAt in the reference clock, or at the time shard 0's
// rendezvous endpoint (Rendezvous, host:port) gives once every shard has checked in.
type Shard struct {
	Index, Count int
	// StartAt is the common start of the first step (zero: from the rendezvous).
	StartAt time.Time
	// Rendezvous is host:port of shard 0's rendezvous endpoint: shard 0 listens on its
	// port, the others poll it (RendezvousTimeout bounds the wait; 0: 10 minutes).
	Rendezvous        string
	RendezvousTimeout time.Duration
}

// Shard limits.
const (
	// MaxShards bounds Shard.Count.
	MaxShards = 1000
	// startAtPastSlack is how far in the past a fresh shard's StartAt may be.
	startAtPastSlack = time.Second
)

// checkShard refuses a sharded sweep of p that could not give one run when merged:
// every error names the plan field or flag and what to do instead.
func checkShard(sh *Shard, p *plan.Plan, resume bool) error {
	var errs []error
	switch {
	case sh.Count < 1 || sh.Count > MaxShards:
		errs = append(errs, fmt.Errorf("--shard %d/%d: the count must be 1 to %d", sh.Index, sh.Count, MaxShards))
	case sh.Index < 0 || sh.Index >= sh.Count:
		errs = append(errs, fmt.Errorf("--shard %d/%d: the index must be 0 to %d", sh.Index, sh.Count, sh.Count-1))
	}
	if !resume && sh.StartAt.IsZero() && sh.Rendezvous == "" {
		errs = append(errs, errors.New("a shard needs a common start: --start-at TIME (RFC 3339, the same for every shard) or --rendezvous HOST:PORT (shard 0's address)"))
	}
	if !resume && !sh.StartAt.IsZero() && time.Until(sh.StartAt) < -startAtPastSlack {
		errs = append(errs, fmt.Errorf("--start-at %s is %v in the past: give a time after every shard will have started (e.g. 30 s from now)",
			sh.StartAt.Format(time.RFC3339), -time.Until(sh.StartAt).Round(time.Second)))
	}
	if p.Target.IsSimulator() {
		errs = append(errs, errors.New("target.url: the shards must share one server, and the embedded simulator would start one per shard: "+
			"start `llmcap serve-sim` and set target.url to it"))
	}
	if p.Target.Launch != nil {
		errs = append(errs, errors.New("target.launch: the shards must share one server, and each shard would launch its own: start the server apart and set target.url"))
	}
	if p.Ladder.Search != nil {
		errs = append(errs, errors.New("ladder.search: a capacity search's next load depends on every shard's results: give a fixed ladder (ladder.concurrency, ladder.rate or ladder.users)"))
	}
	if p.Drift != nil {
		errs = append(errs, errors.New("drift: the output-drift probe is not sharded: remove the drift section here and run it once, unsharded (it needs no load)"))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("sweep: shard: %w", errors.Join(errs...))
}

// splitInt is shard i's share of n split over count shards as evenly as integers
// allow: the first n mod count shards take one more.
func splitInt(n, i, count int) int {
	share := n / count
	if i < n%count {
		share++
	}
	return share
}

// shareOf is shard sh's part of step st: concurrency and users split as evenly as
// integers allow (splitInt), a rate's arrivals split exactly (every count-th arrival of
// the step's one arrival sequence: ownsArrival), so are a trace's rows; a
// request-bounded window and warm-up split by splitInt.
func shareOf(st plan.Step, sh *Shard) (plan.Step, rundir.ShardStep) {
	part := rundir.ShardStep{Index: sh.Index, Count: sh.Count}
	out := st
	switch st.Schedule {
	case plan.ScheduleConcurrency:
		out.Concurrency = splitInt(st.Concurrency, sh.Index, sh.Count)
		part.Load = float64(out.Concurrency)
	case plan.ScheduleUsers:
		out.Users = splitInt(st.Users, sh.Index, sh.Count)
		part.Load = float64(out.Users)
	case plan.ScheduleRate:
		part.Load = st.Rate / float64(sh.Count)
	}
	if st.Requests > 0 {
		out.Requests = splitInt(st.Requests, sh.Index, sh.Count)
		part.Requests = out.Requests
	}
	if st.Warmup.Requests > 0 {
		out.Warmup.Requests = splitInt(st.Warmup.Requests, sh.Index, sh.Count)
	}
	return out, part
}

// owns reports whether the k-th item (0-based) of a step's one sequence — an arrival
// of its rate, a row of its trace, a session of its closed loop — is shard sh's: every
// Count-th, from Index. Without a shard every item is.
func (sh *Shard) owns(k int) bool { return sh == nil || k%sh.Count == sh.Index }

// global is the index in the step's one sequence of the shard's k-th item (k without a
// shard).
func (sh *Shard) global(k int) int {
	if sh == nil {
		return k
	}
	return k*sh.Count + sh.Index
}
