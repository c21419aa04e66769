package analysis

import (
	"fmt"

	"github.com/llmcap/llmcap/rundir"
)

// WarningKind names what a warning is about: rundir's type, so the sweep's warnings
// ("not-streaming", "capture-failed", …, "legacy") and the analysis's share one kind
// space. Decisions (which warnings touch the headline, which run state the analysis
// saw) read the kind and Warning's typed fields, never the wording of Warning.Message.
type WarningKind = rundir.WarningKind

// The kinds of warning the analysis raises, in the order Analyze lists them.
const (
	// WarnSpeedUp: the simulator ran faster than real time (Analysis.SpeedUp).
	WarnSpeedUp WarningKind = "speed-up"
	// WarnDamagedLines: lines of a run-directory JSONL file did not decode (rundir's
	// damage rule); Data.File names the file, Data.Count the corrupt lines, Data.Line the
	// first one, Data.Torn a dropped torn last line. One warning per damaged file.
	WarnDamagedLines WarningKind = "damaged-lines"
	// WarnDuplicateRecords: records.jsonl lines repeated a request already read (the
	// same run_id, step and request_id) and were ignored; Data.File names the file,
	// Data.Count the ignored lines.
	WarnDuplicateRecords WarningKind = "duplicate-records"
	// WarnUnknownSteps: records.jsonl lines of a complete run named a step the run does
	// not have (not in steps.jsonl) and were left out; Data.File names the file,
	// Data.Count the records, Data.Steps the step numbers (counted from 1).
	WarnUnknownSteps WarningKind = "unknown-steps"
	// WarnRunIncomplete: run.json's state is not complete (Analysis.RunState); the
	// unfinished steps were left out.
	WarnRunIncomplete WarningKind = "run-incomplete"
	// WarnUnfinished: more than 5% of a step's measured requests were unfinished (still
	// in flight when the step ended; StepStats.Unfinished). Named "cancelled" before
	// analysis.json format 4.
	WarnUnfinished WarningKind = "unfinished"
	// WarnStepTimeout: the step's wall-time bound ended it (StepStats.CutByStepTimeout).
	WarnStepTimeout WarningKind = "step-timeout"
	// WarnSimulatorLate: the embedded simulator ran late in a step (StepStats.SimulatorLate).
	WarnSimulatorLate WarningKind = "simulator-late"
	// WarnClientReadLate: the client read a step's streams late, by more than an ITL
	// at p95 (clientReadLate), so some events carry a later arrival time than their own.
	WarnClientReadLate WarningKind = "client-read-late"
	// WarnIgnoredMaxTokens: a step's server returned far more tokens than max_tokens
	// (StepStats.OverMaxTokens).
	WarnIgnoredMaxTokens WarningKind = "ignored-max-tokens"
	// WarnNotSteady: a step did not reach steady state.
	WarnNotSteady WarningKind = "not-steady"
	// WarnFitUnderdetermined: a segment's model was fitted to fewer than 3 steps.
	WarnFitUnderdetermined WarningKind = "fit-underdetermined"
	// WarnSlotsNotIdentified: no step of a segment saturated the server.
	WarnSlotsNotIdentified WarningKind = "slots-not-identified"
	// WarnFitMeaningless: a segment's TTFT fit has R² < 0 or no step has ITL.
	WarnFitMeaningless WarningKind = "fit-meaningless"
	// WarnITLNotApplicable: a segment's ITL constraints did not apply (1-token replies).
	WarnITLNotApplicable WarningKind = "itl-not-applicable"
	// WarnSlotsBandOpen: the slots' band of a segment has no upper bound.
	WarnSlotsBandOpen WarningKind = "slots-band-open"
	// WarnClientLimited: the load generator, not the server, limited open-loop steps.
	WarnClientLimited WarningKind = "client-limited"
	// WarnCapacityAtLeast: every step of a segment met the SLA (a lower bound), or, when
	// the client limited the load, the bound is the client's.
	WarnCapacityAtLeast WarningKind = "capacity-at-least"
	// WarnCapacityProjected: a segment's capacity is the model's projection.
	WarnCapacityProjected WarningKind = "capacity-projected"
	// WarnCapacityNoData: a segment has no measured requests.
	WarnCapacityNoData WarningKind = "capacity-no-data"
	// WarnCapacityBelowFirstStep: a segment fails the SLA at its lowest load.
	WarnCapacityBelowFirstStep WarningKind = "capacity-below-first-step"
	// WarnSizing: what-if rows were left out or skipped (no capacity, unknown GPU,
	// weights that do not fit).
	WarnSizing WarningKind = "sizing"
	// WarnGPUCount: the GPU exporter (DCGM) reported more GPUs than one replica uses
	// (sizing's GPUs per replica), so the per-step power, J per output token and the
	// energy cost count GPUs the replica does not run on; Data.Count is the exporter's
	// GPU count.
	WarnGPUCount WarningKind = "gpu-count"
	// WarnGPUEnergyCoverage: the GPU exporter's scrapes spanned under EnergyCoverageMin
	// of some steps' measurement windows (failed or missing scrapes), so their GPU
	// power, energy and J per output token describe only that part; Data.Steps names
	// the steps (stepLabel).
	WarnGPUEnergyCoverage WarningKind = "gpu-energy-coverage"
	// WarnUndefinedNumbers: NaN/Inf values were written as 0.
	WarnUndefinedNumbers WarningKind = "undefined-numbers"

	// The notes on the headline, last: run-wide, about Analysis.Overall.

	// WarnErrorRateAboveSLA: steps whose error rate exceeds the SLA's bound, listed
	// (unless a segment's SLA already fails on errors at its lowest load).
	WarnErrorRateAboveSLA WarningKind = "error-rate-above-sla"
	// WarnHeadlineProjected: the headline capacity is a model projection.
	WarnHeadlineProjected WarningKind = "headline-projected"
	// WarnHeadlineAtLeast: the headline capacity is the highest load tested.
	WarnHeadlineAtLeast WarningKind = "headline-at-least"
	// WarnHeadlineBelowFirstStep: the headline SLA fails at the lowest load (not by errors).
	WarnHeadlineBelowFirstStep WarningKind = "headline-below-first-step"
	// WarnHeadlineNoData: no measured step had data.
	WarnHeadlineNoData WarningKind = "headline-no-data"
	// WarnWhatIfProjected: some what-if rows are roofline projections.
	WarnWhatIfProjected WarningKind = "what-if-projected"
	// WarnNondeterministic: the drift probe's outputs changed between repeats at
	// temperature 0 (Drift.Verdict nondeterministic); Data.Count is the prompts changed.
	WarnNondeterministic WarningKind = "nondeterministic"
	// WarnDriftBaseline: outputs changed against the drift baseline run
	// (DriftBaseline.Changed); Data.Count is the prompts changed.
	WarnDriftBaseline WarningKind = "drift-baseline"
)

