package merge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// waitPoll is Wait's polling gap.
const waitPoll = 2 * time.Second

// Wait blocks until every dir holds a run.json whose sweep is over — complete, failed,
// interrupted, or running with its sweep gone (rundir.SweepGone: killed) — or ctx ends
// (an error naming the shards still running or absent). It lets a merge Job start
// beside the shards (llmcap merge --wait).
func Wait(ctx context.Context, dirs []string) error {
	for {
		var pending []string
		for _, d := range dirs {
			if !sweepOver(d) {
				pending = append(pending, d)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("merge: waiting for the shards: %w; still running or absent: %v", ctx.Err(), pending)
		case <-time.After(waitPoll):
		}
	}
}

// sweepOver reports whether dir's sweep has ended.
func sweepOver(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, rundir.FileRun)); errors.Is(err, os.ErrNotExist) {
		return false
	}
	m, err := rundir.ReadMeta(dir)
	if err != nil {
		return false
	}
	return m.State != rundir.StateRunning || rundir.SweepGone(dir)
}
