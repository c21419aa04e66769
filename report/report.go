// Package report renders an Analysis (and the run directory's records) into the
// outputs people read: PDF, XLSX, charts, JSON, Markdown and CSV, one file per format.
package report

import (
	"errors"

	"github.com/llmcap/llmcap/analysis"
)

// Formats are the accepted report formats.
var Formats = []string{"pdf", "xlsx", "charts", "json", "md", "csv"}

// Write renders a into the run directory dir in each of formats (nil = all).
func Write(dir string, a *analysis.Analysis, formats []string) error {
	return errors.New("report.Write: not implemented yet")
}
