package analysis

import "errors"

// Analyze reads the run directory dir (run.json, records.jsonl, steps.jsonl,
// server-metrics.jsonl, profiles/) and computes its Analysis.
func Analyze(dir string) (*Analysis, error) {
	return nil, errors.New("analysis.Analyze: not implemented yet")
}
