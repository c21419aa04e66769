package report

import (
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// runDate is the run's start time: run.json's started_at (meta, nil when unreadable),
// else the earliest record's sent time (firstSentNs, Unix ns; 0: none), else the zero
// time. Reports use it instead of the wall clock.
func runDate(meta *rundir.RunMeta, firstSentNs int64) time.Time {
	if meta != nil && !meta.StartedAt.IsZero() {
		return meta.StartedAt.UTC()
	}
	if firstSentNs <= 0 {
		return time.Time{}
	}
	return time.Unix(0, firstSentNs).UTC()
}
