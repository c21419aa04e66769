package report

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/shellword"
)

// noSuccessText is the sentence that replaces the charts of a segment (or run) in
// which no request succeeded.
const noSuccessText = "No request succeeded, so there are no latency or throughput charts"

// segmentSucceeded reports whether some measured request of seg succeeded (its latency
// and throughput charts then have data).
func segmentSucceeded(seg analysis.SegmentAnalysis) bool {
	for _, s := range seg.Steps {
		if stepSucceeded(s) {
			return true
		}
	}
	return false
}

// stepSucceeded reports whether some measured request of s succeeded.
func stepSucceeded(s analysis.StepStats) bool {
	return s.Requests > s.Errors || s.E2EMs.N > 0 || s.TTFTMs.N > 0
}

// anySucceeded reports whether some measured request of any segment succeeded.
func anySucceeded(a *analysis.Analysis) bool {
	for _, seg := range allSegments(a) {
		if segmentSucceeded(seg) {
			return true
		}
	}
	return false
}

// noDataError is a chart left out because the run has no values for it; its message
// is a plain sentence for the reader (e.g. "no request produced two or more tokens").
type noDataError struct{ reason string }

func (e *noDataError) Error() string { return e.reason }

// noData returns a noDataError with the formatted reason.
func noData(format string, args ...any) error {
	return &noDataError{reason: fmt.Sprintf(format, args...)}
}

// chartMissingText is the one-line note shown instead of chart c: its plain reason
// when the data has nothing to plot, else a generic sentence (a drawing library's
// error text is no use to a reader; the chart is simply left out).
func chartMissingText(c Chart) string {
	var nd *noDataError
	if errors.As(c.Err, &nd) {
		return fmt.Sprintf("(%s: no chart, because %s.)", chartLabel(c), nd.reason)
	}
	return fmt.Sprintf("(%s: the chart could not be drawn from this run's data.)", chartLabel(c))
}

// chartLabel names a chart in prose: its title, else its file name.
func chartLabel(c Chart) string {
	if c.Title != "" {
		return strings.TrimSpace(c.Title)
	}
	return c.Name
}

// runDirText is the run directory as `llmcap report` takes it, as one shell word
// (single-quoted when it holds a space or another character the shell would read): the
// directory as the user gave it to `llmcap report` or `llmcap run` (relative stays
// relative, absolute stays absolute; only a trailing separator is dropped), else the
// run id when the directory is "." or unknown.
func runDirText(in *input) string {
	quote := shellword.Quote
	d := strings.TrimRight(in.dir, `/\`)
	if d == "" && strings.HasPrefix(in.dir, "/") {
		d = "/"
	}
	if d != "" && filepath.Clean(d) != "." {
		return quote(filepath.ToSlash(d))
	}
	if in.a.RunID != "" {
		return quote(in.a.RunID)
	}
	return "<run dir>"
}
