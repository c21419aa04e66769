package analysis

import (
	"math"
	"sort"

	"github.com/llmcap/llmcap/rundir"
)

// EnergySource says how a GPU's (or a step's) energy over a window was measured.
type EnergySource string

// Sources of a window's energy.
const (
	// EnergyFromCounter is the increase of DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ since
	// boot) between the window's first and last scrapes (between the first and last that
	// saw it change when it held its value across scrapes): the GPU's own energy meter.
	EnergyFromCounter EnergySource = "energy_counter"
	// EnergyFromPower is DCGM_FI_DEV_POWER_USAGE (W) integrated over the window's
	// scrapes by trapezoids: used when the counter is absent, was reset, or changed
	// fewer than twice in the window (an exporter collecting less often than it is
	// scraped).
	EnergyFromPower EnergySource = "power_integral"
	// EnergyMixed: some GPUs' energy came from the counter, others' from the power.
	EnergyMixed EnergySource = "energy_counter_and_power_integral"
)

// GPUStats is the GPU telemetry of one step's measurement window, summed across the
// GPUs scraped (one DCGM label set per GPU, identified by its UUID).
type GPUStats struct {
	// GPUs is the number of GPUs scraped; Scrapes the DCGM scrapes in the window.
	GPUs    int `json:"gpus"`
	Scrapes int `json:"scrapes"`
	// UtilizationMean is the mean over GPUs and scrapes of DCGM_FI_DEV_GPU_UTIL, 0..1,
	// over the GPUs that report it: not MIG-partitioned ones (MIGGPUs), for which
	// dcgm-exporter reports 0. UtilizationUnavailable is true when no GPU reported it
	// (all MIG, or the metric not scraped); UtilizationMean is then 0, not a measurement.
	UtilizationMean        float64 `json:"utilization_mean"`
	UtilizationUnavailable bool    `json:"utilization_unavailable,omitempty"`
	MIGGPUs                int     `json:"mig_gpus,omitempty"`
	// MemoryUsedMiBMax is the sum over GPUs of each one's peak DCGM_FI_DEV_FB_USED (MiB).
	MemoryUsedMiBMax float64 `json:"memory_used_mib_max"`
	// PowerW is the GPUs' mean power draw over the window (W, summed over GPUs): the
	// energy over the time it was measured in when the energy is known, else the mean
	// of the DCGM_FI_DEV_POWER_USAGE scrapes.
	PowerW float64 `json:"power_w"`
	// EnergyJ is the GPUs' energy over the window (J, summed; 0 when unknown: fewer
	// than two scrapes), EnergySource how it was measured, EnergyWindowS the span it
	// covers (first to last scrape, s; the longest GPU's).
	EnergyJ       float64      `json:"energy_j,omitempty"`
	EnergySource  EnergySource `json:"energy_source,omitempty"`
	EnergyWindowS float64      `json:"energy_window_s,omitempty"`
	// EnergyCoverage is EnergyWindowS ÷ the step's measurement window (0..1, 4
	// decimals; 0 when either is unknown): under energyCoverageMin the scrapes that
	// measured the energy and power missed most of the window (failed or slow scrapes).
	EnergyCoverage float64 `json:"energy_coverage,omitempty"`
	// JoulesPerOutputToken is PowerW ÷ the step's output tokens/s (J per generated
	// token) and OutputTokensPerJoule its inverse; 0 when the step generated no tokens
	// or its throughput is a share of a mix step's (the power is the whole server's).
	JoulesPerOutputToken float64 `json:"joules_per_output_token,omitempty"`
	OutputTokensPerJoule float64 `json:"output_tokens_per_joule,omitempty"`
	// PerGPU is each GPU's figures, in the exporter's gpu index order.
	PerGPU []GPUDeviceStats `json:"per_gpu"`
}

