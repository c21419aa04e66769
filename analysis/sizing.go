package analysis

import (
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/llmcap/llmcap/plan"
)

// hoursPerMonth is the hours in an average month used for monthly cost (365·24/12).
const hoursPerMonth = 730

// defaultHeadroom is the spare capacity kept per replica when the plan sets none.
const defaultHeadroom = 0.2

// catalogData returns the GPU catalog YAML (configs/catalog.yaml) for what-if
// projections; nil disables them. Set by catalog.go.
var catalogData func() []byte

// gpuSpec is what a roofline projection needs of a catalog GPU.
type gpuSpec struct {
	Name       string  `yaml:"name"`
	BF16TFLOPS float64 `yaml:"bf16_tflops"`
	HBMTBps    float64 `yaml:"hbm_tbps"`
}

// gpuCatalog parses the GPU list of the catalog (other sections ignored).
func gpuCatalog() map[string]gpuSpec {
	if catalogData == nil {
		return nil
	}
	var c struct {
		GPUs []gpuSpec `yaml:"gpus"`
	}
	if yaml.Unmarshal(catalogData(), &c) != nil {
		return nil
	}
	out := map[string]gpuSpec{}
	for _, g := range c.GPUs {
		out[strings.ToLower(g.Name)] = g
	}
	return out
}

// sizing holds the deployment facts sizing needs.
type sizing struct {
	gpu            string
	model          string
	gpusPerReplica int
	gpuHourUSD     float64
	headroom       float64
	targets        []int
}

func sizingOf(p *plan.Plan) sizing {
	s := sizing{gpu: p.Report.GPU, model: p.Target.Model, gpusPerReplica: p.Report.GPUsPerReplica,
		gpuHourUSD: p.Report.GPUHourUSD, headroom: p.Report.Headroom, targets: p.Report.TargetUsers}
	if p.Target.IsSimulator() {
		if s.gpu == "" {
			s.gpu = p.Target.Simulator.GPU
		}
		if p.Target.Simulator.Model != "" {
			s.model = p.Target.Simulator.Model
		}
		if s.gpusPerReplica <= 0 {
			s.gpusPerReplica = p.Target.Simulator.TensorParallel
		}
	}
	if s.gpusPerReplica <= 0 {
		s.gpusPerReplica = 1
	}
	if s.headroom <= 0 || s.headroom >= 1 {
		s.headroom = defaultHeadroom
	}
	return s
}

// whatIfRows sizes each target user count for the measured GPU and, projected by
// roofline scaling, for each what-if GPU.
func whatIfRows(c Capacity, sz sizing, whatIf []string) ([]WhatIf, []string) {
	var rows []WhatIf
	var warns []string
	if c.Method == MethodBelowFirstStep || c.Method == MethodNoData || c.UsersWithThinkTime <= 0 {
		if len(sz.targets) == 0 {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("sizing not possible: no load met the SLA (%s), so no number of replicas serves the target users; what-if rows are left out",
			orDash(c.LimitingConstraint))}
	}
	add := func(gpu string, projected bool, factor float64) {
		for _, t := range sz.targets {
			rows = append(rows, sizeRow(c, sz, gpu, projected, factor, t))
		}
	}
	add(sz.gpu, false, 1)
	if len(whatIf) == 0 {
		return rows, nil
	}
	cat := gpuCatalog()
	base, ok := cat[strings.ToLower(sz.gpu)]
	if !ok {
		return rows, []string{fmt.Sprintf("what-if projection skipped: GPU %q not in the catalog", sz.gpu)}
	}
	for _, name := range whatIf {
		g, ok := cat[strings.ToLower(name)]
		if !ok {
			warns = append(warns, fmt.Sprintf("what-if GPU %q not in the catalog", name))
			continue
		}
		add(g.Name, true, rooflineFactor(base, g, c.Bottleneck))
	}
	return rows, warns
}

// rooflineFactor scales capacity from GPU a to b: prefill ∝ FLOPS, decode (and the
// queue, whose service time is mostly decode) ∝ HBM bandwidth.
func rooflineFactor(a, b gpuSpec, bottleneck string) float64 {
	if bottleneck == RegimePrefill {
		if a.BF16TFLOPS > 0 {
			return b.BF16TFLOPS / a.BF16TFLOPS
		}
		return 1
	}
	if a.HBMTBps > 0 {
		return b.HBMTBps / a.HBMTBps
	}
	return 1
}

