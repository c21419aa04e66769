package report

import (
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// runDate is the run's start time: run.json's started_at, else the earliest record's
// sent time, else the zero time. Reports use it instead of the wall clock.
func runDate(dir string, records []rundir.Record) time.Time {
	if meta, err := rundir.ReadMeta(dir); err == nil && !meta.StartedAt.IsZero() {
		return meta.StartedAt.UTC()
	}
	var first int64
	for i := range records {
		if s := records[i].SentNs; s > 0 && (first == 0 || s < first) {
			first = s
		}
	}
	if first == 0 {
		return time.Time{}
	}
	return time.Unix(0, first).UTC()
}
