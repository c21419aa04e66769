// Package rundirtest writes run directories for tests: every package's tests build their
// fixture runs through it, so a fixture is always a run directory the real writer could
// have produced (rundir.Writer's files, run.json written atomically).
package rundirtest

import (
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// Run is the content of a fixture run directory, written exactly as given.
type Run struct {
	Meta    rundir.RunMeta
	Records []rundir.Record
	Steps   []rundir.StepSummary
	Metrics []rundir.MetricSample
}

// Write writes r into dir (created if needed) through rundir.Writer and fails t on error.
func Write(t testing.TB, dir string, r Run) {
	t.Helper()
	if err := WriteDir(dir, r); err != nil {
		t.Fatalf("write fixture run %s: %v", dir, err)
	}
}

// WriteDir writes r into dir (created if needed) through rundir.Writer: records,
// step summaries and metric samples as JSON lines, run.json atomically.
func WriteDir(dir string, r Run) error {
	w, err := rundir.OpenWriter(dir)
	if err != nil {
		return err
	}
	recs := make([]*rundir.Record, len(r.Records))
	for i := range r.Records {
		recs[i] = &r.Records[i]
	}
	err = w.AppendRecords(recs)
	for i := 0; err == nil && i < len(r.Steps); i++ {
		err = w.AppendStep(&r.Steps[i])
	}
	for i := 0; err == nil && i < len(r.Metrics); i++ {
		err = w.AppendMetric(&r.Metrics[i])
	}
	if err == nil {
		err = w.WriteMeta(&r.Meta)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// Ms returns a pointer to v, for a Record's latency fields.
func Ms(v float64) *float64 { return &v }

// Step is a plan step of a concurrency ladder: index i, segment seg, concurrency c.
func Step(i int, seg string, c int) plan.Step {
	return plan.Step{Index: i, Segment: seg, Schedule: plan.ScheduleConcurrency, Concurrency: c}
}