// Warning is one warning of analysis.json (rundir.Warning): its kind, the segment it
// concerns ("" when it concerns the whole run or the headline), the step index it
// concerns (rundir.RunWide, -1, when none: then omitted from the JSON), the sentence
// shown, and for the sweep's warnings their figures. A plain string (an analysis.json
// older than FormatVersion 2) reads as kind "legacy".
type Warning = rundir.Warning

// warning is a run-wide warning of kind k.
func warning(k WarningKind, format string, args ...any) Warning {
	return Warning{Kind: k, Step: rundir.RunWide, Message: fmt.Sprintf(format, args...)}
}

// segmentWarning is a warning of kind k about segment seg (and no single step).
func segmentWarning(k WarningKind, seg, msg string) Warning {
	return Warning{Kind: k, Segment: seg, Step: rundir.RunWide, Message: msg}
}

// stepWarning is a warning of kind k about step s of segment seg.
func stepWarning(k WarningKind, seg string, s *StepStats, msg string) Warning {
	return Warning{Kind: k, Segment: seg, Step: s.Step, Message: msg}
}

// fromSweep is the analysis warning of one of run.json's warnings: its kind, segment
// and step, the message prefixed "sweep: ".
func fromSweep(w rundir.Warning) Warning {
	w.Message = "sweep: " + w.Message
	return w
}

// WarningMessages are the messages of a's warnings, in order.
func (a *Analysis) WarningMessages() []string {
	out := make([]string, len(a.Warnings))
	for i, w := range a.Warnings {
		out[i] = w.Message
	}
	return out
}
