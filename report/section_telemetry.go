package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/llmcap/llmcap/analysis"
)

// The words and tables of the server telemetry a segment's results show under its step
// table (GPU telemetry from a dcgm-exporter, the prefix-cache hit rate), shared by the
// PDF, the HTML report and the workbook: nothing when the run scraped neither.

// telemetryHeading heads a segment's telemetry table.
const telemetryHeading = "GPU and cache telemetry per step"

// hasGPU reports whether any of the segment's steps has GPU telemetry.
func hasGPU(seg analysis.SegmentAnalysis) bool {
	for _, s := range seg.Steps {
		if s.GPU != nil {
			return true
		}
	}
	return false
}

// hasPrefixCache reports whether any of the segment's steps has a prefix-cache hit rate.
func hasPrefixCache(seg analysis.SegmentAnalysis) bool {
	for _, s := range seg.Steps {
		if s.Server != nil && s.Server.PrefixCache != nil {
			return true
		}
	}
	return false
}

// telemetryTable is a segment's telemetry per step: the load, then with GPU telemetry
// the GPUs' mean utilisation (%), summed peak memory (GiB), summed power (W), J per
// output token and output tokens per joule, and with a prefix cache its hit rate (%).
// nil headers when the segment has neither.
func telemetryTable(a *analysis.Analysis, seg analysis.SegmentAnalysis) ([]string, [][]string) {
	gpu, prefix := hasGPU(seg), hasPrefixCache(seg)
	if !gpu && !prefix {
		return nil, nil
	}
	hdr := []string{loadName(a)}
	if gpu {
		hdr = append(hdr, "GPU util.", "GPU memory GiB", "GPU power W", "J / output token", "output tokens / J")
	}
	if prefix {
		hdr = append(hdr, "prefix-cache hits")
	}
	var data [][]string
	for _, s := range seg.Steps {
		r := []string{loadText(s.Load)}
		if gpu {
			r = append(r, gpuCells(s.GPU)...)
		}
		if prefix {
			hit := "–"
			if s.Server != nil && s.Server.PrefixCache != nil {
				hit = pct(s.Server.PrefixCache.HitRate)
			}
			r = append(r, hit)
		}
		data = append(data, r)
	}
	return hdr, data
}

// gpuCells are a step's GPU cells of telemetryTable ("–" without telemetry or tokens;
// utilisation "n/a" when no GPU reported it, MIG instances; the power and energy
// figures marked lowCoverageMark when the energy spans little of the window).
func gpuCells(g *analysis.GPUStats) []string {
	if g == nil {
		return []string{"–", "–", "–", "–", "–"}
	}
	util := pct(g.UtilizationMean)
	if g.UtilizationUnavailable {
		util = "n/a"
	}
	power, jpt, tpj := auto(g.PowerW), positiveAuto(g.JoulesPerOutputToken), positiveAuto(g.OutputTokensPerJoule)
	if g.EnergyCoverageLow() {
		power, jpt, tpj = marked(power), marked(jpt), marked(tpj)
	}
	return []string{util, auto(g.MemoryUsedMiBMax / 1024), power, jpt, tpj}
}

// lowCoverageMark marks a step's power and energy figures whose energy spans under
// analysis.EnergyCoverageMin of its window (lowCoverageNote explains it).
const lowCoverageMark = "*"

// marked is cell v with lowCoverageMark ("–" stays unmarked).
func marked(v string) string {
	if v == "–" {
		return v
	}
	return v + lowCoverageMark
}

