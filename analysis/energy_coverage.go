package analysis

import (
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// EnergyCoverageMin is the share of a step's measurement window (0..1) its GPU energy
// must span (GPUStats.EnergyCoverage) not to be flagged: below it the exporter's
// scrapes failed or came too seldom for most of the window, and the step's power, energy
// and J per output token describe only the part they covered.
const EnergyCoverageMin = 0.5

// EnergyCoverageLow reports whether g's energy spans less than EnergyCoverageMin of its
// step's measurement window (false without an energy or a known window).
func (g *GPUStats) EnergyCoverageLow() bool {
	return g != nil && g.EnergyCoverage > 0 && g.EnergyCoverage < EnergyCoverageMin
}

// energyCoverageWarning is a WarnGPUEnergyCoverage warning naming the steps (of the
// segments and the mix) whose GPU energy spans less than EnergyCoverageMin of their
// measurement window, each with its span and window, e.g. "chat @ 8 concurrency: 0.5 s
// of 8.3 s (6%)"; Data.Steps are their stepLabels. ok is false when no step is short.
func energyCoverageWarning(a *Analysis) (Warning, bool) {
	var labels, parts []string
	segs := append([]SegmentAnalysis(nil), a.Segments...)
	if a.Mix != nil {
		segs = append(segs, *a.Mix)
	}
	for _, seg := range segs {
		for i := range seg.Steps {
			s := &seg.Steps[i]
			if !s.GPU.EnergyCoverageLow() {
				continue
			}
			l := stepLabel(a, s)
			windowS := s.GPU.EnergyWindowS / s.GPU.EnergyCoverage
			labels = append(labels, l)
			parts = append(parts, fmt.Sprintf("%s: %.1f s of %.1f s (%.0f%%)", l, s.GPU.EnergyWindowS, windowS, 100*s.GPU.EnergyCoverage))
		}
	}
	if len(labels) == 0 {
		return Warning{}, false
	}
	w := warning(WarnGPUEnergyCoverage, "the GPU exporter's scrapes spanned under %.0f%% of the measurement window of %s: "+
		"their GPU power, energy and J per output token are from that part only (failed or missing scrapes; see server-metrics.jsonl)",
		100*EnergyCoverageMin, strings.Join(parts, "; "))
	w.Data = &rundir.WarningData{Steps: labels}
	return w, true
}
