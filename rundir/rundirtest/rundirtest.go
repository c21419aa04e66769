// Package rundirtest writes run directories for tests: every package's tests build their
// fixture runs through it, so a fixture is always a run directory the real writer could
// have produced (rundir.Writer's files, run.json written atomically).
package rundirtest

import (
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// Run is the content of a fixture run directory. Zero fields are filled: Meta.RunID
// ("fixture"), Meta.State (complete), Meta.StartedAt (2026-01-01T00:00:00Z), and
// Meta.Steps from Steps when empty.
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

// WriteDir writes r into dir (created if needed) through rundir.Writer.
func WriteDir(dir string, r Run) error {
	m := r.Meta
	if m.RunID == "" {
		m.RunID = "fixture"
	}
	if m.State == "" {
		m.State = rundir.StateComplete
	}
	if m.StartedAt.IsZero() {
		m.StartedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if len(m.Steps) == 0 {
		for _, s := range r.Steps {
			m.Steps = append(m.Steps, s.Step)
		}
	}
	w, err := rundir.OpenWriter(dir)
	if err != nil {
		return err
	}
	recs := make([]*rundir.Record, len(r.Records))
	for i := range r.Records {
		recs[i] = &r.Records[i]
	}
	if err := w.AppendRecords(recs); err != nil {
		w.Close()
		return err
	}
	for i := range r.Steps {
		if err := w.AppendStep(&r.Steps[i]); err != nil {
			w.Close()
			return err
		}
	}
	for i := range r.Metrics {
		if err := w.AppendMetric(&r.Metrics[i]); err != nil {
			w.Close()
			return err
		}
	}
	if err := w.WriteMeta(&m); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// Ms returns a pointer to v, for a Record's latency fields.
func Ms(v float64) *float64 { return &v }

// Step is a plan step of a concurrency ladder: index i, segment seg, concurrency c.
func Step(i int, seg string, c int) plan.Step {
	return plan.Step{Index: i, Segment: seg, Schedule: plan.ScheduleConcurrency, Concurrency: c}
}
