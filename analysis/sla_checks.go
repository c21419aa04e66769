package analysis

import (
	"math"

	"github.com/llmcap/llmcap/sla"
)

// SLACheck is one bound of a step's SLA as the judge decided it (sla.Check): the value
// it compared, which for a latency with censored values (unfinished requests) is the
// censoring-aware estimate, not the finished-only percentile of the step's ttft_ms …
// e2e_ms summaries.
type SLACheck struct {
	// Metric is "ttft", "ttfo", "itl", "e2e" or "error_rate"; Stat the latency's
	// statistic ("p50", "p90", "p95", "p99", "mean"; empty for error_rate).
	Metric string `json:"metric"`
	Stat   string `json:"stat,omitempty"`
	// ThresholdMs and ValueMs (latency metrics): the bound and the judged value in ms;
	// ValueMs is null for no_data and not_applicable, and a lower bound when
	// undetermined.
	ThresholdMs *float64 `json:"threshold_ms,omitempty"`
	ValueMs     *float64 `json:"value_ms,omitempty"`
	// ThresholdFraction and ValueFraction (error_rate): the largest acceptable failed
	// share and the judged one, (errors + overdue) / (finished + overdue), 0..1.
	ThresholdFraction *float64 `json:"threshold_fraction,omitempty"`
	ValueFraction     *float64 `json:"value_fraction,omitempty"`
	// Outcome: "met", "broken", "no_data", "not_applicable" or "undetermined" (the
	// last four fail the step except not_applicable).
	Outcome string `json:"outcome"`
	// Censored counts the unfinished requests whose waits entered a latency check as
	// lower bounds; Overdue (error_rate) the unfinished requests counted as failed
	// (docs/metrics.md "Unfinished requests").
	Censored int `json:"censored,omitempty"`
	Overdue  int `json:"overdue,omitempty"`
}

// slaChecks is verdict v's checks for analysis.json.
func slaChecks(v sla.Verdict) []SLACheck {
	out := make([]SLACheck, 0, len(v.Checks))
	for _, c := range v.Checks {
		out = append(out, slaCheckOf(c))
	}
	return out
}

func slaCheckOf(c sla.Check) SLACheck {
	x := SLACheck{Outcome: c.Outcome.String(), Censored: c.Censored, Overdue: c.Overdue.N}
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	if c.Bound.Metric == sla.ErrorRate {
		x.Metric = "error_rate"
		x.ThresholdFraction, x.ValueFraction = finite(c.Bound.Threshold), finite(c.Value)
		return x
	}
	x.Metric, x.Stat = c.Bound.Metric.String(), c.Bound.Stat.String()
	x.ThresholdMs, x.ValueMs = finite(c.Bound.Threshold), finite(c.Value)
	return x
}
