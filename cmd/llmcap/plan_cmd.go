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
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Validate a plan and print its steps with the estimated wall time",
		Example: `  llmcap plan -c configs/demo.yaml
  llmcap plan -c configs/demo.yaml --json | jq .estimated`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := g.loadPlan()
			if err != nil {
				return err
			}
			if !p.SLA.HasLatencySLA() {
				g.log.Warn(noSLA)
			}
			steps := p.Steps()
			total := plan.TotalEstimate(steps)
			if asJSON {
				return printJSON(cmd, planOutput{Plan: p.Redacted(), Steps: steps, Constraints: p.Constraints(),
					EstimatedNs: total, Estimated: total.Round(time.Second).String()})
			}
			return printPlan(cmd.OutOrStdout(), p, steps, total)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the resolved plan, steps and estimate as JSON")
	return cmd
}

// printPlan writes the human-readable plan: a header, one row per step, the total.
func printPlan(w io.Writer, p *plan.Plan, steps []plan.Step, total time.Duration) error {
	target := redactedURL(p)
	if p.Target.IsSimulator() {
		s := p.Target.Simulator
		target = fmt.Sprintf("embedded simulator (%s on %s×%d, max_num_seqs %d)", s.Model, s.GPU, s.TensorParallel, s.MaxNumSeqs)
	}
	fmt.Fprintf(w, "plan %q: %s against %s, model %s\n", p.Name, plural(len(steps), "step"), target, p.Target.Model)
	if cs := p.Constraints(); len(cs) > 0 {
		var parts []string
		for _, c := range cs {
			parts = append(parts, fmt.Sprintf("%s %s ≤ %g ms", c.Metric, c.Stat, c.ThresholdMs))
		}
		fmt.Fprintf(w, "SLA: %s, error rate ≤ %g\n", strings.Join(parts, ", "), p.SLA.MaxErrorRate)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tSEGMENT\tSCHEDULE\tLOAD\tWARM-UP\tWINDOW\tESTIMATE")
	for _, s := range steps {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Index, s.Segment, s.Schedule, loadText(s),
			warmupText(s.Warmup), windowText(s), roundDur(s.Estimated))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write plan: %w", err)
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

func redactedURL(p *plan.Plan) string { return p.Redacted().Target.URL }

func loadText(s plan.Step) string {
	switch s.Schedule {
	case plan.ScheduleConcurrency:
		return strconv.Itoa(s.Concurrency)
	case plan.ScheduleRate:
		return strconv.FormatFloat(s.Rate, 'g', -1, 64) + " req/s"
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
