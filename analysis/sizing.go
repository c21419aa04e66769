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
	HBMGB      float64 `yaml:"hbm_gb"`
	// PriceUSDPerHour is an optional per-GPU price; 0 when the catalog has none.
	PriceUSDPerHour float64 `yaml:"price_usd_per_hour"`
}

// modelSpec is what the fit check needs of a catalog model.
type modelSpec struct {
	Name       string  `yaml:"name"`
	Params     float64 `yaml:"params"`
	DtypeBytes float64 `yaml:"dtype_bytes"`
}

// weightBytes is the model's weight size in bytes (params × dtype bytes; 2 when unset).
func (m modelSpec) weightBytes() float64 {
	d := m.DtypeBytes
	if d <= 0 {
		d = 2
	}
	return m.Params * d
}

// catalogFile is the part of configs/catalog.yaml the analysis reads.
type catalogFile struct {
	GPUs   []gpuSpec   `yaml:"gpus"`
	Models []modelSpec `yaml:"models"`
}

func readCatalog() *catalogFile {
	if catalogData == nil {
		return nil
	}
	var c catalogFile
	if yaml.Unmarshal(catalogData(), &c) != nil {
		return nil
	}
	return &c
}

// gpuCatalog parses the GPU list of the catalog (other sections ignored).
func gpuCatalog() map[string]gpuSpec {
	c := readCatalog()
	if c == nil {
		return nil
	}
	out := map[string]gpuSpec{}
	for _, g := range c.GPUs {
		out[strings.ToLower(g.Name)] = g
	}
	return out
}

// catalogModel returns the catalog's model named name (case-insensitive).
func catalogModel(name string) (modelSpec, bool) {
	if c := readCatalog(); c != nil && name != "" {
		for _, m := range c.Models {
			if strings.EqualFold(m.Name, name) {
				return m, true
			}
		}
	}
	return modelSpec{}, false
}

// hbmUsableFrac is the share of a GPU's memory the weights may take (the rest is
// activations, KV cache and runtime).
const hbmUsableFrac = 0.9

// weightsFit reports whether the model's weights, split over gpus GPUs, fit in
// hbmUsableFrac of g's memory; true when either size is unknown.
func weightsFit(m modelSpec, ok bool, g gpuSpec, gpus int) bool {
	if !ok || g.HBMGB <= 0 || m.Params <= 0 {
		return true
	}
	return m.weightBytes()/float64(max(gpus, 1)) <= g.HBMGB*1e9*hbmUsableFrac
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
	add := func(gpu string, projected bool, factor, price float64) {
		for _, t := range sz.targets {
			rows = append(rows, sizeRow(c, sz, gpu, projected, factor, price, t))
		}
	}
	add(sz.gpu, false, 1, sz.gpuHourUSD)
	if len(whatIf) == 0 {
		return rows, nil
	}
	cat := gpuCatalog()
	base, ok := cat[strings.ToLower(sz.gpu)]
	if !ok {
		return rows, []string{fmt.Sprintf("what-if projection skipped: GPU %q not in the catalog", sz.gpu)}
	}
	model, known := catalogModel(sz.model)
	for _, name := range whatIf {
		g, ok := cat[strings.ToLower(name)]
		if !ok {
			warns = append(warns, fmt.Sprintf("what-if GPU %q not in the catalog", name))
			continue
		}
		if !weightsFit(model, known, g, sz.gpusPerReplica) {
			warns = append(warns, fmt.Sprintf("what-if GPU %s skipped: %s's weights (%.1f GB) do not fit in %d × %.0f GB × %.0f%%",
				g.Name, model.Name, model.weightBytes()/1e9, sz.gpusPerReplica, g.HBMGB, 100*hbmUsableFrac))
			continue
		}
		price := g.PriceUSDPerHour
		if price <= 0 {
			price = -1 // same $/GPU-hour as the measured GPU assumed
		}
		add(g.Name, true, rooflineFactor(base, g, c.Bottleneck), price)
	}
	return rows, warns
}