// GPUDeviceStats is one GPU's telemetry over a step's window (its DCGM labels gpu,
// UUID, modelName and Hostname, as scraped).
type GPUDeviceStats struct {
	GPU      string `json:"gpu"`
	UUID     string `json:"uuid,omitempty"`
	Model    string `json:"model_name,omitempty"`
	Hostname string `json:"hostname,omitempty"`
	// UtilizationMean (0..1), MemoryUsedMiBMax (MiB), PowerW (W) and EnergyJ (J) as in
	// GPUStats, for this GPU alone. MIG: the GPU is partitioned into MIG instances
	// (label GPU_I_ID), whose DCGM_FI_DEV_GPU_UTIL dcgm-exporter reports as 0: its
	// UtilizationMean is then not measured (0).
	UtilizationMean  float64      `json:"utilization_mean"`
	MIG              bool         `json:"mig,omitempty"`
	MemoryUsedMiBMax float64      `json:"memory_used_mib_max"`
	PowerW           float64      `json:"power_w"`
	EnergyJ          float64      `json:"energy_j,omitempty"`
	EnergySource     EnergySource `json:"energy_source,omitempty"`
}

// gpuPoint is one scrape of one GPU; has* say which of its values were present.
// fbByInstance is the framebuffer used per MIG GPU instance (GPU_I_ID; "" without MIG),
// fb their sum.
type gpuPoint struct {
	tNs                     int64
	util, fb, power, energy float64
	hasUtil, hasFB          bool
	hasPower, hasEnergy     bool
	mig                     bool
	fbByInstance            map[string]float64
}

// gpuAcc is one GPU's scrapes in a step's window, in time order.
type gpuAcc struct {
	labels map[string]string
	points []gpuPoint
}

// gpuStats aligns DCGM scrapes to steps as serverStats does (tag and measurement
// window) and summarises each step's GPUs; steps without DCGM data are absent.
func gpuStats(samples []rundir.MetricSample, windows map[int]rundir.StepSummary) map[int]*GPUStats {
	acc := map[int]map[string]*gpuAcc{}
	scrapes := map[int]int{}
	for i := range samples {
		m := &samples[i]
		if !inStepWindow(m, windows) {
			continue
		}
		if addGPUScrape(acc, m) {
			scrapes[m.Step]++
		}
	}
	out := map[int]*GPUStats{}
	for step, gpus := range acc {
		st := summariseGPUs(gpus, scrapes[step])
		if w, ok := windows[step]; ok && w.MeasureEndNs > w.MeasureStartNs && st.EnergyWindowS > 0 {
			windowS := float64(w.MeasureEndNs-w.MeasureStartNs) / 1e9
			st.EnergyCoverage = math.Round(min(1, st.EnergyWindowS/windowS)*1e4) / 1e4
		}
		out[step] = st
	}
	return out
}

// gpuMetrics are the DCGM meanings read per GPU.
var gpuMetrics = []rundir.ServerMetric{rundir.ServerGPUUtilization, rundir.ServerGPUMemoryUsedMiB,
	rundir.ServerGPUPowerW, rundir.ServerGPUEnergyJ}

// addGPUScrape adds one scrape's DCGM label sets to its step's GPUs; false when the
// scrape carries none (another exporter's). A GPU is keyed by the endpoint and its UUID
// (its label list when it has none); label sets sharing a UUID (MIG instances, pods
// sharing the GPU) are one GPU, their largest value read (gpuPoint.set; the memory
// used is summed over MIG instances).
func addGPUScrape(acc map[int]map[string]*gpuAcc, m *rundir.MetricSample) bool {
	pts := map[string]*gpuPoint{}
	labelsOf := map[string]map[string]string{}
	for _, meaning := range gpuMetrics {
		for lbl, v := range rundir.ServerSeries(*m, meaning) {
			l := rundir.MetricLabels(lbl)
			key := m.URL + "|" + lbl
			if u := l["UUID"]; u != "" {
				key = m.URL + "|" + u
			}
			p := pts[key]
			if p == nil {
				p = &gpuPoint{tNs: m.TimeNs}
				pts[key], labelsOf[key] = p, l
			}
			p.set(meaning, v, l["GPU_I_ID"])
		}
	}
	if len(pts) == 0 {
		return false
	}
	if acc[m.Step] == nil {
		acc[m.Step] = map[string]*gpuAcc{}
	}
	for key, p := range pts {
		g := acc[m.Step][key]
		if g == nil {
			g = &gpuAcc{labels: labelsOf[key]}
			acc[m.Step][key] = g
		}
		g.points = append(g.points, *p)
	}
	return true
}

