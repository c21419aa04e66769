// Package compare compares the run directories of several llmcap runs (`llmcap
// compare`): what differs between their resolved plans, each run's capacity within
// the SLA with its range, bottleneck, users and sizing (read from its analysis), a
// delta table at the loads every run measured with bootstrap confidence intervals over
// requests, and one verdict sentence. It reads the run directories only through rundir
// (records.jsonl, for the bootstrap) and takes each run's analysis as an
// *analysis.Analysis; it writes nothing (report.WriteCompare renders a Comparison).
// It imports analysis, plan, rundir and sla.
package compare

import (
	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// FormatVersion is the version of the Comparison's JSON (compare.json).
const FormatVersion = 1

// Input is one run to compare: its label (the name tables and the verdict use), its
// run directory and its analysis (analysis.json, or analysis.AnalyzeUnder for a
// common SLA). The first Input is the baseline.
type Input struct {
	Label    string
	Dir      string
	Analysis *analysis.Analysis
}

// Comparison is the comparison of two or more runs, the first the baseline; every
// slice indexed by run is in Input order.
type Comparison struct {
	FormatVersion int `json:"format_version"`
	// Baseline is the first run's label: every difference is against it.
	Baseline string `json:"baseline"`
	// Labels are the runs' labels in order.
	Labels []string `json:"labels"`
	// PlanDiff lists the resolved plans' fields (YAML key paths, e.g.
	// target.simulator.max_num_seqs) whose values differ between the runs, with each
	// run's value; fields with the same value in every run are left out.
	PlanDiff []FieldDiff `json:"plan_diff"`
	// SLA is the SLA every run is judged under (the runs' own, equal, or the --sla one);
	// Constraints its latency bounds; SLAOverridden says that it is the --sla one and
	// the runs were re-analysed under it.
	SLA           plan.SLA          `json:"sla"`
	Constraints   []plan.Constraint `json:"sla_constraints"`
	SLAOverridden bool              `json:"sla_overridden,omitempty"`
	// Runs holds each run's answer.
	Runs []RunSummary `json:"runs"`
	// Loads are, per segment (and the mix), the loads every run measured.
	Loads []SegmentLoads `json:"common_loads"`
	// Deltas are the delta table's rows: one per segment and common load.
	Deltas []LoadDelta `json:"deltas"`
	// Curves are, per segment every run has (and the mix), each run's measured steps:
	// the curves the report overlays.
	Curves []SegmentCurves `json:"curves"`
	// Bootstrap is how the differences' intervals were computed.
	Bootstrap Bootstrap `json:"bootstrap"`
	// Verdict is the one-sentence answer: which run serves more within the SLA.
	Verdict Verdict `json:"verdict"`
	// Drift compares the runs' output-drift probes (drift.jsonl, docs/drift.md); nil
	// unless at least two runs have one.
	Drift *DriftSection `json:"drift,omitempty"`
	// Notes are facts the reader needs (segments not in every run, no common load…).
	Notes []string `json:"notes,omitempty"`
}

// DriftSection is the comparison of the runs' temperature-0 outputs: each run's own
// repeatability (its analysis's drift section) and, for each other run with the probe,
// its outputs against the reference run's, prompt by prompt (each prompt's first
// output before the ladder; prompts whose text differs are counted apart).
type DriftSection struct {
	// Reference is the label of the run the others are compared with: the baseline
	// when it has the probe, else the first run that has it.
	Reference string `json:"reference"`
	// Runs holds one entry per run, in run order.
	Runs []RunDrift `json:"runs"`
}

// RunDrift is one run's drift: Probe says it has a drift.jsonl; Own is its own
// repeatability (between its repeats and after the ladder; nil without the probe);
// VsReference its outputs against the reference run's (nil for the reference and for
// a run without the probe).
type RunDrift struct {
	Label       string                  `json:"label"`
	Probe       bool                    `json:"probe"`
	Own         *analysis.Drift         `json:"own,omitempty"`
	VsReference *analysis.DriftBaseline `json:"vs_reference,omitempty"`
}

// FieldDiff is one plan field that differs: its path and each run's value as text
// ("–" when the run's plan does not set it).
type FieldDiff struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// Basis says whether a capacity was measured (a measured load, or at least the
// highest load tested) or modelled (interpolated or projected by the queueing model).
type Basis string

// Bases of a capacity.
const (
	BasisMeasured Basis = "measured"
	BasisModelled Basis = "modelled"
	BasisNone     Basis = "none" // no load met the SLA, or no data
)

// Bound says why a capacity is only a lower bound.
type Bound string

// Bounds of a capacity.
const (
	// BoundNone: the capacity is not a lower bound (a limit was found, measured or
	// modelled).
	BoundNone Bound = ""
	// BoundLadder: every load of the ladder met the SLA; the limit lies above its top.
	BoundLadder Bound = "no_limit_in_ladder"
	// BoundModelCap: the queueing model's projection beyond the ladder reached its cap
	// (2× the highest load tested): the capacity is at least the cap.
	BoundModelCap Bound = "model_projection_capped"
	// BoundInterrupted: the run stopped before its ladder ended, every finished step
	// meeting the SLA.
	BoundInterrupted Bound = "interrupted"
)

// RunSummary is one run's answer, read from its analysis (the overall capacity: the
// mix's, else the tightest segment's).
type RunSummary struct {
	Label string `json:"label"`
	Dir   string `json:"dir"`
	RunID string `json:"run_id"`
	// Schedule is the ladder's axis (concurrency, rate, users); Capacity the capacity
	// within the SLA on it (requests in flight, req/s or users), within RangeLow..
	// RangeHigh (RangeHigh 0 with OpenEnded: no upper bound).
	Schedule  string                  `json:"schedule"`
	Capacity  float64                 `json:"capacity"`
	RangeLow  float64                 `json:"range_low"`
	RangeHigh float64                 `json:"range_high"`
	OpenEnded bool                    `json:"open_ended,omitempty"`
	RangeKind analysis.RangeKind      `json:"range_kind,omitempty"`
	Method    analysis.CapacityMethod `json:"method"`
	Basis     Basis                   `json:"basis"`
	// Bound says why Capacity is only a lower bound (BoundNone: it is not): no limit
	// within the ladder, a model projection capped at 2× the highest load tested, or a
	// run interrupted before its ladder ended.
	Bound Bound `json:"bound,omitempty"`
	// HighestLoad is the highest load the run measured (the ladder's axis).
	HighestLoad float64 `json:"highest_load,omitempty"`
	// RunState is run.json's state when the run did not complete ("interrupted"…),
	// with the steps it finished of those planned.
	RunState       string `json:"run_state,omitempty"`
	StepsCompleted int    `json:"steps_completed,omitempty"`
	StepsPlanned   int    `json:"steps_planned,omitempty"`
	// Bottleneck is the regime that limits the capacity; QueueLimit what holds the
	// queue (bottleneck queue); Limiting the SLA bound that binds first.
	Bottleneck analysis.Regime     `json:"bottleneck"`
	QueueLimit analysis.QueueLimit `json:"queue_limit,omitempty"`
	Limiting   string              `json:"limiting_constraint,omitempty"`
	// Users are the users served within the SLA, thinking ThinkTimeS s between
	// requests (UsersSource: measured by a users ladder, or converted: an estimate).
	Users              int                  `json:"users"`
	UsersWithThinkTime float64              `json:"users_with_think_time"`
	ThinkTimeS         float64              `json:"think_time_s"`
	UsersSource        analysis.UsersSource `json:"users_source,omitempty"`
	// OutputTokensPerS is the output throughput at the capacity point (tokens/s).
	OutputTokensPerS float64 `json:"output_tokens_per_s_at_capacity"`
	// Sizing are the measured GPU's what-if rows, one per target users: replicas, GPUs,
	// cost per month and per 1M output tokens (USD; 0 without a price).
	Sizing []analysis.WhatIf `json:"sizing"`
	// GPU is the deployment's GPU (target.simulator.gpu or report.gpu).
	GPU string `json:"gpu,omitempty"`
	// Answer is the run's own answer sentence (analysis.json's).
	Answer string `json:"answer"`
}

// SegmentLoads are the loads every run measured in one segment ("mix" for the mix).
type SegmentLoads struct {
	Segment string    `json:"segment"`
	Loads   []float64 `json:"loads"`
}

// Metric is a delta table's metric.
type Metric string

// The delta table's metrics: latencies in ms (lower is better), throughputs per
// second (higher is better).
const (
	TTFTP50  Metric = "ttft_p50_ms"
	TTFTP95  Metric = "ttft_p95_ms"
	ITLP95   Metric = "itl_p95_ms"
	OutputTP Metric = "output_tokens_per_s"
	Goodput  Metric = "goodput_rps"
)

// Metrics are the delta table's metrics in order.
var Metrics = []Metric{TTFTP50, TTFTP95, ITLP95, OutputTP, Goodput}

// LowerIsBetter reports whether a smaller value of m is better (the latencies).
func (m Metric) LowerIsBetter() bool { return m == TTFTP50 || m == TTFTP95 || m == ITLP95 }

// MinEffect is the smallest relative difference (of the baseline's value) that the
// delta table calls Significant: below it a difference whose interval excludes 0 is
// Negligible. Resampling requests measures the sampling noise of one step, not the
// run-to-run noise of a machine, so a 0.5% TTFT shift can be "real" in the first sense
// and still not a difference between configurations.
const MinEffect = 0.05

// Significance says whether a difference is more than resampling noise.
type Significance string

// Significances of a difference.
const (
	// Significant: the difference's 95% interval excludes 0.
	Significant Significance = "significant"
	// Negligible: the interval excludes 0, but the difference is under MinEffect of
	// the baseline's value: real by the resampling, too small to matter (a difference of
	// a run's own timing, say 1 ms in 150).
	Negligible Significance = "negligible"
	// Noise: the interval contains 0.
	Noise Significance = "noise"
	// NoData: a run has no value (no successful request had the metric).
	NoData Significance = "no_data"
)

// LoadDelta is one row group of the delta table: a segment at a load every run
// measured, each metric's values and differences.
type LoadDelta struct {
	Segment string        `json:"segment"`
	Load    float64       `json:"load"`
	Metrics []MetricDelta `json:"metrics"`
}

// MetricDelta is one metric at one load: each run's value (N the requests behind it;
// N 0: no value) and each later run's difference from the baseline.
type MetricDelta struct {
	Metric Metric    `json:"metric"`
	Values []float64 `json:"values"`
	N      []int     `json:"n"`
	// Diffs[i] is run i+1 against the baseline.
	Diffs []Diff `json:"diffs"`
}

// Diff is one run's difference from the baseline: Diff = value − baseline (the
// metric's unit), Ratio = value ÷ baseline (0 when the baseline is 0), Low..High the
// difference's 95% bootstrap interval, Better whether the run is better on this metric
// (only meaningful when Significance is Significant).
type Diff struct {
	Run          string       `json:"run"`
	Diff         float64      `json:"diff"`
	Ratio        float64      `json:"ratio"`
	Low          float64      `json:"ci_low"`
	High         float64      `json:"ci_high"`
	Significance Significance `json:"significance"`
	Better       bool         `json:"better"`
}

// Bootstrap is how the differences' intervals were computed: Reps resamples of each
// run's measured requests at the step (drawn with replacement, each run independently,
// from a fixed Seed, so the same runs always give the same intervals), the 95%
// percentile interval of the resampled differences.
type Bootstrap struct {
	Reps  int     `json:"reps"`
	Seed  uint64  `json:"seed"`
	Level float64 `json:"level"`
}

// VerdictKind is what the verdict found.
type VerdictKind string

// Verdict kinds.
const (
	// VerdictBetter: one run serves more within the SLA and the capacities' ranges do
	// not overlap.
	VerdictBetter VerdictKind = "better"
	// VerdictUncertain: the capacities differ but their ranges overlap: the difference
	// is within the measurement's uncertainty.
	VerdictUncertain VerdictKind = "within_uncertainty"
	// VerdictSame: the capacities are equal.
	VerdictSame VerdictKind = "no_difference"
	// VerdictNoCapacity: no run met the SLA at any load tested.
	VerdictNoCapacity VerdictKind = "no_capacity"
	// VerdictLowerBound: the run ranked below has only a lower bound (RunSummary.Bound),
	// so it may serve as much or more: no winner until its ladder is extended.
	VerdictLowerBound VerdictKind = "lower_bound_unranked"
	// VerdictBothLowerBounds: both runs' capacities are lower bounds: no ratio.
	VerdictBothLowerBounds VerdictKind = "both_lower_bounds"
)

// Verdict is the comparison's answer: Better serves Factor× what Other serves within
// the SLA, counted in Unit (users, or the ladder's load when a run has no users), at
// CostRatio× Other's cost per replica-hour (0 when a price is missing). Sentence says
// it in one sentence (built in verdict.go, the one place).
type Verdict struct {
	Kind      VerdictKind `json:"kind"`
	Better    string      `json:"better,omitempty"`
	Other     string      `json:"other,omitempty"`
	Unit      string      `json:"unit"`
	Factor    float64     `json:"factor,omitempty"`
	CostRatio float64     `json:"cost_ratio,omitempty"`
	Sentence  string      `json:"sentence"`
}

// SegmentCurves are one segment's curves, one per run (in run order).
type SegmentCurves struct {
	Segment string     `json:"segment"`
	Runs    []RunCurve `json:"runs"`
}

// RunCurve is one run's steps of a segment, by load: the analysis's step statistics.
type RunCurve struct {
	Label  string       `json:"label"`
	Points []CurvePoint `json:"points"`
}

// CurvePoint is one step: its load and the delta table's metrics as the analysis
// computed them (latencies in ms, 0 with no successful request; output tokens/s and
// goodput in requests/s).
type CurvePoint struct {
	Load             float64 `json:"load"`
	TTFTP50Ms        float64 `json:"ttft_p50_ms"`
	TTFTP95Ms        float64 `json:"ttft_p95_ms"`
	ITLP95Ms         float64 `json:"itl_p95_ms"`
	OutputTokensPerS float64 `json:"output_tokens_per_s"`
	GoodputRps       float64 `json:"goodput_rps"`
	// HasLatency: a successful request had a TTFT (else the latencies are missing).
	HasLatency bool `json:"has_latency"`
}
