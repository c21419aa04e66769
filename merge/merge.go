// Package merge combines the run directories of a sharded sweep (llmcap sweep --shard
// I/N) into one ordinary run directory that analyze and report read like any run
// (docs/distributed.md). It checks the shards first (Check: one plan, every shard
// present once, every step finished, clocks measured within bounds, steps aligned on
// the common timeline) and refuses, naming every problem, rather than merge a partial
// or misaligned run; then it writes run.json, records.jsonl (every shard's records
// re-based onto the reference clock), steps.jsonl (the shards' step summaries
// combined) and server-metrics.jsonl (one shard's scrapes per endpoint) through rundir.
package merge

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// Defaults of Options' bounds.
const (
	// DefaultAlignTolerance bounds the spread of the shards' starts of one step, in the
	// reference clock, beyond their clocks' uncertainty.
	DefaultAlignTolerance = 500 * time.Millisecond
	// DefaultMaxClockUncertainty bounds a shard's clock uncertainty.
	DefaultMaxClockUncertainty = 250 * time.Millisecond
)

// Options are a merge's inputs.
type Options struct {
	// Dirs are the shards' run directories, in any order.
	Dirs []string
	// Out is the merged run directory to write (new or empty).
	Out string
	// AlignTolerance and MaxClockUncertainty bound the checks (0: the defaults).
	AlignTolerance      time.Duration
	MaxClockUncertainty time.Duration
}

func (o Options) align() time.Duration {
	if o.AlignTolerance > 0 {
		return o.AlignTolerance
	}
	return DefaultAlignTolerance
}

func (o Options) maxUncertainty() time.Duration {
	if o.MaxClockUncertainty > 0 {
		return o.MaxClockUncertainty
	}
	return DefaultMaxClockUncertainty
}

// Result is what a merge wrote.
type Result struct {
	Dir      string
	Shards   int
	Steps    int
	Records  int
	Warnings []rundir.Warning
	// AlignNs is the largest spread of an on-timeline step's shard starts.
	AlignNs int64
}

// Problems is a refused merge: every problem found, each naming the shard (and step).
type Problems []string

func (p Problems) Error() string {
	return fmt.Sprintf("merge refused (%d problem%s):\n  %s", len(p), plural(len(p)), strings.Join(p, "\n  "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Merge checks the shards of o.Dirs and writes the merged run to o.Out. A refused merge
// returns Problems (errors.As) and writes nothing; a failed write removes the directory
// it created.
func Merge(o Options) (*Result, error) {
	if len(o.Dirs) == 0 {
		return nil, errors.New("merge: no shard directories")
	}
	set, err := Check(o)
	if err != nil {
		return nil, err
	}
	absent, err := rundir.CheckNewDir(o.Out)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	res, err := write(set, o)
	if err != nil && absent {
		if rerr := rundir.RemoveNew(o.Out); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("merge: write %s: %w", o.Out, err)
	}
	return res, nil
}
