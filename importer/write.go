package importer

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// checkOutDir refuses a run directory that exists and is not an empty directory: an
// import writes a new run, never into another one (rundir.CheckNewDir).
func checkOutDir(dir string) error {
	if _, err := rundir.CheckNewDir(dir); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}

// writeRun writes the run directory through rundir.Writer: each step's records (in
// send order) and its summary, then run.json (state complete). A directory it
// created is removed again when a write fails.
func writeRun(opts Options, p *plan.Plan, steps []plan.Step, srcs []*source) (err error) {
	created, err := rundir.CheckNewDir(opts.OutDir)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	w, err := rundir.OpenWriter(opts.OutDir)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	w.SetRedactor(p.Redactor())
	omitErr := w.OmitServerMetrics() // no scrapes: no server-metrics.jsonl (docs/import.md "What is lost")
	defer func() {
		if cerr := w.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("import: close %s: %w", opts.OutDir, cerr)
		}
		if err != nil && created {
			_ = rundir.RemoveNew(opts.OutDir) // the write's error is the one to report
		}
	}()
	if omitErr != nil {
		return fmt.Errorf("import: %w", omitErr)
	}
	first, last := span(srcs)
	runID := newRunID(p.Name, first)
	for i, s := range srcs {
		recs := records(s, runID, steps[i])
		if err := w.AppendRecords(recs); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		sum := summary(recs, runID, steps[i])
		if err := w.AppendStep(&sum); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	fin := last.UTC()
	meta := &rundir.RunMeta{RunID: runID, ToolVersion: opts.ToolVersion, ToolCommit: opts.ToolCommit,
		StartedAt: first.UTC(), FinishedAt: &fin, State: rundir.StateComplete, Plan: *p.Redacted(),
		RedactedFields: p.MaskedFields(), Steps: steps, Target: rundir.TargetInfo{URL: p.Redacted().Target.URL}}
	if err := w.WriteMeta(meta); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}

// records are s's requests as step st's records, in send order.
func records(s *source, runID string, st plan.Step) []*rundir.Record {
	out := make([]*rundir.Record, len(s.requests))
	for i := range s.requests {
		r := s.requests[i].record(runID, st)
		out[i] = &r
	}
	slices.SortStableFunc(out, func(a, b *rundir.Record) int {
		switch {
		case a.SentNs < b.SentNs:
			return -1
		case a.SentNs > b.SentNs:
			return 1
		}
		return 0
	})
	return out
}

// summary is step st's steps.jsonl line from its records: the step's span (first
// send → last response), the measured window (the measured requests' first send →
// last response), counts by phase and outcome, the mean prompt length of the
// successful measured requests and the most requests in flight at once. The steady
// state is left to the analysis.
func summary(recs []*rundir.Record, runID string, st plan.Step) rundir.StepSummary {
	sum := rundir.StepSummary{Step: st, RunID: runID,
		SteadyStateReason: "not judged at import (the analysis judges it)"}
	okPrompt, okN := 0.0, 0
	for _, r := range recs {
		end := max(r.EndNs, r.SentNs)
		sum.StartNs = minNonZero(sum.StartNs, r.SentNs)
		sum.EndNs = max(sum.EndNs, end)
		if r.Phase == rundir.PhaseWarmup {
			sum.WarmupRequests++
			continue
		}
		sum.MeasureRequests++
		sum.MeasureStartNs = minNonZero(sum.MeasureStartNs, r.SentNs)
		sum.MeasureEndNs = max(sum.MeasureEndNs, end)
		switch {
		case r.ErrorClass == rundir.ErrCancelled:
			sum.Cancelled++
			sum.Errors++
		case !r.OK():
			sum.Errors++
		default:
			okPrompt, okN = okPrompt+float64(r.PromptTokens), okN+1
		}
	}
	if okN > 0 {
		sum.AchievedPromptTokensMean = okPrompt / float64(okN)
	}
	sum.MaxInFlight = maxInFlight(recs)
	return sum
}

// maxInFlight is the most records whose [sent, end) intervals overlap.
func maxInFlight(recs []*rundir.Record) int {
	type ev struct {
		t     int64
		delta int
	}
	evs := make([]ev, 0, 2*len(recs))
	for _, r := range recs {
		evs = append(evs, ev{r.SentNs, 1}, ev{max(r.EndNs, r.SentNs), -1})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.delta - b.delta // an end before a send at the same instant
	})
	cur, most := 0, 0
	for _, e := range evs {
		cur += e.delta
		most = max(most, cur)
	}
	return most
}

// span is the first send and the last response over every source.
func span(srcs []*source) (time.Time, time.Time) {
	var first, last int64
	for _, s := range srcs {
		for i := range s.requests {
			q := &s.requests[i]
			first = minNonZero(first, q.sentNs)
			end := q.endNs
			if end == 0 && q.e2eMs != nil {
				end = q.sentNs + msToNs(*q.e2eMs)
			}
			last = max(last, end, q.sentNs)
		}
	}
	return time.Unix(0, first), time.Unix(0, last)
}

// newRunID is an import's run id: the name, the first send's time and 6 random hex
// digits, as the sweep's ids are made ("name-20261201T101500Z-1a2b3c").
func newRunID(name string, first time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	id := first.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
	if name == "" {
		return id
	}
	return strings.NewReplacer("/", "-", " ", "-", `\`, "-").Replace(name) + "-" + id
}

func minNonZero(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
