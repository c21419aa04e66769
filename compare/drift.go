package compare

import (
	"fmt"
	"slices"

	"github.com/llmcap/llmcap/analysis"
)

// driftOf is the comparison's drift section: nil unless at least two runs have the
// output-drift probe (a drift.jsonl, so their analysis has a Drift). The reference is
// the baseline when it has the probe, else the first run that has it; each other run
// with the probe is compared with it prompt by prompt by analysis.CompareDrift (on a
// copy of the run's analysis: the Input is not changed). Errors: a drift.jsonl that
// cannot be read, naming the run.
func driftOf(in []Input) (*DriftSection, error) {
	ref := -1
	probes := 0
	for i, r := range in {
		if r.Analysis.Drift != nil {
			probes++
			if ref < 0 {
				ref = i
			}
		}
	}
	if probes < 2 {
		return nil, nil
	}
	s := &DriftSection{Reference: in[ref].Label}
	for i, r := range in {
		rd := RunDrift{Label: r.Label, Probe: r.Analysis.Drift != nil}
		if rd.Probe {
			own := *r.Analysis.Drift
			own.Baseline = nil // an `analyze --baseline` comparison of its own, not this one's
			rd.Own = &own
		}
		if rd.Probe && i != ref {
			b, err := driftAgainst(r, in[ref].Dir)
			if err != nil {
				return nil, fmt.Errorf("compare %s: %w", r.Label, err)
			}
			rd.VsReference = b
		}
		s.Runs = append(s.Runs, rd)
	}
	return s, nil
}

// driftAgainst compares run r's probe outputs with the reference run directory
// refDir's (analysis.CompareDrift on a copy of r's analysis).
func driftAgainst(r Input, refDir string) (*analysis.DriftBaseline, error) {
	a := *r.Analysis
	d := *r.Analysis.Drift
	a.Drift = &d
	a.Warnings = slices.Clone(r.Analysis.Warnings)
	if err := analysis.CompareDrift(&a, r.Dir, refDir); err != nil {
		return nil, err
	}
	return a.Drift.Baseline, nil
}
