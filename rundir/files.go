package rundir

import (
	"time"

	"github.com/llmcap/llmcap/plan"
)

// File names inside a run directory (the contract between stages).
const (
	FileRun           = "run.json"
	FileRecords       = "records.jsonl"
	FileSteps         = "steps.jsonl"
	FileServerMetrics = "server-metrics.jsonl"
	DirProfiles       = "profiles"
	FileServerLog     = "server.log" // output of a server started from target.launch
)

// RunMeta is run.json: the resolved plan (secrets redacted), tool version and commit,
// host, the target's /v1/models answer, and the run's state.
type RunMeta struct {
	RunID string `json:"run_id"`
	// ToolVersion is the llmcap version that started the run: "dev", a -ldflags
	// "-X main.version=…" value, or the module version of a go install …@version.
	ToolVersion string `json:"tool_version"`
	// ToolCommit is the commit that llmcap was built from (absent: unknown).
	ToolCommit ToolCommit `json:"tool_commit,omitzero"`
	Host       string     `json:"host"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	State      string     `json:"state"` // running | interrupted | complete | failed
	Plan       plan.Plan  `json:"plan"`
	// RedactedFields are the fields of Plan whose secrets are masked
	// (plan.Plan.MaskedFields: "target.url", "target.launch.command[5]"): a resume
	// needs the original plan file (-c) to send their real values.
	RedactedFields []string    `json:"redacted_fields,omitempty"`
	Steps          []plan.Step `json:"steps"`
	Models         any         `json:"models,omitempty"` // the target's GET /v1/models body
	Target         TargetInfo  `json:"target"`
	// Warnings are the sweep's warnings about the measurement's validity, typed by
	// kind (e.g. WarnNotStreaming: the server ignored stream:true, so TTFT = E2E); an
	// older run.json's plain strings read as WarnLegacy warnings.
	Warnings []Warning `json:"warnings,omitempty"`
	// Error is why the run failed (State "failed"), e.g. a preflight failure.
	Error string `json:"error,omitempty"`
	// Searches are the capacity searches of a ladder.search plan, one per segment (and
	// the mix), in run order; Steps then holds the steps the searches chose.
	Searches []SearchLog `json:"searches,omitempty"`
	// Shard marks one shard of a sharded sweep (llmcap sweep --shard I/N).
	Shard *ShardInfo `json:"shard,omitempty"`
	// Merged marks a run combined from shards by llmcap merge.
	Merged *MergeInfo `json:"merged,omitempty"`
}

// SearchLog is one segment's capacity search (plan.Search): the steps it chose, in
// order, and, once it ended, why (a capsearch.StopReason) and its final bracket.
type SearchLog struct {
	Segment string       `json:"segment"`
	Over    string       `json:"over"`
	Steps   []SearchStep `json:"steps"`
	// Stop is why the search ended ("" while it runs): adjacent, tolerance,
	// max_steps, max_load, below_min or no_progress.
	Stop string `json:"stop,omitempty"`
	// PassLoad is the largest passing load below FailLoad, the smallest failing one
	// (0: none).
	PassLoad float64 `json:"pass_load,omitempty"`
	FailLoad float64 `json:"fail_load,omitempty"`
}

// SearchStep is one step a search chose: its index in RunMeta.Steps, its load, whether
// the queueing model chose it (and the capacity it predicted then) and, once measured,
// the SLA judge's verdict (Unreliable: the simulator ran late, no evidence).
type SearchStep struct {
	Index         int     `json:"index"`
	Load          float64 `json:"load"`
	Guided        bool    `json:"guided,omitempty"`
	PredictedLoad float64 `json:"predicted_load,omitempty"`
	Judged        bool    `json:"judged,omitempty"`
	Pass          bool    `json:"pass,omitempty"`
	Unreliable    bool    `json:"unreliable,omitempty"`
}

// Run states in RunMeta.State.
const (
	StateRunning     = "running"
	StateInterrupted = "interrupted"
	StateComplete    = "complete"
	StateFailed      = "failed"
)

// TargetInfo describes the server actually driven (the simulator's resolved settings
// when the target is the embedded engine).
type TargetInfo struct {
	URL       string         `json:"url"`
	Simulator bool           `json:"simulator"`
	Settings  map[string]any `json:"settings,omitempty"`
}

// StepSummary is one line of steps.jsonl, written when a step ends.
type StepSummary struct {
	plan.Step
	RunID string `json:"run_id"`
	// Window: measurement window start/end (unix ns), and the step's own start/end.
	StartNs        int64 `json:"start_ns"`
	MeasureStartNs int64 `json:"measure_start_ns"`
	MeasureEndNs   int64 `json:"measure_end_ns"`
	EndNs          int64 `json:"end_ns"`
	// Counts by phase and outcome.
	WarmupRequests  int `json:"warmup_requests"`
	MeasureRequests int `json:"measure_requests"`
	GraceRequests   int `json:"grace_requests"`
	Errors          int `json:"errors"`
	Cancelled       int `json:"cancelled"`
	// Unfinished counts the measured requests still in flight when the step ended
	// (error_class unfinished; docs/metrics.md "Unfinished requests").
	Unfinished int `json:"unfinished"`
	// CutByStepTimeout: the step's wall-time bound (plan.Step.Timeout) ended it before
	// its window or grace period did.
	CutByStepTimeout bool `json:"cut_by_step_timeout,omitempty"`
	// SteadyState is the sweep's own quick verdict (analysis recomputes its own).
	SteadyState       bool   `json:"steady_state"`
	SteadyStateReason string `json:"steady_state_reason"`
	// IntendedPromptTokensMean vs AchievedPromptTokensMean (from usage).
	IntendedPromptTokensMean float64 `json:"intended_prompt_tokens_mean"`
	AchievedPromptTokensMean float64 `json:"achieved_prompt_tokens_mean"`
	// EarlyStopped marks the step that triggered the early-stop rule.
	EarlyStopped bool `json:"early_stopped,omitempty"`
	// SLAViolation, when the early-stop rule is enabled, names the SLA constraint this
	// step broke by more than early_stop.factor (empty when none); resume uses it to
	// continue the consecutive-violation count.
	SLAViolation string `json:"sla_violation,omitempty"`
	// StoppedEarly, when set, is why the step's measurement window closed before its
	// planned end (StopErrorRate: the error rate was already past the SLA's bound, see
	// docs/metrics.md "Fast failures"); StoppedAfter is how many measured requests had
	// finished then and StoppedErrorRate (0..1) their error rate. The step is measured
	// (its requests are recorded) and fails the SLA.
	StoppedEarly     StopReason `json:"stopped_early,omitempty"`
	StoppedAfter     int        `json:"stopped_after,omitempty"`
	StoppedErrorRate float64    `json:"stopped_error_rate,omitempty"`
	// OverMaxTokens counts the measured successful requests whose output far exceeded
	// the max_tokens they were sent (OverMaxTokens): a server that ignores max_tokens.
	OverMaxTokens int `json:"over_max_tokens,omitempty"`
	// MaxInFlight is the most requests the sweep had in flight at once during the step.
	MaxInFlight  int    `json:"max_in_flight,omitempty"`
	Captured     string `json:"captured,omitempty"` // profile directory when captured
	CaptureError string `json:"capture_error,omitempty"`
	// Shard is a shard's part in the step (a sharded sweep's run directory; the Step
	// fields keep the whole step's load).
	Shard *ShardStep `json:"shard,omitempty"`
	// Shards are the shards' parts of a merged step (llmcap merge), by shard index.
	Shards []ShardStep `json:"shards,omitempty"`
}

// StopReason says why a step's measurement window closed early (StepSummary.StoppedEarly).
type StopReason string

// StopErrorRate: the step's error rate was already past the SLA's bound with
// confidence, so the rest of its window could not change its verdict.
const StopErrorRate StopReason = "error_rate"

// Over-max_tokens rule (OverMaxTokens): output beyond both this multiple of max_tokens
// and max_tokens plus this slack is a server ignoring max_tokens, not a tokenizer
// difference or a few special tokens.
const (
	OverMaxTokensFactor = 1.5
	OverMaxTokensSlack  = 16
)

// OverMaxTokens reports whether a reply of output tokens ignored the max_tokens it was
// sent (intended: the record's IntendedOutputTokens, which the sweep sends as
// max_tokens; ≤ 0: none sent): output > OverMaxTokensFactor × intended and
// > intended + OverMaxTokensSlack.
func OverMaxTokens(intended, output int) bool {
	return intended > 0 && float64(output) > OverMaxTokensFactor*float64(intended) && output > intended+OverMaxTokensSlack
}

// MetricSample is one line of server-metrics.jsonl: one scrape of one endpoint,
// flattened to name{labels} → value (histograms as _sum/_count/_bucket{le=}).
type MetricSample struct {
	TimeNs int64              `json:"time_ns"`
	Step   int                `json:"step"` // step running at scrape time (-1 between steps)
	URL    string             `json:"url"`
	Values map[string]float64 `json:"values"`
}
