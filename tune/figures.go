package tune

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/tune/nsga2"
)

// hoursPerMonth is the month the cost objective prices (365 × 24 / 12).
const hoursPerMonth = 730

// fail marks tr failed with its class, reason and server-log tail.
func fail(tr rundir.Trial, class string, err error, tail string) rundir.Trial {
	tr.Status, tr.FailClass, tr.FailReason, tr.ServerLogTail = rundir.TrialFailed, class, err.Error(), tail
	tr.Objectives = nil
	return tr
}

// rendered is the launch template at pt: argv, extra environment and base URL; a port
// below 0 leaves {port} as written.
func (t *Tuner) rendered(pt nsga2.Point, port int) (argv, env []string, url string) {
	vals := map[string]string{"port": strconv.Itoa(port), "llmcap": t.opts.Executable}
	if port < 0 {
		delete(vals, "port")
	}
	for i, p := range t.space.params {
		vals[p.Name] = t.space.text(i, pt[i])
	}
	l := t.plan.Tune.Launch
	return renderAll(l.Command, vals), renderAll(l.Env, vals), render(l.URL, vals)
}

// paramsText is "name=value name=value" at pt, in the space's order.
func paramsText(s *space, pt nsga2.Point) string {
	parts := make([]string, len(s.params))
	for i, p := range s.params {
		parts[i] = p.Name + "=" + s.text(i, pt[i])
	}
	return strings.Join(parts, " ")
}

// capacitySegment is the analysis of the segment (or mix) the capacity answer comes
// from.
func capacitySegment(a *analysis.Analysis) *analysis.SegmentAnalysis {
	if a.Mix != nil && (a.OverallSource == "mix" || a.OverallSource == "") {
		return a.Mix
	}
	for i := range a.Segments {
		if a.Segments[i].Segment == a.OverallSource {
			return &a.Segments[i]
		}
	}
	if len(a.Segments) > 0 {
		return &a.Segments[0]
	}
	return a.Mix
}

// dcgmMemoryMiB is the largest GPU memory in use (MiB, summed over GPUs) in any step
// of the capacity segment, from the DCGM exporter's metrics the sweep scraped
// (target.metrics_urls); 0 without them.
func dcgmMemoryMiB(a *analysis.Analysis) float64 {
	var mib float64
	if s := capacitySegment(a); s != nil {
		for _, st := range s.Steps {
			if st.GPU != nil {
				mib = max(mib, st.GPU.MemoryUsedMiBMax)
			}
		}
	}
	return mib
}

// firstStepTTFTp95 is the p95 TTFT (ms) of the capacity segment's first step: the
// target-load run's one step.
func firstStepTTFTp95(a *analysis.Analysis) float64 {
	if s := capacitySegment(a); s != nil && len(s.Steps) > 0 {
		return s.Steps[0].TTFTMs.P95
	}
	return 0
}

// costPerUserMonth is $ a month per user at capacity: the GPU-hour price of the
// measured GPU (the analysis's first row that is not a projection) × its GPUs per
// replica × 730 h ÷ users (0 without a price or a capacity).
func costPerUserMonth(a *analysis.Analysis, capacity float64) float64 {
	if capacity <= 0 {
		return 0
	}
	for _, w := range a.WhatIf {
		if w.Projected || w.GPUHourUSD <= 0 || w.Replicas <= 0 {
			continue
		}
		perReplica := float64(w.GPUs) / float64(w.Replicas)
		return w.GPUHourUSD * perReplica * hoursPerMonth / capacity
	}
	return 0
}

// objectives are tr's values of the plan's objectives, by metric. An objective that
// has no value (no price, no GPU memory source) is left out, and the trial then ranks
// as failed on it.
func (t *Tuner) objectives(tr *rundir.Trial) map[string]float64 {
	out := map[string]float64{}
	for _, o := range t.plan.Tune.Objectives {
		switch o.Metric {
		case plan.TuneUsers, plan.TuneConcurrency:
			out[o.Metric] = tr.Capacity
		case plan.TuneCostPerUser:
			if tr.CostPerUserMonth > 0 {
				out[o.Metric] = tr.CostPerUserMonth
			}
		case plan.TunePeakRSSMiB:
			out[o.Metric] = tr.PeakRSSMiB
		case plan.TuneGPUMemoryMiB:
			if tr.GPUMemorySource != "" {
				out[o.Metric] = tr.GPUMemoryMiB
			}
		case plan.TuneTTFTAtTargetMs:
			if tr.TTFTp95AtTargetMs > 0 {
				out[o.Metric] = tr.TTFTp95AtTargetMs
			}
		}
	}
	return out
}

// resultOf is tr as the search's result: its objective values in the plan's order,
// Failed when it did not measure, or lacks one.
func (t *Tuner) resultOf(tr *rundir.Trial) nsga2.Result {
	r := nsga2.Result{X: nsga2.Point(tr.Point), Failed: !tr.OK()}
	for _, o := range t.plan.Tune.Objectives {
		v, ok := tr.Objectives[o.Metric]
		if !ok {
			r.Failed = true
		}
		r.Objectives = append(r.Objectives, v)
	}
	return r
}

// directions are the objectives' directions for the search.
func directions(objs []plan.TuneObjective) []nsga2.Direction {
	out := make([]nsga2.Direction, len(objs))
	for i, o := range objs {
		out[i] = nsga2.Minimize
		if o.Maximizes() {
			out[i] = nsga2.Maximize
		}
	}
	return out
}

// unitOf is the unit word of a metric, for the answer and the logs.
func unitOf(metric string) string {
	switch metric {
	case plan.TuneUsers:
		return "users"
	case plan.TuneConcurrency:
		return "concurrent requests"
	case plan.TuneCostPerUser:
		return "$ per user a month"
	case plan.TunePeakRSSMiB, plan.TuneGPUMemoryMiB:
		return "MiB"
	case plan.TuneTTFTAtTargetMs:
		return "ms"
	}
	return ""
}

// formatObjective writes v of metric for people: "186 users", "$9.81 per user a month".
func formatObjective(metric string, v float64) string {
	switch metric {
	case plan.TuneCostPerUser:
		return fmt.Sprintf("$%.2f per user a month", v)
	case plan.TuneUsers, plan.TuneConcurrency:
		return fmt.Sprintf("%s %s", strconv.FormatFloat(v, 'f', -1, 64), unitOf(metric))
	}
	return fmt.Sprintf("%.0f %s", v, unitOf(metric))
}