// set records meaning's value v of the label set of MIG instance (GPU_I_ID, "" without
// MIG), keeping the largest of several label sets (the device-wide power that
// dcgm-exporter repeats on each MIG instance, or on each pod sharing the GPU), except
// for the framebuffer used: each MIG instance's own, summed over instances, and the
// utilisation of a MIG instance, which dcgm-exporter reports as 0 (not read; the point
// is marked mig).
func (p *gpuPoint) set(meaning rundir.ServerMetric, v float64, instance string) {
	if instance != "" {
		p.mig = true
	}
	switch meaning {
	case rundir.ServerGPUUtilization:
		if instance != "" {
			return
		}
		p.util, p.hasUtil = maxIf(p.hasUtil, p.util, v), true
	case rundir.ServerGPUMemoryUsedMiB:
		if p.fbByInstance == nil {
			p.fbByInstance = map[string]float64{}
		}
		old, seen := p.fbByInstance[instance]
		p.fbByInstance[instance] = maxIf(seen, old, v)
		p.fb, p.hasFB = 0, true
		for _, x := range p.fbByInstance {
			p.fb += x
		}
	case rundir.ServerGPUPowerW:
		p.power, p.hasPower = maxIf(p.hasPower, p.power, v), true
	case rundir.ServerGPUEnergyJ:
		p.energy, p.hasEnergy = maxIf(p.hasEnergy, p.energy, v), true
	}
}

// maxIf is max(old, v) when old is set, else v.
func maxIf(set bool, old, v float64) float64 {
	if set {
		return math.Max(old, v)
	}
	return v
}

// summariseGPUs sums a step's GPUs into its GPUStats.
func summariseGPUs(gpus map[string]*gpuAcc, scrapes int) *GPUStats {
	st := &GPUStats{GPUs: len(gpus), Scrapes: scrapes, PerGPU: make([]GPUDeviceStats, 0, len(gpus))}
	sources := map[EnergySource]bool{}
	allEnergy := true
	utilSum, utilN := 0.0, 0
	for _, g := range gpus {
		d, windowS := g.summary()
		st.PerGPU = append(st.PerGPU, d)
		if d.MIG {
			st.MIGGPUs++
		}
		if g.hasUtil() {
			utilSum += d.UtilizationMean
			utilN++
		}
		st.MemoryUsedMiBMax += d.MemoryUsedMiBMax
		st.PowerW += d.PowerW
		if d.EnergySource == "" {
			allEnergy = false
			continue
		}
		st.EnergyJ += d.EnergyJ
		st.EnergyWindowS = math.Max(st.EnergyWindowS, windowS)
		sources[d.EnergySource] = true
	}
	if utilN > 0 {
		st.UtilizationMean = utilSum / float64(utilN)
	} else {
		st.UtilizationUnavailable = true
	}
	switch {
	case !allEnergy || len(sources) == 0:
		st.EnergyJ, st.EnergyWindowS = 0, 0
	case len(sources) > 1:
		st.EnergySource = EnergyMixed
	default:
		for s := range sources {
			st.EnergySource = s
		}
	}
	sort.Slice(st.PerGPU, func(i, j int) bool { return gpuLess(st.PerGPU[i], st.PerGPU[j]) })
	return st
}

// gpuLess orders GPUs by host, then numeric gpu index, then UUID.
func gpuLess(a, b GPUDeviceStats) bool {
	if a.Hostname != b.Hostname {
		return a.Hostname < b.Hostname
	}
	if len(a.GPU) != len(b.GPU) {
		return len(a.GPU) < len(b.GPU)
	}
	if a.GPU != b.GPU {
		return a.GPU < b.GPU
	}
	return a.UUID < b.UUID
}

