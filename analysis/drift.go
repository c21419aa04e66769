package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// DriftVerdict is what the drift probe showed about the server's temperature-0 outputs.
type DriftVerdict string

// Drift verdicts (Drift.Verdict).
const (
	// DriftDeterministic: every compared prompt got the same output every time.
	DriftDeterministic DriftVerdict = "deterministic"
	// DriftNondeterministic: some prompt got a different output on another repeat (or
	// after the ladder).
	DriftNondeterministic DriftVerdict = "nondeterministic"
	// DriftUntested: nothing could be compared (one repeat and no phase after the
	// ladder, or every request failed).
	DriftUntested DriftVerdict = "untested"
)

// Drift is analysis.json's drift section: the output-drift probe's result, read from
// drift.jsonl (docs/drift.md). Outputs are compared by their SHA-256, each against the
// reference of its prompt (its first output before the ladder).
type Drift struct {
	// Prompts is the number of prompts in the set; Repeats the passes before the
	// ladder; After whether it was also sent after the ladder.
	Prompts int  `json:"prompts"`
	Repeats int  `json:"repeats"`
	After   bool `json:"after"`
	// Seed, MaxTokens: the probe's request settings (plan.Drift; temperature 0).
	Seed      int64 `json:"seed"`
	MaxTokens int   `json:"max_tokens"`
	// Compared are the prompts whose reference and at least one other output
	// succeeded; Identical those of them whose every successful output matched the
	// reference; Changed the others, in prompt order.
	Compared  int           `json:"compared"`
	Identical int           `json:"identical"`
	Changed   []DriftChange `json:"changed,omitempty"`
	// Failed counts the probe requests that failed (error lines).
	Failed  int          `json:"failed"`
	Verdict DriftVerdict `json:"verdict"`
	// Text is the result in one plain sentence, as every output shows it.
	Text string `json:"text"`
	// Baseline compares this run's reference outputs with another run's (llmcap
	// analyze --baseline DIR); nil without one.
	Baseline *DriftBaseline `json:"baseline,omitempty"`
}

// DriftChange is one prompt whose output changed: the first output that differs from
// the reference (phase and repeat), where (DiffersAt: the first differing character,
// 0-based), and both texts as drift.jsonl kept them (at most rundir.DriftTextBytes).
type DriftChange struct {
	Prompt    int               `json:"prompt"`
	Phase     rundir.DriftPhase `json:"phase"`
	Repeat    int               `json:"repeat"`
	DiffersAt int               `json:"differs_at"`
	Reference string            `json:"reference"`
	Text      string            `json:"text"`
}

// DriftBaseline is this run's outputs compared with another run's, prompt by prompt (the
// first output before the ladder of each; prompts whose text differs are not compared).
type DriftBaseline struct {
	// Dir is the baseline run directory as given; RunID its run id.
	Dir   string `json:"dir"`
	RunID string `json:"run_id"`
	// Compared, Identical and Changed as in Drift; OtherPrompts counts the prompts
	// whose text differs between the runs (not compared).
	Compared     int           `json:"compared"`
	Identical    int           `json:"identical"`
	Changed      []DriftChange `json:"changed,omitempty"`
	OtherPrompts int           `json:"other_prompts,omitempty"`
	// Mismatch names the probe settings that differ between the runs ("drift.max_tokens
	// 64 against 128"): outputs of different probes are not compared (Compared 0).
	Mismatch string `json:"mismatch,omitempty"`
	Text     string `json:"text"`
}

// driftOf is the run's drift section from its drift.jsonl lines (nil without the
// probe: no drift.jsonl).
func driftOf(recs []rundir.DriftRecord, ok bool, d *plan.Drift) *Drift {
	if !ok {
		return nil
	}
	out := &Drift{Verdict: DriftUntested}
	if d != nil {
		out.Seed, out.MaxTokens, out.Repeats, out.After = d.Seed, d.MaxTokens, d.Repeats, d.After
	}
	byPrompt := map[int][]rundir.DriftRecord{}
	for _, r := range recs {
		byPrompt[r.Prompt] = append(byPrompt[r.Prompt], r)
		out.Prompts = max(out.Prompts, r.Prompt+1)
		if !r.OK() {
			out.Failed++
		}
	}
	for _, p := range slices.Sorted(maps.Keys(byPrompt)) {
		ref, others := driftReference(byPrompt[p])
		if ref == nil || len(others) == 0 {
			continue
		}
		out.Compared++
		if c, changed := firstChange(ref, others); changed {
			out.Changed = append(out.Changed, c)
		} else {
			out.Identical++
		}
	}
	switch {
	case out.Compared == 0:
	case len(out.Changed) > 0:
		out.Verdict = DriftNondeterministic
	default:
		out.Verdict = DriftDeterministic
	}
	out.Text = driftText(out)
	return out
}

