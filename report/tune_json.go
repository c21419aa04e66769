package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TuneJSONReport is tune-report.json: the tune result and every trial as the tune
// directory holds them, the search's plan, and the report's words for page 1, for
// scripts that read one file instead of three. The field names are stable.
type TuneJSONReport struct {
	// Title is the report's title; StartedAt when the search started; Tool the llmcap
	// that ran it ("llmcap v1.2.0 (67b5c33e2ddb)").
	Title     string    `json:"title"`
	StartedAt time.Time `json:"started_at"`
	Tool      string    `json:"tool"`
	// Summary is page 1 in words.
	Summary TuneJSONSummary `json:"summary"`
	// Result is tune-result.json as read.
	Result rundir.TuneResult `json:"result"`
	// Tune is the plan's tune section (nil when tune.json has none).
	Tune *plan.Tune `json:"tune,omitempty"`
	// Trials are trials.jsonl's trials, in trial-number order.
	Trials []rundir.Trial `json:"trials"`
	// Charts are the chart files written with this report, relative to the tune
	// directory (empty when the charts format was not asked for or nothing could be
	// plotted).
	Charts []string `json:"charts"`
}

// TuneJSONSummary is the tune report's page 1 in words.
type TuneJSONSummary struct {
	// Answer is TuneResult.Answer, as written; CommandLine its launch command as one
	// shell line (environment assignments, then the quoted argv).
	Answer      string `json:"answer"`
	CommandLine string `json:"command_line"`
	// Gain is the gain over the starting configuration in words ("+38% users over the
	// starting configuration").
	Gain string `json:"gain"`
	// Trials counts the trials run, OK those that measured their configuration, Failed
	// the others.
	Trials int `json:"trials"`
	OK     int `json:"ok"`
	Failed int `json:"failed"`
	// Stop says why the search stopped, in words (Result.Stop is the code).
	Stop string `json:"stop"`
	// Notes are the result's notes and what reading the directory found.
	Notes []string `json:"notes,omitempty"`
}

// tuneJSON builds the JSON report; charts are the chart files written (paths under
// the tune directory).
func tuneJSON(in *tuneInput, charts []string) TuneJSONReport {
	r := in.result
	out := TuneJSONReport{
		Title: tuneTitle(in), StartedAt: in.meta.StartedAt, Tool: tuneToolText(in.meta),
		Summary: TuneJSONSummary{Answer: r.Answer, CommandLine: tuneCommandText(r.Command, r.Env), Gain: tuneGainText(in),
			Trials: r.Trials, OK: r.OK, Failed: r.Trials - r.OK, Stop: tuneStopText(in), Notes: tuneNotes(in)},
		Result: *r, Tune: in.meta.Plan.Tune, Trials: in.trials, Charts: []string{},
	}
	if out.Trials == nil {
		out.Trials = []rundir.Trial{}
	}
	for _, c := range charts {
		if rel, err := filepath.Rel(in.dir, c); err == nil {
			out.Charts = append(out.Charts, filepath.ToSlash(rel))
		}
	}
	return out
}

// writeTuneJSON writes tune-report.json (indented).
func writeTuneJSON(path string, in *tuneInput, charts []string) error {
	b, err := json.MarshalIndent(tuneJSON(in, charts), "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return rundir.WriteFileAtomic(path, append(b, '\n'))
}