// rooflineFactor scales capacity from GPU a to b: prefill ∝ FLOPS, decode (and the
// queue, whose service time is mostly decode) ∝ HBM bandwidth.
func rooflineFactor(a, b gpuSpec, bottleneck Regime) float64 {
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

// sizeRow computes one what-if row; price is the $/GPU-hour, negative for "the same as
// the measured GPU's (report.gpu_hour_usd), assumed".
func sizeRow(c Capacity, sz sizing, gpu string, projected bool, factor, price float64, target int) WhatIf {
	w := WhatIf{GPU: gpu, Projected: projected, TargetUsers: target,
		UsersPerReplica: math.Floor(c.UsersWithThinkTime * factor), GPUHourUSD: price}
	if price < 0 {
		w.GPUHourUSD, w.SamePriceAssumed = sz.gpuHourUSD, true
	}
	sz.gpuHourUSD = w.GPUHourUSD
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
	switch {
	case c.Method == MethodNoData:
		return fmt.Sprintf("%s%s has no capacity verdict: %s. %s", who, src, orDash(c.BottleneckEvidence),
			c.Advice) + speedUpNote(a)
	case c.Bottleneck == RegimeErrors && c.Method == MethodBelowFirstStep:
		return fmt.Sprintf("%s%s cannot be sized: %s (error-rate bound %s) — fix the target before capacity can be measured.",
			who, src, c.BottleneckEvidence, strings.TrimPrefix(c.LimitingConstraint, "error rate ≤ ")) + speedUpNote(a)
	case c.Method == MethodBelowFirstStep && c.FirstStepSaturated:
		return fmt.Sprintf("%s%s misses the SLA (%s) already at the lowest load tested: %s; test lower rates to find what one replica serves.",
			who, src, orDash(c.LimitingConstraint), c.BottleneckEvidence) + speedUpNote(a)
	case c.Method == MethodBelowFirstStep:
		why := "no load met it"
		if c.BottleneckEvidence != "" {
			why = c.BottleneckEvidence
		}
		return fmt.Sprintf("%s%s misses the SLA (%s) already at the lowest load tested: %s, so no number of replicas meets it; relax the SLA or use a faster deployment.",
			who, src, orDash(c.LimitingConstraint), why) + speedUpNote(a)
	case a.Schedule == plan.ScheduleTrace:
		return fmt.Sprintf("%s%s meets the SLA on the replayed trace (%.2f requests/s); replay at other speeds (trace.time_scale) to find the limit.",
			who, src, c.MaxRateWithinSLA) + speedUpNote(a)
	}
	s := fmt.Sprintf("%s%s handles %s within %s (%s)", who, src, loadPhrase(a), orWord(c.LimitingConstraint, "the SLA"), boundPhrase(c))
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
		need := "need" // at_least: the capacity is a lower bound, so the replicas an upper one
		if c.Method == MethodAtLeast {
			need = "need at most"
		}
		s += fmt.Sprintf("; %s users %s %s (%s)", commaInt(float64(big.TargetUsers)), need,
			plural(big.Replicas, "replica"), plural(big.GPUs, deviceNoun(sz.gpu)))
		if big.CostPerMonthUSD > 0 {
			s += fmt.Sprintf(", about $%s/month", commaInt(big.CostPerMonthUSD))
		}
	}
	return s + "." + speedUpNote(a)
}

// loadPhrase states the headline load: "511 concurrent users", "at least 60.00
// requests/s (the highest load tested; no limit reached)", or a projection.
func loadPhrase(a *Analysis) string {
	c := a.Overall
	load, inFlight := fmt.Sprintf("%s concurrent users", commaInt(c.MaxConcurrencyWithinSLA)), ""
	if a.Schedule == plan.ScheduleRate {
		load = fmt.Sprintf("%.2f requests/s", c.MaxRateWithinSLA)
		inFlight = "about " + fmtNum(roundTo(c.MaxConcurrencyWithinSLA, 1)) + " requests in flight"
	}
	var notes []string
	if x := c.MaxConcurrencyWithinSLA; a.Schedule != plan.ScheduleRate && c.Method == MethodMeasured &&
		x-math.Floor(x+1e-9) >= 0.005 {
		// Users are whole: the answer floors the interpolated capacity that tables show.
		notes = append(notes, fmt.Sprintf("capacity %.2f between the steps tested, rounded down", x))
	}
	switch c.Method {
	case MethodAtLeast:
		load = "at least " + load
		notes = append(notes, "the highest load tested; no limit reached")
	case MethodModel:
		lo := commaInt(c.CILow)
		if a.Schedule == plan.ScheduleRate {
			lo = fmt.Sprintf("%.2f requests/s", c.CILow)
		}
		load = "about " + load
		notes = append(notes, "projected by the model beyond the highest load tested, "+lo)
	}
	switch {
	case c.OfferedRateRps > 0 && c.ClientLimited:
		notes = append(notes, fmt.Sprintf("what the client's own limit let through of %.2f requests/s scheduled, not the server's limit", c.OfferedRateRps))
	case c.OfferedRateRps > 0:
		notes = append(notes, fmt.Sprintf("what the server completed of %.2f requests/s offered", c.OfferedRateRps))
	}
	if inFlight != "" {
		notes = append(notes, inFlight)
	}
	if len(notes) > 0 {
		load += " (" + strings.Join(notes, "; ") + ")"
	}
	return load
}

// boundPhrase names what limits the headline: "queue-bound", "no bottleneck reached",
// or the failing requests.
func boundPhrase(c Capacity) string {
	switch c.Bottleneck {
	case RegimeNone, "":
		return "no bottleneck reached"
	case RegimeErrors:
		return "beyond it requests fail: " + c.BottleneckEvidence
	}
	return string(c.Bottleneck) + "-bound"
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// speedUpNote is the answer's caveat for a simulator that ran faster than real time.
func speedUpNote(a *Analysis) string {
	if a.SpeedUp <= 0 || a.SpeedUp == 1 {
		return ""
	}
	return fmt.Sprintf(" Caution: the simulator ran %s× faster than real time, so these latencies and this capacity are not real-time figures.", fmtNum(a.SpeedUp))
}

// deviceNoun names the unit a replica runs on: "GPU", or "machine" when report.gpu
// names a CPU (e.g. "2-core CPU" for an Ollama CPU server).
func deviceNoun(gpu string) string {
	if strings.Contains(strings.ToLower(gpu), "cpu") {
		return "machine"
	}
	return "GPU"
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
