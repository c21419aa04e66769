package analysis

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// PrintSummary writes the console summary of a to w: one table per segment (and the
// mix) with a row per step, the fitted model, the capacity answer and the warnings.
func PrintSummary(w io.Writer, a *Analysis) error {
	ew := &errWriter{w: w}
	all := append([]SegmentAnalysis(nil), a.Segments...)
	if a.Mix != nil {
		all = append(all, *a.Mix)
	}
	for _, sa := range all {
		printSegment(ew, &sa, a.Schedule, a.Plan.Ladder.ThinkDist())
	}
	if e := a.Errors; e.Errors > 0 {
		fmt.Fprintf(ew, "Errors: %s of %s measured requests failed (%s)\n", commaInt(float64(e.Errors)),
			commaInt(float64(e.Requests)), errorBreakdown(e.Classes, e.Samples))
	}
	printDrift(ew, a.Drift)
	fmt.Fprintf(ew, "Answer: %s\n", a.Answer)
	if a.Overall.Advice != "" {
		fmt.Fprintf(ew, "Advice: %s\n", a.Overall.Advice)
	}
	if len(a.WhatIf) > 0 {
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		units := deviceNoun(a.WhatIf[0].GPU) + "s" // "machines" for a CPU server
		fmt.Fprintf(tw, "GPU\tbasis\tusers/replica\ttarget users\treplicas\t%s\t$/month\t$/M out tok\t\n", units)
		for _, r := range a.WhatIf { // the report's words: basis, whole users
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t\n", r.GPU, SizingBasis(a, r),
				commaInt(math.Floor(r.UsersPerReplica+1e-6)), commaInt(float64(r.TargetUsers)), r.Replicas, r.GPUs,
				moneyOrDash(r.CostPerMonthUSD, 0), moneyOrDash(r.CostPerMOutputUSD, 2))
		}
		tw.Flush()
		fmt.Fprintf(ew, "%s\n", HeadroomText(a.WhatIf[0].Headroom))
	}
	for _, warn := range a.Warnings {
		if warn.Kind == WarnNondeterministic || warn.Kind == WarnDriftBaseline {
			continue // the drift lines above say it
		}
		fmt.Fprintf(ew, "warning: %s\n", warn.Message)
	}
	return ew.err
}

// printDrift writes the drift probe's lines: its sentence, the prompts that changed and
// where (at most driftListed), and the baseline comparison.
func printDrift(w io.Writer, d *Drift) {
	if d == nil {
		return
	}
	fmt.Fprintf(w, "Output drift: %s\n", d.Text)
	printChanges(w, d.Changed)
	if b := d.Baseline; b != nil {
		fmt.Fprintf(w, "Output drift against %s: %s\n", b.Dir, b.Text)
		printChanges(w, b.Changed)
	}
}

// DriftListed is how many changed prompts a list of them names (DriftChangeLines).
const DriftListed = 10

// DriftChangeLines are one line per changed prompt (DriftChangeText), the ones past
// DriftListed counted in a last line: the console's list and the report's.
func DriftChangeLines(cs []DriftChange) []string {
	var out []string
	for i, c := range cs {
		if i == DriftListed {
			return append(out, fmt.Sprintf("… and %d more (analysis.json's drift section lists them all).", len(cs)-DriftListed))
		}
		out = append(out, DriftChangeText(c))
	}
	return out
}

