package sla

import "github.com/llmcap/llmcap/plan"

// Metric is what an SLA bound measures.
type Metric uint8

// The SLA metrics: the four latencies (ms, plan.SLAMetrics) and the error rate.
const (
	TTFT      Metric = iota + 1 // time to first token (content or reasoning), ms
	TTFO                        // time to first output (non-reasoning) token, ms
	ITL                         // inter-token latency, ms; defined for two output tokens or more
	E2E                         // end-to-end latency, ms
	ErrorRate                   // failed fraction of the judged requests, 0..1
)

// String is the metric's name in the plan ("ttft", "ttfo", "itl", "e2e") or "error rate".
func (m Metric) String() string {
	switch m {
	case TTFT:
		return "ttft"
	case TTFO:
		return "ttfo"
	case ITL:
		return "itl"
	case E2E:
		return "e2e"
	case ErrorRate:
		return "error rate"
	}
	return "unknown metric"
}

// ParseMetric returns the latency metric a plan names ("ttft", "ttfo", "itl", "e2e").
func ParseMetric(s string) (Metric, bool) {
	for _, m := range []Metric{TTFT, TTFO, ITL, E2E} {
		if m.String() == s {
			return m, true
		}
	}
	return 0, false
}

// Statistic is the summary statistic a latency bound applies to.
type Statistic uint8

// The SLA statistics (plan.Stats).
const (
	P50 Statistic = iota + 1
	P90
	P95
	P99
	Mean
)

// String is the statistic's name in the plan: "p50", "p90", "p95", "p99", "mean".
func (s Statistic) String() string {
	switch s {
	case P50:
		return "p50"
	case P90:
		return "p90"
	case P95:
		return "p95"
	case P99:
		return "p99"
	case Mean:
		return "mean"
	}
	return ""
}

// ParseStatistic returns the statistic a plan names ("p50", "p90", "p95", "p99", "mean").
func ParseStatistic(s string) (Statistic, bool) {
	for _, st := range []Statistic{P50, P90, P95, P99, Mean} {
		if st.String() == s {
			return st, true
		}
	}
	return 0, false
}

// Bound is one SLA bound: Metric at Stat ≤ Threshold (inclusive), Threshold in ms for a
// latency; for ErrorRate, Stat is 0 and Threshold the largest acceptable failed fraction.
type Bound struct {
	Metric    Metric
	Stat      Statistic
	Threshold float64
}

// Constraint returns a latency bound as the plan's constraint ("ttft", "p95", ms).
func (b Bound) Constraint() plan.Constraint {
	return plan.Constraint{Metric: b.Metric.String(), Stat: b.Stat.String(), ThresholdMs: b.Threshold}
}

// DefaultMaxErrorRate is the error-rate bound of an SLA that sets none (≤ 0).
const DefaultMaxErrorRate = 0.01

// MaxErrorRate is spec's error-rate bound: spec.MaxErrorRate, or DefaultMaxErrorRate
// when it is ≤ 0.
func MaxErrorRate(spec plan.SLA) float64 {
	if spec.MaxErrorRate <= 0 {
		return DefaultMaxErrorRate
	}
	return spec.MaxErrorRate
}

// Bounds returns spec's bounds in judging order: the latency constraints in
// (*plan.Plan).Constraints' order (metric ttft, ttfo, itl, e2e; then statistic p50,
// p90, p95, p99, mean; unknown statistics skipped), then the error rate (MaxErrorRate).
func Bounds(spec plan.SLA) []Bound {
	p := plan.Plan{SLA: spec}
	cons := p.Constraints()
	out := make([]Bound, 0, len(cons)+1)
	for _, c := range cons {
		m, okM := ParseMetric(c.Metric)
		st, okS := ParseStatistic(c.Stat)
		if okM && okS {
			out = append(out, Bound{Metric: m, Stat: st, Threshold: c.ThresholdMs})
		}
	}
	return append(out, Bound{Metric: ErrorRate, Threshold: MaxErrorRate(spec)})
}

// Quantile is the statistic's quantile in [0, 1] (p95 → 0.95); false for the mean.
func (s Statistic) Quantile() (float64, bool) {
	switch s {
	case P50:
		return 0.50, true
	case P90:
		return 0.90, true
	case P95:
		return 0.95, true
	case P99:
		return 0.99, true
	}
	return 0, false
}
