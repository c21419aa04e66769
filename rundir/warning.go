package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// WarningKind names what a run.json warning is about. Decisions read the kind (and
// Warning's typed fields), never the wording of Warning.Message.
type WarningKind string

// The kinds of warning the sweep writes to run.json.
const (
	// WarnNotStreaming: the preflight probe got a plain JSON body for stream:true, so
	// TTFT = E2E and ITL is meaningless. Run-wide.
	WarnNotStreaming WarningKind = "not-streaming"
	// WarnHeldOpenAfterDone: the server kept responses open after [DONE]; Data.Count is
	// how many (the connections were closed; the measurements are unaffected). Run-wide,
	// one per run (a resumed run replaces the count).
	WarnHeldOpenAfterDone WarningKind = "held-open-after-done"
	// WarnTraceWindowCut: a trace step's measurement window (ladder.duration) ends before
	// the trace does, so its tail is not replayed; Data.Count is the trace's requests.
	WarnTraceWindowCut WarningKind = "trace-window-cut"
	// WarnTraceTooShort: a trace step has no request left to measure after its warm-up;
	// Data.Count is the trace's requests.
	WarnTraceTooShort WarningKind = "trace-too-short"
	// WarnCaptureFailed: profile captures failed with one error (Data.Error) at the
	// steps Data.Steps lists ("chat c=2"); one warning per distinct error. Run-wide.
	WarnCaptureFailed WarningKind = "capture-failed"
	// WarnMixedPlans: the run was resumed with --force under a plan that differs from
	// run.json's; Data.Steps lists the steps done before (under run.json's plan), Data.Error
	// the differing fields. Run-wide.
	WarnMixedPlans WarningKind = "mixed-plans"
	// WarnStoppedEarly: a step's measurement window closed early because its error rate
	// was already past the SLA's bound (StepSummary.StoppedEarly). One per step.
	WarnStoppedEarly WarningKind = "stopped-early"
	// WarnDriftSkipped: the drift probe (plan.Drift) could not run: its prompts could not
	// be read (Data.Error says why). Run-wide.
	WarnDriftSkipped WarningKind = "drift-skipped"
	// WarnShardOffTimeline: in a merged run (llmcap merge), a shard ran this step off
	// the common timeline (rundir.ShardStep.Late: a resumed shard re-running it alone,
	// or a step that overran its slot), so the shards' loads did not overlap through its
	// window; Data.Steps names the shards ("shard 2/4"). One per step.
	WarnShardOffTimeline WarningKind = "shard-off-timeline"
	// WarnLegacy: a plain-string warning of an older run.json (its kind is unknown;
	// Message holds the string).
	WarnLegacy WarningKind = "legacy"
)

// RunWide is Warning.Step for a warning about no single step.
const RunWide = -1

// Warning is one of the sweep's warnings about the measurement's validity, in run.json.
// Step is the step index, RunWide (-1) when the warning concerns no single step (then
// omitted from the JSON); Segment is "" when it concerns no single segment. Message is
// the human sentence shown as written.
type Warning struct {
	Kind    WarningKind  `json:"kind"`
	Segment string       `json:"segment,omitempty"`
	Step    int          `json:"step"`
	Message string       `json:"message"`
	Data    *WarningData `json:"data,omitempty"`
}

// WarningData holds a warning's figures; which are set depends on its Kind.
type WarningData struct {
	// Count: responses held open (WarnHeldOpenAfterDone), the trace's requests
	// (WarnTraceWindowCut, WarnTraceTooShort).
	Count int `json:"count,omitempty"`
	// Steps are the steps a WarnCaptureFailed warning hit, as "segment c=N" or
	// "segment r=R/s" labels.
	Steps []string `json:"steps,omitempty"`
	// Error is the capture error of a WarnCaptureFailed warning.
	Error string `json:"error,omitempty"`
	// File, Line and Torn locate damaged lines (the analysis's damaged-lines warning):
	// the file's base name, the first corrupt line (1-based) and whether a torn last
	// line was dropped; Count is then the corrupt lines.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Torn bool   `json:"torn,omitempty"`
}

// warningJSON is Warning's JSON form: Step is omitted when run-wide.
type warningJSON struct {
	Kind    WarningKind  `json:"kind"`
	Segment string       `json:"segment,omitempty"`
	Step    *int         `json:"step,omitempty"`
	Message string       `json:"message"`
	Data    *WarningData `json:"data,omitempty"`
}

// MarshalJSON writes w as an object, without "step" when it is run-wide.
func (w Warning) MarshalJSON() ([]byte, error) {
	j := warningJSON{Kind: w.Kind, Segment: w.Segment, Message: w.Message, Data: w.Data}
	if w.Step >= 0 {
		j.Step = &w.Step
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a warning object (a missing "step" is RunWide), or the plain
// string an older run.json holds (Kind WarnLegacy, Message the string); any other JSON
// value (null, a number) reads as a legacy warning whose message is that value's text
// ("" for null).
func (w *Warning) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("warning: %w", err)
		}
		*w = Warning{Kind: WarnLegacy, Step: RunWide, Message: s}
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		// null, a number, a list: no warning the sweep writes; kept as legacy text (""
		// for null) so one odd entry never makes a run unreadable.
		*w = Warning{Kind: WarnLegacy, Step: RunWide}
		if string(b) != "null" {
			w.Message = string(b)
		}
		return nil
	}
	var j warningJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("warning %s: %w", truncate(string(b), 80), err)
	}
	*w = Warning{Kind: j.Kind, Segment: j.Segment, Step: RunWide, Message: j.Message, Data: j.Data}
	if j.Step != nil {
		w.Step = *j.Step
	}
	return nil
}

// Same reports whether w and o are the same warning: the same kind about the same
// segment and step (a resumed run re-raising a warning replaces rather than repeats it).
func (w Warning) Same(o Warning) bool {
	return w.Kind == o.Kind && w.Segment == o.Segment && w.Step == o.Step &&
		(w.Kind != WarnLegacy || w.Message == o.Message) // legacy warnings have no other identity
}