// hasUtil reports whether any scrape of the GPU carried its utilisation.
func (g *gpuAcc) hasUtil() bool {
	for _, p := range g.points {
		if p.hasUtil {
			return true
		}
	}
	return false
}

// summary is the GPU's figures over the window and the span its energy covers (s).
// PowerW is the energy over that span when the energy is known, else the mean of the
// power scrapes.
func (g *gpuAcc) summary() (GPUDeviceStats, float64) {
	d := GPUDeviceStats{GPU: g.labels["gpu"], UUID: g.labels["UUID"], Model: g.labels["modelName"], Hostname: g.labels["Hostname"]}
	var utilSum, powerSum float64
	var utilN, powerN int
	for _, p := range g.points {
		if p.hasUtil {
			utilSum, utilN = utilSum+p.util, utilN+1
		}
		d.MIG = d.MIG || p.mig
		if p.hasFB {
			d.MemoryUsedMiBMax = math.Max(d.MemoryUsedMiBMax, p.fb)
		}
		if p.hasPower {
			powerSum, powerN = powerSum+p.power, powerN+1
		}
	}
	if utilN > 0 {
		d.UtilizationMean = utilSum / float64(utilN)
	}
	if powerN > 0 {
		d.PowerW = powerSum / float64(powerN)
	}
	e, spanS, src := g.energy()
	if src != "" && spanS > 0 {
		d.EnergyJ, d.EnergySource, d.PowerW = e, src, e/spanS
	}
	return d, spanS
}

// energy is the GPU's energy over its scrapes (J), the span it covers (s) and how it
// was measured: the counter's increase when it rose (counterEnergy), else the power
// integral; src is "" when neither is known (fewer than two scrapes carrying them).
func (g *gpuAcc) energy() (j, spanS float64, src EnergySource) {
	if j, spanS, ok := g.counterEnergy(); ok {
		return j, spanS, EnergyFromCounter
	}
	var prev *gpuPoint
	var t0, t1 int64
	for i := range g.points {
		p := &g.points[i]
		if !p.hasPower {
			continue
		}
		if prev == nil {
			t0 = p.tNs
		} else {
			j += (p.power + prev.power) / 2 * float64(p.tNs-prev.tNs) / 1e9
		}
		prev, t1 = p, p.tNs
	}
	if prev == nil || t1 <= t0 {
		return 0, 0, ""
	}
	return j, float64(t1-t0) / 1e9, EnergyFromPower
}

// counterEnergy is the energy counter's increase (J) over the span it covers (s). When
// the counter moved between every two scrapes, that is from the first scrape to the
// last. When it held its value across scrapes (an exporter that collects less often
// than it is scraped: dcgm-exporter's -c, 30 s by default, serves the last
// collection's values), a scrape's value dates from some unknown time before it, so
// the span runs from the first scrape that saw a new value to the last one, both
// equally late: the whole window would count the collections it happened to cover
// (one or two of 5 s in 7.5 s: a power a third off). ok is false when the counter
// fell (a reset) or changed fewer than twice.
func (g *gpuAcc) counterEnergy() (j, spanS float64, ok bool) {
	var prev, first, last, firstChange *gpuPoint
	pairs, changes := 0, 0
	for i := range g.points {
		p := &g.points[i]
		if !p.hasEnergy {
			continue
		}
		if first == nil {
			first = p
		}
		if prev != nil {
			pairs++
			if p.energy < prev.energy {
				return 0, 0, false
			}
			if p.energy != prev.energy {
				changes++
				if firstChange == nil {
					firstChange = p
				}
				last = p
			}
		}
		prev = p
	}
	if changes < pairs {
		first = firstChange
	}
	if first == nil || last == nil || last.tNs <= first.tNs || !(last.energy > first.energy) {
		return 0, 0, false
	}
	return last.energy - first.energy, float64(last.tNs-first.tNs) / 1e9, true
}
