package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/rundir"
)

// stepsCSVHeader is the header of steps.csv (units in the column names; "step" counts
// from 1, see stepNumber).
var stepsCSVHeader = []string{
	"segment", "step", "schedule", "load", "requests", "errors", "error_rate",
	"ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms", "ttfo_p95_ms", "itl_p50_ms", "itl_p95_ms",
	"e2e_p50_ms", "e2e_p95_ms", "request_throughput_rps", "output_tokens_per_s",
	"goodput_rps", "good_fraction", "per_user_output_tokens_per_s",
	"steady_state", "meets_sla", "regime",
	"warmup_requests", "unfinished", "achieved_rate_rps", "little_throughput_rps",
}

// stepsCSVRow is one step's CSV fields, in stepsCSVHeader order.
func stepsCSVRow(s analysis.StepStats) []string {
	f := func(v float64) string {
		if !finite(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 8, 64)
	}
	ttft, ttfo, itl, e2e := shown(s.TTFTMs), shown(s.TTFOMs), shown(s.ITLMs), shown(s.E2EMs)
	return []string{
		s.Segment, strconv.Itoa(stepNumber(s.Step)), s.Schedule, f(s.Load), strconv.Itoa(s.Requests),
		strconv.Itoa(s.Errors), f(s.ErrorRate),
		f(ttft.P50), f(ttft.P95), f(ttft.P99), f(ttfo.P95), f(itl.P50), f(itl.P95),
		f(e2e.P50), f(e2e.P95), f(s.RequestThroughput), f(s.OutputTokenThroughput),
		f(s.Goodput), f(s.GoodFraction), f(s.PerUserOutputTokensPerS),
		strconv.FormatBool(s.SteadyState), strconv.FormatBool(s.MeetsSLA), string(s.Regime),
		strconv.Itoa(s.WarmupRequests), strconv.Itoa(s.Unfinished), positiveText(s.AchievedRateRps), positiveText(s.LittleThroughputRps),
	}
}

// positiveText formats v for CSV when it is finite and > 0, else "" (not computed).
func positiveText(v float64) string {
	if !finite(v) || v <= 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 8, 64)
}

// writeStepsCSV writes steps.csv: one row per step of every segment and the mix.
func writeStepsCSV(path string, in *input) error {
	return rundir.WriteAtomic(path, func(f io.Writer) error {
		w := csv.NewWriter(f)
		_ = w.Write(stepsCSVHeader)
		for _, seg := range allSegments(in.a) {
			for _, s := range seg.Steps {
				if s.Segment == "" {
					s.Segment = seg.Segment
				}
				_ = w.Write(stepsCSVRow(s))
			}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
		return nil
	})
}
