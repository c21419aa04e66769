package profiles

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// QuickSLACheck is the knee's SLA verdict on one step's records: sla.Judge on the
// measured ones (measure and grace phases, those cut off at the end of the grace
// period apart), counted as the analysis counts them, so the knee (the first step that
// fails) is the analysis' first failing step. A step with no measured request fails.
func QuickSLACheck(recs []rundir.Record, spec plan.SLA) sla.Verdict {
	var c sla.Collector
	for i := range recs {
		if r := &recs[i]; r.Phase != rundir.PhaseWarmup {
			c.Add(sla.RecordRequest(r))
		}
	}
	return sla.Judge(spec, c.Sample())
}

// readStepRecords reads runDir's records (rundir's reader and damage rule: the file may
// be mid-append) and groups them by step index, keeping only steps whose step segment is
// segment. A missing records.jsonl has none.
func readStepRecords(runDir, segment string) (map[int][]rundir.Record, error) {
	if _, err := os.Stat(filepath.Join(runDir, rundir.FileRecords)); os.IsNotExist(err) {
		return nil, nil
	}
	out := map[int][]rundir.Record{}
	_, err := rundir.EachRecord(runDir, func(r *rundir.Record) error {
		seg := r.StepSegment
		if seg == "" {
			seg = r.Segment
		}
		if seg == segment {
			out[r.Step] = append(out[r.Step], *r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rundir.FileRecords, err)
	}
	return out, nil
}
