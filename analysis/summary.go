package analysis

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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
		printSegment(ew, &sa, a.Schedule)
	}
	fmt.Fprintf(ew, "Answer: %s\n", a.Answer)
	if a.Overall.Advice != "" {
		fmt.Fprintf(ew, "Advice: %s\n", a.Overall.Advice)
	}
	if len(a.WhatIf) > 0 {
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "GPU\tprojected\tusers/replica\ttarget users\treplicas\tGPUs\t$/month\t$/M out tok\t")
		for _, r := range a.WhatIf {
			fmt.Fprintf(tw, "%s\t%v\t%.1f\t%d\t%d\t%d\t%.0f\t%.2f\t\n", r.GPU, r.Projected, r.UsersPerReplica,
				r.TargetUsers, r.Replicas, r.GPUs, r.CostPerMonthUSD, r.CostPerMOutputUSD)
		}
		tw.Flush()
	}
	for _, warn := range a.Warnings {
		fmt.Fprintf(ew, "warning: %s\n", warn)
	}
	return ew.err
}

func printSegment(w io.Writer, sa *SegmentAnalysis, schedule string) {
	fmt.Fprintf(w, "\nSegment %s\n", sa.Segment)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	load := "conc"
	if schedule == "rate" {
		load = "rate"
	}
	fmt.Fprintf(tw, "%s\treqs\terr%%\tTTFT p50\tTTFT p95\tITL p50\tITL p95\tE2E p95\treq/s\ttok/s\tgood%%\tSLA\tsteady\tregime\t\n", load)
	for _, s := range sa.Steps {
		sla := "ok"
		if !s.MeetsSLA {
			sla = "FAIL"
		}
		steady := "yes"
		if !s.SteadyState {
			steady = "NO"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.1f\t%.1f\t%.0f\t%.2f\t%.0f\t%.0f\t%s\t%s\t%s\t\n",
			fmtNum(s.Load), s.Requests, 100*s.ErrorRate, s.TTFTMs.P50, s.TTFTMs.P95, s.ITLMs.P50, s.ITLMs.P95,
			s.E2EMs.P95, s.RequestThroughput, s.OutputTokenThroughput, 100*s.GoodFraction, sla, steady, s.Regime)
	}
	tw.Flush()
	if f := sa.Fit; f != nil {
		fmt.Fprintf(w, "Model: %.1f slots [%.1f, %.1f], max %.2f req/s, base TTFT %.0f ms, ITL %.2f + %.3f·batch ms, R² %.3f (%d bootstrap reps)\n",
			f.Slots, f.SlotsCILow, f.SlotsCIHigh, f.ServiceRate, f.BaseTTFTMs, f.DecodeBaseMs, f.DecodePerSeqMs, f.R2, f.BootstrapReps)
	}
	c := sa.Capacity
	what := fmt.Sprintf("max concurrency %.1f", c.MaxConcurrencyWithinSLA)
	if c.MaxRateWithinSLA > 0 {
		what = fmt.Sprintf("max rate %.2f req/s", c.MaxRateWithinSLA)
	}
	bound := c.Bottleneck + "-bound"
	if c.Bottleneck == RegimeNone || c.Bottleneck == "" {
		bound = "no bottleneck"
	}
	fmt.Fprintf(w, "Capacity: %s [%.1f, %.1f] (%s), bound by %s, %s; %.2f req/s steady; %d users with %.0f s think time\n",
		what, c.CILow, c.CIHigh, c.Method, orDash(c.LimitingConstraint), bound, c.ThroughputAtCapacity, c.Users, c.ThinkTimeS)
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
