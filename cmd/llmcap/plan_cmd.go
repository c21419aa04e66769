package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/plan/planref"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/tune"
)

// planOutput is `llmcap plan --json`: the resolved plan (secrets redacted), its steps
// and the estimated wall time.
type planOutput struct {
	Plan        *plan.Plan        `json:"plan"`
	Steps       []plan.Step       `json:"steps"`
	Constraints []plan.Constraint `json:"constraints"`
	// EstimatedNs is the total estimated wall time in ns; Estimated the same as text.
	EstimatedNs time.Duration `json:"estimated_ns"`
	Estimated   string        `json:"estimated"`
}

func newPlanCmd(g *globals) *cobra.Command {
	var asJSON, schema bool
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Validate a plan and print its steps with the estimated wall time",
		Example: `  llmcap plan -c configs/demo.yaml
  llmcap plan -c configs/demo.yaml --json | jq .estimated
  llmcap plan --schema > plan.schema.json   # the plan's JSON Schema, for editors`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if schema {
				return printSchema(cmd.OutOrStdout())
			}
			p, err := g.loadPlan()
			if err != nil {
				return err
			}
			if !p.SLA.HasLatencySLA() {
				g.log.Warn(noSLA)
			}
			steps := p.Steps()
			total := plan.TotalEstimate(steps)
			if p.Ladder.Search != nil {
				_, total = p.SearchEstimate()
			}
			// Every line goes through the plan's Redactor, like every other writer.
			out := redact.NewWriter(cmd.OutOrStdout(), p.Redactor())
			if asJSON {
				cmd.SetOut(out)
				err = printJSON(cmd, planOutput{Plan: p.Redacted(), Steps: steps, Constraints: p.Constraints(),
					EstimatedNs: total, Estimated: total.Round(time.Second).String()})
			} else {
				err = printPlan(out, p, steps, total)
			}
			if cerr := out.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("plan: %w", cerr)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the resolved plan, steps and estimate as JSON")
	cmd.Flags().BoolVar(&schema, "schema", false, "print the plan's JSON Schema (docs/plan.schema.json; docs/config.md) and exit")
	return cmd
}

