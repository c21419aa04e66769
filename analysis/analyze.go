package analysis

import "errors"

// Analyze reads the run directory dir (run.json, records.jsonl, steps.jsonl,
// server-metrics.jsonl, profiles/) and computes its Analysis.
func Analyze(dir string) (*Analysis, error) {
	return nil, errors.New("analysis.Analyze: not implemented yet")
}

// WriteJSON writes a as dir/analysis.json.
func WriteJSON(dir string, a *Analysis) error {
	return errors.New("analysis.WriteJSON: not implemented yet")
}

// ReadJSON reads dir/analysis.json.
func ReadJSON(dir string) (*Analysis, error) {
	return nil, errors.New("analysis.ReadJSON: not implemented yet")
}