// driftReference splits one prompt's lines into its reference (the first repeat before the
// ladder, when it succeeded) and its other successful outputs, in phase and repeat order.
func driftReference(lines []rundir.DriftRecord) (*rundir.DriftRecord, []rundir.DriftRecord) {
	var ref *rundir.DriftRecord
	var others []rundir.DriftRecord
	for i := range lines {
		r := &lines[i]
		switch {
		case !r.OK():
		case r.Phase == rundir.DriftBefore && r.Repeat == 0:
			ref = r
		default:
			others = append(others, *r)
		}
	}
	slices.SortFunc(others, func(a, b rundir.DriftRecord) int {
		if a.Phase != b.Phase {
			return strings.Compare(string(b.Phase), string(a.Phase)) // before, then after
		}
		return a.Repeat - b.Repeat
	})
	return ref, others
}

// firstChange is the first of others whose hash differs from ref's.
func firstChange(ref *rundir.DriftRecord, others []rundir.DriftRecord) (DriftChange, bool) {
	for _, o := range others {
		if o.SHA256 != ref.SHA256 {
			return changeOf(ref, &o), true
		}
	}
	return DriftChange{}, false
}

// changeOf describes o's difference from ref: where from the line's differs_at, else
// from the kept texts (at or after the shorter kept text when they agree that far).
func changeOf(ref, o *rundir.DriftRecord) DriftChange {
	at := rundir.FirstDiff(ref.Text, o.Text)
	if o.DiffersAt != nil {
		at = *o.DiffersAt
	} else if at < 0 {
		at = len([]rune(o.Text))
	}
	return DriftChange{Prompt: o.Prompt, Phase: o.Phase, Repeat: o.Repeat, DiffersAt: at, Reference: ref.Text, Text: o.Text}
}

// driftText is the drift section's sentence.
func driftText(d *Drift) string {
	where := "between repeats"
	if d.After && d.Repeats > 1 {
		where = "between repeats or after the ladder"
	} else if d.After {
		where = "after the ladder"
	}
	failed := ""
	if d.Failed > 0 {
		failed = fmt.Sprintf(" (%s failed)", plural(d.Failed, "probe request"))
	}
	switch d.Verdict {
	case DriftNondeterministic:
		return fmt.Sprintf("%d of %d outputs changed %s at temperature 0: this server is not deterministic; "+
			"for a reasoning model, think-mode sampling is a known cause%s.", len(d.Changed), d.Compared, where, failed)
	case DriftDeterministic:
		return fmt.Sprintf("All %d outputs were identical %s at temperature 0 (seed %d, %d tokens): this server is deterministic%s.",
			d.Compared, where, d.Seed, d.MaxTokens, failed)
	}
	if d.Repeats <= 1 && !d.After {
		return fmt.Sprintf("The drift probe sent its %d prompts once: nothing to compare within the run (set drift.repeats: 2, or compare with --baseline)%s.",
			d.Prompts, failed)
	}
	return fmt.Sprintf("The drift probe could not compare any output: no prompt got two successful answers%s.", failed)
}

// driftWarnings are the warnings of a drift section: a nondeterministic server (kind
// WarnNondeterministic) and outputs changed against the baseline (WarnDriftBaseline).
func driftWarnings(d *Drift) []Warning {
	if d == nil {
		return nil
	}
	var out []Warning
	if d.Verdict == DriftNondeterministic {
		w := warning(WarnNondeterministic, "%s", d.Text)
		w.Data = &rundir.WarningData{Count: len(d.Changed)}
		out = append(out, w)
	}
	if b := d.Baseline; b != nil && len(b.Changed) > 0 {
		w := warning(WarnDriftBaseline, "%s", b.Text)
		w.Data = &rundir.WarningData{Count: len(b.Changed)}
		out = append(out, w)
	}
	return out
}
