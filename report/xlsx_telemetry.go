package report

import (
	"math"

	"github.com/xuri/excelize/v2"

	"github.com/llmcap/llmcap/analysis"
)

// SheetGPUs is the workbook's per-GPU telemetry sheet, only when the run scraped a
// dcgm-exporter.
const SheetGPUs = "GPUs"

// runHasGPU and runHasPrefixCache report whether any step of the run (segments and the
// mix) has GPU telemetry, or a prefix-cache hit rate.
func runHasGPU(a *analysis.Analysis) bool {
	for _, seg := range allSegments(a) {
		if hasGPU(seg) {
			return true
		}
	}
	return false
}

func runHasPrefixCache(a *analysis.Analysis) bool {
	for _, seg := range allSegments(a) {
		if hasPrefixCache(seg) {
			return true
		}
	}
	return false
}

// telemetryColumns are the Steps sheet's telemetry columns, after the others: the GPU
// sums when the run has GPU telemetry, the prefix-cache hit rate when it has one.
func telemetryColumns(st styles, a *analysis.Analysis) []sheetColumn {
	var cols []sheetColumn
	if runHasGPU(a) {
		cols = append(cols, sheetColumn{"GPUs", st.int0, 6}, sheetColumn{"GPU utilisation", st.pct1, 11},
			sheetColumn{"GPU memory used (MiB)", st.int0, 12}, sheetColumn{"GPU power (W)", st.num1, 11},
			sheetColumn{"GPU energy (J)", st.num1, 12}, sheetColumn{"J per output token", st.num3, 11},
			sheetColumn{"output tokens per J", st.num3, 11}, sheetColumn{"energy source", 0, 16},
			sheetColumn{"GPU energy window coverage", st.pct1, 12})
	}
	if runHasPrefixCache(a) {
		cols = append(cols, sheetColumn{"prefix-cache hit rate", st.pct1, 12})
	}
	return cols
}

// telemetryCells are a step's cells of telemetryColumns (empty where unknown).
func telemetryCells(a *analysis.Analysis, s analysis.StepStats) []any {
	var out []any
	if runHasGPU(a) {
		if g := s.GPU; g != nil {
			var util any = fraction4(g.UtilizationMean)
			if g.UtilizationUnavailable {
				util = nil
			}
			out = append(out, g.GPUs, util, g.MemoryUsedMiBMax, g.PowerW, positive(g.EnergyJ),
				positive(g.JoulesPerOutputToken), positive(g.OutputTokensPerJoule), string(g.EnergySource), positive(g.EnergyCoverage))
		} else {
			out = append(out, nil, nil, nil, nil, nil, nil, nil, nil, nil)
		}
	}
	if runHasPrefixCache(a) {
		var hit any
		if s.Server != nil && s.Server.PrefixCache != nil {
			hit = fraction4(s.Server.PrefixCache.HitRate)
		}
		out = append(out, hit)
	}
	return out
}

// writeGPUsSheet lists each step's GPUs (segment, step, load, GPU index, UUID, model,
// host, utilisation, peak memory, power, energy and its source); nothing without GPU
// telemetry.
func writeGPUsSheet(f *excelize.File, st styles, a *analysis.Analysis) error {
	if !runHasGPU(a) {
		return nil
	}
	if _, err := f.NewSheet(SheetGPUs); err != nil {
		return err
	}
	cols := []sheetColumn{{"segment", 0, 16}, {"step", 0, 6}, {"load (" + loadName(a) + ")", loadStyle(st, a), 12},
		{"gpu", 0, 5}, {"UUID", 0, 42}, {"model", 0, 24}, {"host", 0, 16}, {"utilisation", st.pct1, 11},
		{"memory used peak (MiB)", st.int0, 12}, {"power (W)", st.num1, 10}, {"energy (J)", st.num1, 12}, {"energy source", 0, 16}}
	var rows [][]any
	for _, seg := range allSegments(a) {
		for _, s := range seg.Steps {
			if s.GPU == nil {
				continue
			}
			for _, d := range s.GPU.PerGPU {
				var util any = fraction4(d.UtilizationMean)
				if d.MIG {
					util = nil // dcgm-exporter reports 0 for MIG instances
				}
				rows = append(rows, []any{seg.Segment, stepNumber(s.Step), s.Load, d.GPU, d.UUID, d.Model, d.Hostname,
					util, d.MemoryUsedMiBMax, d.PowerW, positive(d.EnergyJ), string(d.EnergySource)})
			}
		}
	}
	return writeTable(f, SheetGPUs, "GPUsTable", cols, rows)
}

// fraction4 is a share (0..1) that comes from averaging rounded to 4 decimals (0.01 %):
// a mean of scrapes such as 0.93999999999 stored as 0.94, not shown as 93.9999999999%
// by a sheet that prints its full precision.
func fraction4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