// lowCoverageNote explains lowCoverageMark, with the coverage of each marked step; ""
// when no step of seg is marked.
func lowCoverageNote(seg analysis.SegmentAnalysis) string {
	var parts []string
	for _, s := range seg.Steps {
		if s.GPU.EnergyCoverageLow() {
			parts = append(parts, fmt.Sprintf("%s s of %s s at %s", num(s.GPU.EnergyWindowS, 1), num(s.GPU.EnergyWindowS/s.GPU.EnergyCoverage, 1), loadText(s.Load)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf(" %s Power and energy from under %s%% of the step's window (the exporter's other scrapes failed or were missing): %s.",
		lowCoverageMark, num(100*analysis.EnergyCoverageMin, 0), strings.Join(parts, ", "))
}

// migNote says that MIG GPUs' utilisation is not reported; "" without MIG GPUs.
func migNote(g *analysis.GPUStats) string {
	if g.MIGGPUs == 0 {
		return ""
	}
	return " GPU utilisation is not reported for MIG instances (dcgm-exporter gives 0): n/a, or the mean of the other GPUs."
}

// positiveAuto is auto(v), or "–" for 0 (unknown).
func positiveAuto(v float64) string {
	if !(v > 0) {
		return "–"
	}
	return auto(v)
}

// telemetryNote says where a segment's GPU telemetry comes from (the GPUs, and how
// the energy was measured) and its energy at capacity; "" without GPU telemetry.
func telemetryNote(seg analysis.SegmentAnalysis) string {
	var g *analysis.GPUStats
	for _, s := range seg.Steps {
		if s.GPU != nil {
			g = s.GPU
		}
	}
	if g == nil {
		return ""
	}
	out := fmt.Sprintf("GPU telemetry scraped from the DCGM exporter: %s. Utilisation is the GPUs' mean, memory the sum of their peaks, power their summed mean draw over the step's window; %s",
		gpuList(g), energySourceText(g.EnergySource))
	out += migNote(g) + lowCoverageNote(seg)
	if e := seg.Capacity.Energy; e != nil {
		out += fmt.Sprintf(" At capacity: %s W, %s J per output token, %s output tokens per joule.",
			auto(e.PowerW), auto(e.JoulesPerOutputToken), auto(e.OutputTokensPerJoule))
	}
	return out
}

// gpuList names the GPUs scraped, e.g. "2 × NVIDIA H100 80GB HBM3 on gpu-node-07".
func gpuList(g *analysis.GPUStats) string {
	count := map[string]int{}
	hosts := map[string]bool{}
	for _, d := range g.PerGPU {
		count[orDash(d.Model)]++
		if d.Hostname != "" {
			hosts[d.Hostname] = true
		}
	}
	var parts []string
	for m, n := range count {
		parts = append(parts, fmt.Sprintf("%d × %s", n, m))
	}
	sort.Strings(parts)
	out := strings.Join(parts, ", ")
	if len(hosts) > 0 {
		var hs []string
		for h := range hosts {
			hs = append(hs, h)
		}
		sort.Strings(hs)
		out += " on " + strings.Join(hs, ", ")
	}
	return out
}

// energySourceText says how the energy was measured, as a clause ending the note.
func energySourceText(src analysis.EnergySource) string {
	switch src {
	case analysis.EnergyFromCounter:
		return "energy (J per output token = power ÷ output tokens/s) from the increase of DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, the GPUs' energy meter, over the window."
	case analysis.EnergyFromPower:
		return "energy (J per output token = power ÷ output tokens/s) integrated from the DCGM_FI_DEV_POWER_USAGE scrapes (the energy counter was not scraped or did not move)."
	case analysis.EnergyMixed:
		return "energy (J per output token = power ÷ output tokens/s) from DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION where it moved, else integrated from DCGM_FI_DEV_POWER_USAGE."
	}
	return "too few scrapes per step for an energy: power is the mean of the DCGM_FI_DEV_POWER_USAGE scrapes."
}

// hasEnergyCost reports whether any what-if row prices the GPUs' energy.
func hasEnergyCost(ws []analysis.WhatIf) bool {
	for _, w := range ws {
		if w.EnergyCostPerMonthUSD > 0 || w.EnergyCostPerMOutputUSD > 0 {
			return true
		}
	}
	return false
}

// energyCostHeaders are the what-if table's energy columns.
var energyCostHeaders = []string{"energy / month", "energy $ / M output tokens"}

// energyCostCells are a what-if row's energy cells (noPrice for a projected row).
func energyCostCells(w analysis.WhatIf) []string {
	return []string{sizingUSD(w.EnergyCostPerMonthUSD), sizingUSDCents(w.EnergyCostPerMOutputUSD)}
}

// energyCostNote explains the what-if table's energy columns; "" without them.
func energyCostNote(a *analysis.Analysis) string {
	if !hasEnergyCost(a.WhatIf) {
		return ""
	}
	return fmt.Sprintf("Energy at %s per kWh (report.power_usd_per_kwh), measured GPU only: per month, each GPU drawing the scraped GPUs' mean power at capacity for %d hours; "+
		"per million output tokens, J per output token at capacity × 10⁶ ÷ 3.6 × 10⁶ J/kWh. Not included in cost / month.",
		sizingUSDCents(a.Plan.Report.PowerUSDPerKWh), hoursPerMonth)
}

// evenSizes splits the PDF's 24-column grid over n columns, the spare ones to the first.
func evenSizes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 24 / n
	}
	out[0] += 24 % n
	return out
}
