package report

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/llmcap/llmcap/analysis"
)

// JSONReport is report.json: the analysis plus the chart files written next to it.
type JSONReport struct {
	// Analysis is the analysis the report was rendered from (analysis.json's content).
	Analysis *analysis.Analysis `json:"analysis"`
	// RunDate is the run's start (RFC 3339, UTC); empty when unknown.
	RunDate string `json:"run_date,omitempty"`
	// Charts are chart file paths relative to the run directory (SVG and PNG).
	Charts []string `json:"charts"`
	// Records is the number of request records read from records.jsonl.
	Records int `json:"records"`
}

// writeJSON writes report.json (indented, stable field order).
func writeJSON(path string, in *input, charts []string) error {
	r := JSONReport{Analysis: in.a, Charts: charts, Records: len(in.records)}
	if r.Charts == nil {
		r.Charts = []string{}
	}
	if !in.date.IsZero() {
		r.RunDate = in.date.Format("2006-01-02T15:04:05Z07:00")
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
