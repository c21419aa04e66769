package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sweep"
)

// jobIndexEnv is the variable a Kubernetes Indexed Job sets to each pod's index.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// shardFlags are sweep's sharding flags (docs/distributed.md).
type shardFlags struct {
	spec       string // --shard I/N
	shards     int    // --shards N, the index from JOB_COMPLETION_INDEX
	startAt    string
	rendezvous string
	timeout    time.Duration
}

func (f *shardFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.spec, "shard", "", "drive shard I of N of every step (I/N, 0-based: concurrency and users split as evenly as "+
		"integers allow, a rate's arrivals and a trace's rows every N-th); merge the shards with llmcap merge")
	fl.IntVar(&f.shards, "shards", 0, "as --shard with the index from $"+jobIndexEnv+" (a Kubernetes Indexed Job sets it)")
	fl.StringVar(&f.startAt, "start-at", "", "a shard's common start of the first step (RFC 3339, the same for every shard; "+
		"its clock is read from the target's Date header)")
	fl.StringVar(&f.rendezvous, "rendezvous", "", "HOST:PORT of shard 0, which listens on PORT and starts every shard "+
		"together once all have checked in (instead of --start-at; the others read its clock)")
	fl.DurationVar(&f.timeout, "rendezvous-timeout", sweep.DefaultRendezvousTimeout, "how long a shard waits for every shard at the rendezvous")
}

// given reports whether any sharding flag is set.
func (f *shardFlags) given() bool {
	return f.spec != "" || f.shards != 0 || f.startAt != "" || f.rendezvous != ""
}

// parse is the flags' shard (nil when no sharding flag is given); errors name the flag.
func (f *shardFlags) parse() (*sweep.Shard, error) {
	if !f.given() {
		return nil, nil
	}
	sh := &sweep.Shard{Rendezvous: f.rendezvous, RendezvousTimeout: f.timeout}
	var err error
	switch {
	case f.spec != "" && f.shards != 0:
		return nil, usageErr(fmt.Errorf("--shard %s and --shards %d: give one (--shards takes the index from $%s)", f.spec, f.shards, jobIndexEnv))
	case f.spec != "":
		if sh.Index, sh.Count, err = parseShardSpec(f.spec); err != nil {
			return nil, usageErr(err)
		}
	case f.shards != 0:
		v, ok := os.LookupEnv(jobIndexEnv)
		if !ok {
			return nil, usageErr(fmt.Errorf("--shards %d: $%s is not set (a Kubernetes Indexed Job sets it; elsewhere use --shard I/%d)", f.shards, jobIndexEnv, f.shards))
		}
		if sh.Index, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
			return nil, usageErr(fmt.Errorf("--shards %d: $%s=%q is not an index", f.shards, jobIndexEnv, v))
		}
		sh.Count = f.shards
	default:
		return nil, usageErr(fmt.Errorf("--start-at and --rendezvous are for shards: add --shard I/N (or --shards N)"))
	}
	if f.startAt != "" {
		if sh.StartAt, err = time.Parse(time.RFC3339Nano, f.startAt); err != nil {
			return nil, usageErr(fmt.Errorf("--start-at %q: want RFC 3339, e.g. %s", f.startAt, time.Now().Add(time.Minute).UTC().Format(time.RFC3339)))
		}
	}
	return sh, nil
}

// parseShardSpec reads "I/N" (0 ≤ I < N ≤ sweep.MaxShards).
func parseShardSpec(s string) (index, count int, err error) {
	a, b, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(a))
	count, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || count < 1 || count > sweep.MaxShards || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N ≤ %d, e.g. --shard 0/4", s, sweep.MaxShards)
	}
	return index, count, nil
}

// shardResume reports whether dir already holds shard sh's run (a restarted shard pod:
// the sweep resumes it rather than refusing the directory).
func shardResume(dir string, sh *sweep.Shard) bool {
	if sh == nil || dir == "" {
		return false
	}
	m, err := rundir.ReadMeta(dir)
	return err == nil && m.Shard != nil && m.Shard.Index == sh.Index && m.Shard.Count == sh.Count
}