func printChanges(w io.Writer, cs []DriftChange) {
	if len(cs) > 0 {
		fmt.Fprintln(w, "  (prompts and repeats numbered from 0, as in drift.jsonl)")
	}
	for _, l := range DriftChangeLines(cs) {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// DriftChangeText describes one changed output in one line: the prompt and repeat,
// numbered from 0 as drift.jsonl and analysis.json number them (the prompt file's first
// prompt is prompt 0), when, the first differing character and the texts from a little
// before it.
func DriftChangeText(c DriftChange) string {
	when := fmt.Sprintf("repeat %d", c.Repeat)
	if c.Phase == rundir.DriftAfter {
		when = "after the ladder"
	}
	return fmt.Sprintf("prompt %d (%s): differs at character %d: %q → %q", c.Prompt, when, c.DiffersAt,
		excerpt(c.Reference, c.DiffersAt), excerpt(c.Text, c.DiffersAt))
}

// excerpt is up to 24 characters of s from a few before character at, with "…" marks.
func excerpt(s string, at int) string {
	r := []rune(s)
	from := max(0, min(at-8, len(r)))
	to := min(len(r), from+24)
	out := string(r[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(r) {
		out += "…"
	}
	return out
}

// printSegment writes one segment's step table, fit and capacity; thinkDist names a
// users ladder's think-time distribution.
func printSegment(w io.Writer, sa *SegmentAnalysis, schedule, thinkDist string) {
	fmt.Fprintf(w, "\nSegment %s\n", sa.Segment)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	load, lagCol := "conc", ""
	switch schedule {
	case plan.ScheduleRate:
		load, lagCol = "rate", "lag p95\t" // the client's schedule lag: requests held back
	case plan.ScheduleTrace:
		load = "trace req/s" // a trace step's load is the replay's achieved rate
	case plan.ScheduleUsers:
		load = "users"
	}
	fmt.Fprintf(tw, "%s\treqs\terr%%\tTTFT p50\tTTFT p95\tITL p50\tITL p95\tE2E p95\treq/s\ttok/s\tgood%%\tSLA\tsteady\tregime\t%s\n", load, lagCol)
	for _, s := range sa.Steps {
		sla := "ok"
		switch {
		case !s.MeetsSLA && failCauseOf(&s) == causeUndetermined:
			sla = "UNDET" // fails, but no bound was broken: unfinished requests left one open
		case !s.MeetsSLA:
			sla = "FAIL"
		}
		steady := "yes"
		if !s.SteadyState {
			steady = "NO"
		}
		lag := ""
		if lagCol != "" {
			lag = ms(s.ScheduleLagMs, s.ScheduleLagMs.P95, 0) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.0f\t%.0f\t%s\t%s\t%s\t%s\n",
			fmtNum(s.Load), s.Requests, 100*s.ErrorRate, ms(s.TTFTMs, s.TTFTMs.P50, 0), ms(s.TTFTMs, s.TTFTMs.P95, 0),
			ms(s.ITLMs, s.ITLMs.P50, 1), ms(s.ITLMs, s.ITLMs.P95, 1), ms(s.E2EMs, s.E2EMs.P95, 0),
			s.RequestThroughput, s.OutputTokenThroughput, 100*s.GoodFraction, sla, steady, s.Regime, lag)
	}
	tw.Flush()
	printStepErrors(w, sa.Steps)
	if f := sa.Fit; f != nil {
		slots := "slots not identified (no step saturated the server)"
		if f.SlotsIdentified {
			slots = fmt.Sprintf("%.1f slots [%.1f, %.1f], max %.2f req/s", f.Slots, f.SlotsCILow, f.SlotsCIHigh, f.ServiceRate)
		}
		if f.Underdetermined {
			fmt.Fprintf(w, "Model: fit from %d steps: not enough to identify the model (not shown)\n", f.FitSteps)
		} else {
			fmt.Fprintf(w, "Model: %s, base TTFT %.0f ms, %s, %s (%d bootstrap reps)\n",
				slots, f.BaseTTFTMs, itlModelText(sa.Steps, f), r2Text(f.R2), f.BootstrapReps)
		}
	}
	c := sa.Capacity
	what := "max concurrency " + loadWords(c.MaxConcurrencyWithinSLA) // whole loads without decimals
	switch {
	case c.UsersSource == UsersMeasured:
		what = "max users " + loadWords(c.UsersWithThinkTime)
	case c.MaxRateWithinSLA > 0:
		what = fmt.Sprintf("max rate %.2f req/s", c.MaxRateWithinSLA)
	}
	bound := c.Bottleneck + "-bound"
	if c.Bottleneck == RegimeNone || c.Bottleneck == "" {
		bound = "no bottleneck"
	}
	if c.Bottleneck == RegimeErrors {
		bound = "failing requests"
	}
	users := fmt.Sprintf("; %d users with %s s think time (estimated: X·(R+Z))", c.Users, fmtNum(c.ThinkTimeS))
	switch {
	case c.UsersSource == UsersMeasured:
		users = fmt.Sprintf("; %.1f requests in flight (%d users measured, %s s %s think time)", c.MaxConcurrencyWithinSLA,
			c.Users, fmtNum(c.ThinkTimeS), thinkDist)
	case schedule == plan.ScheduleTrace || c.ThinkTimeS == 0:
		users = "" // a trace has no users (it replays its own arrivals); without think time users are the concurrency
	}
	// The range and how it was found in the report's words (CertaintyText), not the
	// method's name.
	fmt.Fprintf(w, "Capacity: %s, %s, %s; %.2f req/s steady%s\n  %s\n",
		what, boundByText(c), bound, c.ThroughputAtCapacity, users, CertaintyText(schedule, c))
	if s := sa.Search; s != nil {
		fmt.Fprintf(w, "Search: %d steps over %s (%s); stopped: %s\n", s.Steps, s.Over, searchPathText(s), s.StopText)
	}
}

// searchPathText is a search's loads in the order measured, each marked ✓ (met the
// SLA), ✗ (broke it), ? (unreliable) or "(unfinished)", "*" after a load the model chose.
func searchPathText(s *Search) string {
	parts := make([]string, 0, len(s.Path))
	for _, p := range s.Path {
		mark := "✗"
		switch {
		case p.Unfinished:
			mark = " (unfinished)"
		case p.Unreliable:
			mark = "?"
		case p.Pass:
			mark = "✓"
		}
		if p.Guided {
			mark += "*"
		}
		parts = append(parts, fmtNum(p.Load)+mark)
	}
	return strings.Join(parts, " ")
}

// ms renders a latency statistic of sum with the given decimals, or "–" when the metric
// is missing (sum.N == 0: no successful request), never 0.
func ms(sum Summary, v float64, decimals int) string {
	if sum.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%.*f", decimals, v)
}

// printStepErrors lists, per step with failures, the error classes and a sample message.
func printStepErrors(w io.Writer, steps []StepStats) {
	for i := range steps {
		if s := &steps[i]; s.Errors > 0 {
			fmt.Fprintf(w, "Errors: %s\n", errorEvidence(s))
		}
	}
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, nil
}

// moneyOrDash renders a price with the given decimals, or "–" when none was computed
// (no report.gpu_hour_usd): 0 would read as free.
func moneyOrDash(usd float64, decimals int) string {
	if usd <= 0 {
		return "–"
	}
	if decimals == 0 {
		return commaInt(math.Round(usd)) // rounded, as the reports show it
	}
	return fmt.Sprintf("%.*f", decimals, usd)
}

// itlModelText is the fitted ITL(batch) line, or why there is none: with no ITL at
// any step (a server that does not stream sends the reply in one piece, and a 1-token
// reply has no inter-token gap) the decode fit is 0 + 0·batch, which means nothing.
func itlModelText(steps []StepStats, f *Fit) string {
	for i := range steps {
		if steps[i].ITLMs.N > 0 {
			return fmt.Sprintf("ITL %.2f + %.3f·batch ms", f.DecodeBaseMs, f.DecodePerSeqMs)
		}
	}
	return "ITL not measured (no streamed tokens: the server did not stream, or replies had one token)"
}

// r2Text renders R² of the TTFT fit, explaining a negative one: the model predicts the
// steps' TTFT p95 worse than their mean (often when TTFT hardly varies with load).
func r2Text(r2 float64) string {
	if r2 < 0 {
		return fmt.Sprintf("R² %s (no fit: worse than the mean TTFT p95)", r2Number(r2))
	}
	return fmt.Sprintf("R² %s", r2Number(r2))
}

// r2Number is R² as every sentence shows it: 3 decimals ("0.987"), 2 when negative
// ("-0.42"), and 3 significant digits once it is below -1000 ("-7.27e+153": steps whose
// TTFT p95 hardly differ make a failed fit's R² huge and negative).
func r2Number(r2 float64) string {
	switch {
	case r2 < -1000:
		return fmt.Sprintf("%.3g", r2)
	case r2 < 0:
		return fmt.Sprintf("%.2f", r2)
	}
	return fmt.Sprintf("%.3f", r2)
}
