// Package importer turns another benchmark tool's per-request results into an ordinary
// llmcap run directory (run.json, records.jsonl, steps.jsonl), so that `llmcap analyze`
// and `llmcap report` work on them unchanged: AIPerf's per-request export
// (profile_export.jsonl, with its profile_export_aiperf.json beside it; aiperf.go) and
// the result JSON of `vllm bench serve --save-result --save-detailed` (vllmbench.go).
// Several files form one ladder, one step per file ordered by load (ladder.go).
// docs/import.md gives the field mappings and what is lost.
//
// It imports plan and rundir only, and writes the run directory only through rundir.
package importer

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// Format is a source tool's result format that Import reads.
type Format string

// Formats Import reads.
const (
	// FormatAIPerf is AIPerf's per-request export, profile_export.jsonl (one
	// MetricRecordInfo JSON object per line: metadata, metrics as {value, unit}, error),
	// read with the run's configuration from profile_export_aiperf.json beside it.
	FormatAIPerf Format = "aiperf"
	// FormatVLLMBench is the result JSON of vllm bench serve --save-result
	// --save-detailed (per-request arrays ttfts, itls, input_lens, output_lens,
	// errors, in seconds and tokens, plus the run's summary and traffic settings).
	FormatVLLMBench Format = "vllm-bench"
)

// Formats are the formats Import reads, in the order the CLI lists them.
var Formats = []Format{FormatAIPerf, FormatVLLMBench}

// Options says what to import and where.
type Options struct {
	Format Format
	// Files are the source files, one step each (any order: the ladder is ordered by
	// load). For FormatAIPerf a directory stands for its profile_export.jsonl.
	Files []string
	// OutDir is the run directory to create; it must not exist or be empty.
	OutDir string
	// Overrides are plan overrides keyed by dotted path (the CLI's --set), e.g.
	// sla.ttft_ms.p95; they win over what the import derives. ladder.* and segments
	// are the imported measurement's and are refused (ErrOverride).
	Overrides map[string]any
	// ToolVersion and ToolCommit are llmcap's own, written into run.json.
	ToolVersion string
	ToolCommit  rundir.ToolCommit
}

// Result is what Import wrote.
type Result struct {
	Dir  string
	Plan *plan.Plan
	// Steps are the imported steps in ladder order.
	Steps []StepResult
	// Skipped are the source records left out as corrupt, in file order.
	Skipped []Skip
}

// StepResult is one imported step: its source file, load and request counts.
type StepResult struct {
	File     string
	Step     plan.Step
	Measured int // measured requests (AIPerf's profiling phase, every vLLM request)
	Warmup   int // warm-up requests (AIPerf's warmup phase)
	Errors   int // measured requests that failed
	// RenamedIDs are the records whose request id repeated an earlier record's in the
	// file and got "#2", "#3"… appended, so that the analysis counts each of them.
	RenamedIDs int
}

// Skip is one source record left out because it does not decode or holds an
// impossible value: its file, its place (Line, 1-based, for a JSON Lines file; Index,
// 0-based, for a request of a vLLM result's arrays) and why, naming the field.
type Skip struct {
	File   string
	Line   int // 0 when Index applies
	Index  int
	Reason string
}

func (s Skip) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s line %d: %s", s.File, s.Line, s.Reason)
	}
	return fmt.Sprintf("%s request %d: %s", s.File, s.Index, s.Reason)
}

// ErrOverride marks an override that an import does not take (ladder.*, segments):
// the CLI reports it as a usage error.
var ErrOverride = errors.New("override not allowed for an import")

// Import reads opts.Files in opts.Format and writes the run directory opts.OutDir:
// run.json (the plan of the imported ladder, the default SLA unless Overrides set
// one, its description naming the tool and the files), records.jsonl and
// steps.jsonl. Errors name the file, and the line or request and field where one is
// at fault; a corrupt record is skipped and listed in Result.Skipped, a file with no
// usable record is refused. An existing non-empty OutDir is refused before anything
// is read.
func Import(opts Options) (*Result, error) {
	if len(opts.Files) == 0 {
		return nil, errors.New("no file to import")
	}
	if err := checkOutDir(opts.OutDir); err != nil {
		return nil, err
	}
	srcs := make([]*source, 0, len(opts.Files))
	for _, f := range opts.Files {
		s, err := readSource(opts.Format, f)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, s)
	}
	srcs, err := orderLadder(srcs)
	if err != nil {
		return nil, err
	}
	p, steps, err := buildPlan(opts.Format, srcs, opts.Overrides)
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: opts.OutDir, Plan: p}
	for i, s := range srcs {
		res.Steps = append(res.Steps, stepResult(s, steps[i]))
		res.Skipped = append(res.Skipped, s.skipped...)
	}
	if err := writeRun(opts, p, steps, srcs); err != nil {
		return nil, err
	}
	return res, nil
}

// readSource reads one file of format f.
func readSource(f Format, path string) (*source, error) {
	switch f {
	case FormatAIPerf:
		return readAIPerf(path)
	case FormatVLLMBench:
		return readVLLMBench(path)
	}
	names := make([]string, len(Formats))
	for i, x := range Formats {
		names[i] = string(x)
	}
	return nil, fmt.Errorf("unknown import format %q: want one of %s", f, strings.Join(names, ", "))
}

// displayName is path as the messages name it: as given, cleaned.
func displayName(path string) string { return filepath.Clean(path) }