// printSchema writes the plan's JSON Schema (draft 2020-12) to w; no plan is read.
func printSchema(w io.Writer) error {
	b, err := planref.JSONSchema()
	if err != nil {
		return fmt.Errorf("plan --schema: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("plan --schema: %w", err)
	}
	return nil
}

// printPlan writes the human-readable plan: a header, one row per step, the total.
func printPlan(w io.Writer, p *plan.Plan, steps []plan.Step, total time.Duration) error {
	target := redactedURL(p)
	if p.Target.IsSimulator() {
		s := p.Target.Simulator
		target = fmt.Sprintf("embedded simulator (%s on %s×%d, max_num_seqs %d)", s.Model, s.GPU, s.TensorParallel, s.MaxNumSeqs)
	}
	what := plural(len(steps), "step")
	if s := p.Ladder.Search; s != nil {
		searches := fmt.Sprintf("%d capacity searches", len(steps))
		if len(steps) == 1 {
			searches = "1 capacity search"
		}
		what = fmt.Sprintf("%s over %s from %g to %g (at most %d steps each, tolerance %g; the first steps below)",
			searches, s.Over, s.Start, s.Max, s.MaxSteps, s.Tolerance)
	}
	if p.Tune != nil {
		target = "each tune trial's server"
	}
	fmt.Fprintf(w, "plan %q: %s against %s, model %s\n", p.Name, what, target, p.Target.Model)
	for _, line := range tune.Describe(p) {
		fmt.Fprintln(w, line)
	}
	if cs := p.Constraints(); len(cs) > 0 {
		var parts []string
		for _, c := range cs {
			parts = append(parts, fmt.Sprintf("%s %s ≤ %g ms", c.Metric, c.Stat, c.ThresholdMs))
		}
		fmt.Fprintf(w, "SLA: %s, error rate ≤ %g\n", strings.Join(parts, ", "), p.SLA.MaxErrorRate)
	}
	if len(p.Ladder.Users) > 0 {
		fmt.Fprintf(w, "users: a closed population; each user thinks %s on average (%s) between requests\n",
			p.SLA.ThinkTime, p.Ladder.ThinkDist())
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "STEP\tSEGMENT\tSCHEDULE\tLOAD\tWARM-UP\tWINDOW\tESTIMATE"
	if p.Capture.Enabled {
		header += "\tCAPTURE"
	}
	fmt.Fprintln(tw, header)
	var notes []string
	knee := false
	for _, s := range steps {
		warm, window := warmupText(s.Warmup), windowText(s)
		if s.Schedule == plan.ScheduleTrace {
			var note string
			warm, window, note = traceTexts(p, s)
			if note != "" {
				notes = append(notes, note)
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s", s.Index+1, s.Segment, s.Schedule, loadText(s),
			warm, window, roundDur(s.Estimated))
		if p.Capture.Enabled {
			mark := p.CaptureMark(s)
			knee = knee || mark == plan.CaptureMarkKnee
			fmt.Fprintf(tw, "\t%s", orDash(mark))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	for _, n := range notes {
		fmt.Fprintf(w, "warning: %s\n", n)
	}
	if knee {
		fmt.Fprintln(w, "capture knee: a step is captured unless an earlier step of its segment already failed the quick SLA check")
	}
	if b := stepBoundText(p, steps); b != "" {
		fmt.Fprintln(w, b)
	}
	if d := driftText(p); d != "" {
		fmt.Fprintln(w, d)
	}
	if p.Ladder.Search != nil {
		n, _ := p.SearchEstimate()
		_, err := fmt.Fprintf(w, "\nestimated wall time: at most %s (%s if every search used its max_steps, each at most its warm-up, "+
			"window, whole grace and cool-down; the target's start-up and preflight come on top; a search usually stops earlier)\n",
			roundDur(total), plural(n, "step"))
		return err
	}
	_, err := fmt.Fprintf(w, "\nestimated wall time: %s (%s)\n", roundDur(total), plural(len(steps), "step"))
	return err
}

// noSLA is the plan-time warning (and, for run, the error) of a plan without a
// latency SLA.
const noSLA = "no SLA: capacity is undefined (set at least one of sla.ttft_ms, sla.ttfo_ms, sla.itl_ms, sla.e2e_ms, e.g. sla: {ttft_ms: {p95: 500}})"

// plural is "1 step" or "n steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// traceTexts are a trace step's warm-up and window columns, read from the trace
// itself (its request count and time-scaled duration), and a warning when the
// window (ladder.duration) cuts the trace short or nothing is left to measure.
func traceTexts(p *plan.Plan, s plan.Step) (warm, window, note string) {
	var tr *plan.Trace
	for i := range p.Segments {
		if p.Segments[i].Name == s.Segment {
			tr = p.Segments[i].Trace
		}
	}
	if tr == nil {
		return warmupText(s.Warmup), windowText(s), ""
	}
	rows, span, err := tr.Span()
	if err != nil {
		return warmupText(s.Warmup), windowText(s), fmt.Sprintf("step %d: %v", s.Index+1, err)
	}
	n := plan.TraceWarmupRequests(s.Warmup, rows)
	warm = "-"
	if n > 0 {
		warm = fmt.Sprintf("%d req (≤%g%% of trace)", n, plan.TraceWarmupFraction*100)
	}
	window = fmt.Sprintf("trace: %d req over %s", rows-n, roundDur(span))
	switch {
	case rows-n < 1:
		note = fmt.Sprintf("step %d (%s): the trace has %d requests; nothing is left to measure after warm-up", s.Index+1, s.Segment, rows)
	case s.Duration > 0 && s.Duration < span:
		window = fmt.Sprintf("first %s of %s trace", s.Duration, roundDur(span))
		note = fmt.Sprintf("step %d (%s): ladder.duration %s ends before the trace (%d requests over %s after time_scale); its tail is not replayed",
			s.Index+1, s.Segment, s.Duration, rows, roundDur(span))
	}
	return warm, window, note
}

func redactedURL(p *plan.Plan) string { return p.Redacted().Target.URL }

func loadText(s plan.Step) string {
	switch s.Schedule {
	case plan.ScheduleConcurrency:
		return strconv.Itoa(s.Concurrency)
	case plan.ScheduleRate:
		return strconv.FormatFloat(s.Rate, 'g', -1, 64) + " req/s"
	case plan.ScheduleUsers:
		return strconv.Itoa(s.Users) + " users"
	}
	return "trace"
}

func warmupText(w plan.Warmup) string {
	var parts []string
	if w.Requests > 0 {
		parts = append(parts, fmt.Sprintf("%d req", w.Requests))
	}
	if w.Duration > 0 {
		parts = append(parts, w.Duration.String())
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " + ")
}

func windowText(s plan.Step) string {
	switch {
	case s.Duration > 0 && s.Requests > 0:
		return fmt.Sprintf("%s or %d req", s.Duration, s.Requests)
	case s.Requests > 0:
		return fmt.Sprintf("%d req", s.Requests)
	case s.Duration > 0:
		return s.Duration.String()
	}
	return "whole trace"
}

// roundDur rounds for display: 0.1 s under a minute, else 1 s.
func roundDur(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// orDash returns s, or "–" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// stepBoundText is the plan's step wall-time bound line (plan.Plan.StepTimeout): "step
// wall-time bound: 5m0s (derived; ladder.step_timeout sets it)", a range when the steps
// differ; "" without steps.
func stepBoundText(p *plan.Plan, steps []plan.Step) string {
	if len(steps) == 0 {
		return ""
	}
	lo, hi := steps[0].Timeout, steps[0].Timeout
	for _, s := range steps {
		lo, hi = min(lo, s.Timeout), max(hi, s.Timeout)
	}
	b := roundDur(lo)
	if hi != lo {
		b = roundDur(lo) + " to " + roundDur(hi)
	}
	src := "derived; ladder.step_timeout sets it"
	if p.Ladder.StepTimeout > 0 {
		src = "ladder.step_timeout"
	}
	return fmt.Sprintf("step wall-time bound: %s (%s)", b, src)
}

// driftText is the plan's drift probe in one line ("" without one): what it sends and
// that the wall-time estimate leaves it out (its time is the server's answer time).
func driftText(p *plan.Plan) string {
	d := p.Drift
	if d == nil {
		return ""
	}
	n := "the embedded 50"
	if prompts, err := d.LoadPrompts(); err == nil {
		n = strconv.Itoa(len(prompts))
	}
	sends := fmt.Sprintf("%s prompts × %d passes before the ladder", n, d.Repeats)
	if d.After {
		sends += " and 1 after it"
	}
	return fmt.Sprintf("drift probe: %s, %d output tokens each, %d at a time (not in the wall-time estimate below)",
		sends, d.MaxTokens, d.Concurrency)
}