// sizeRow computes one what-if row.
func sizeRow(c Capacity, sz sizing, gpu string, projected bool, factor float64, target int) WhatIf {
	w := WhatIf{GPU: gpu, Projected: projected, TargetUsers: target,
		UsersPerReplica: c.UsersWithThinkTime * factor}
	usable := w.UsersPerReplica * (1 - sz.headroom)
	if usable <= 0 {
		return w
	}
	w.Replicas = int(math.Ceil(float64(target) / usable))
	w.GPUs = w.Replicas * sz.gpusPerReplica
	w.CostPerMonthUSD = float64(w.GPUs) * sz.gpuHourUSD * hoursPerMonth
	if tok := c.OutputTokensPerSAtCapacity * factor * (1 - sz.headroom); tok > 0 {
		w.CostPerMOutputUSD = float64(sz.gpusPerReplica) * sz.gpuHourUSD / (tok * 3600) * 1e6
	}
	return w
}

// answerSentence states the headline in one plain sentence.
func answerSentence(a *Analysis, sz sizing) string {
	c := a.Overall
	who := "One replica"
	if sz.gpu != "" {
		who = "One " + sz.gpu
		if sz.gpusPerReplica > 1 {
			who = fmt.Sprintf("One %d×%s replica", sz.gpusPerReplica, sz.gpu)
		}
	}
	if sz.model != "" {
		who += " serving " + sz.model
	}
	src := ""
	if a.OverallSource != "" && a.OverallSource != plan.MixSegment && len(a.Segments) > 1 {
		src = fmt.Sprintf(" (tightest segment %q)", a.OverallSource)
	}
	if c.Method == MethodBelowFirstStep || c.Method == MethodNoData {
		why := "no load met it"
		if c.BottleneckEvidence != "" {
			why = c.BottleneckEvidence
		}
		return fmt.Sprintf("%s%s misses the SLA (%s) already at the lowest load tested: %s, so no number of replicas meets it; relax the SLA or use a faster deployment.",
			who, src, orDash(c.LimitingConstraint), why)
	}
	if a.Schedule == plan.ScheduleTrace {
		verdict := "meets the SLA on"
		if c.Method == MethodBelowFirstStep || c.Method == MethodNoData {
			verdict = "misses the SLA (" + c.LimitingConstraint + ") on"
		}
		return fmt.Sprintf("%s%s %s the replayed trace (%.2f requests/s); replay at other speeds (trace.time_scale) to find the limit.",
			who, src, verdict, c.MaxRateWithinSLA)
	}
	load := fmt.Sprintf("%s concurrent users", commaInt(c.MaxConcurrencyWithinSLA))
	if a.Schedule == plan.ScheduleRate {
		load = fmt.Sprintf("%.2f requests/s (about %s requests in flight)", c.MaxRateWithinSLA, commaInt(c.MaxConcurrencyWithinSLA))
	}
	limit := c.LimitingConstraint
	if limit == "" {
		limit = "the SLA"
	}
	s := fmt.Sprintf("%s%s handles %s within %s (%s-bound", who, src, load, limit, c.Bottleneck)
	if c.Bottleneck == RegimeNone {
		s = fmt.Sprintf("%s%s handles %s within %s (no bottleneck reached", who, src, load, limit)
	}
	if c.Method == MethodModel {
		s += ", extrapolated by the model"
	}
	s += ")"
	if c.ThinkTimeS > 0 {
		s += fmt.Sprintf(", i.e. %s users with %.0f s think time", commaInt(float64(c.Users)), c.ThinkTimeS)
	}
	var big *WhatIf // the largest measured target
	for i := range a.WhatIf {
		if w := &a.WhatIf[i]; !w.Projected && w.Replicas > 0 && (big == nil || w.TargetUsers > big.TargetUsers) {
			big = w
		}
	}
	if big != nil {
		s += fmt.Sprintf("; %s users need %s (%s)", commaInt(float64(big.TargetUsers)),
			plural(big.Replicas, "replica"), plural(big.GPUs, "GPU"))
		if big.CostPerMonthUSD > 0 {
			s += fmt.Sprintf(", about $%s/month", commaInt(big.CostPerMonthUSD))
		}
	}
	return s + "."
}

// plural renders "1 replica" or "3 replicas" (with thousands separators).
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return commaInt(float64(n)) + " " + word + "s"
}

// commaInt renders x rounded down to an integer with thousands separators.
func commaInt(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?"
	}
	s := fmt.Sprintf("%d", int64(math.Floor(x+1e-9)))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
