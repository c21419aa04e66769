package compare

import (
	"fmt"
	"math"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// segmentView is one segment's (or the mix's) steps in a run's analysis.
type segmentView struct {
	name    string
	fromMix bool
	steps   []analysis.StepStats
}

// segmentsOf are a's segments in order, then the mix.
func segmentsOf(a *analysis.Analysis) []segmentView {
	var out []segmentView
	for _, s := range a.Segments {
		out = append(out, segmentView{name: s.Segment, fromMix: s.FromMix, steps: s.Steps})
	}
	if a.Mix != nil {
		out = append(out, segmentView{name: plan.MixSegment, steps: a.Mix.Steps})
	}
	return out
}

// find is the segment named name (nil when the run has none).
func find(vs []segmentView, name string) *segmentView {
	for i := range vs {
		if vs[i].name == name {
			return &vs[i]
		}
	}
	return nil
}

// stepAt is the segment's first step at load (nil when it measured none there).
func (v *segmentView) stepAt(load float64) *analysis.StepStats {
	for i := range v.steps {
		if sameLoad(v.steps[i].Load, load) {
			return &v.steps[i]
		}
	}
	return nil
}

// sameLoad: loads are equal to 1e-9 of their size (rates are fractional).
func sameLoad(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) }

// commonLoads are, per segment of the baseline that every run has, the baseline's
// loads that every run measured (in the baseline's load order); notes say which
// segments are missing from a run or have no common load.
func commonLoads(labels []string, views [][]segmentView) ([]SegmentLoads, []string) {
	out := []SegmentLoads{}
	var notes []string
	for _, base := range views[0] {
		var loads []float64
		missing := ""
		for i := 1; i < len(views) && missing == ""; i++ {
			if find(views[i], base.name) == nil {
				missing = labels[i]
			}
		}
		if missing != "" {
			notes = append(notes, fmt.Sprintf("segment %s is not in run %s: it has no delta rows", base.name, missing))
			continue
		}
		for _, s := range base.steps {
			all := true
			for i := 1; i < len(views) && all; i++ {
				all = find(views[i], base.name).stepAt(s.Load) != nil
			}
			if all && (len(loads) == 0 || !sameLoad(loads[len(loads)-1], s.Load)) {
				loads = append(loads, s.Load)
			}
		}
		if len(loads) == 0 {
			notes = append(notes, fmt.Sprintf("segment %s: no load was measured by every run, so it has no delta rows (compare the capacities)", base.name))
			continue
		}
		out = append(out, SegmentLoads{Segment: base.name, Loads: loads})
	}
	return out, notes
}

// deltas computes the delta table: for each common load, each run's metrics from its
// records and each later run's differences from the baseline with their bootstrap
// intervals.
func deltas(in []Input, views [][]segmentView, common []SegmentLoads, spec plan.SLA) ([]LoadDelta, error) {
	reqs := make([]map[stepRef][]req, len(in))
	for i := range in {
		var want []stepRef
		for _, sl := range common {
			v := find(views[i], sl.Segment)
			for _, l := range sl.Loads {
				want = append(want, stepRefOf(v, v.stepAt(l).Step))
			}
		}
		var err error
		if reqs[i], err = readSteps(in[i].Dir, want, spec); err != nil {
			return nil, err
		}
	}
	out := []LoadDelta{}
	for _, sl := range common {
		for _, l := range sl.Loads {
			out = append(out, deltaRow(in, views, reqs, sl.Segment, l, len(out)))
		}
	}
	return out, nil
}

// deltaRow is the delta table's rows of one segment at one load; row numbers the
// random streams.
func deltaRow(in []Input, views [][]segmentView, reqs []map[stepRef][]req, seg string, load float64, row int) LoadDelta {
	points := make([]stepStats, len(in))
	boots := make([][]stepStats, len(in))
	for i := range in {
		v := find(views[i], seg)
		st := v.stepAt(load)
		qs := reqs[i][stepRefOf(v, st.Step)]
		points[i] = statsOf(qs, st.DurationS)
		if len(qs) > 0 {
			closed := st.Schedule == plan.ScheduleConcurrency || st.Schedule == plan.ScheduleUsers
			boots[i] = resampled(qs, st.DurationS, closed, BootstrapReps, rngFor(i, row))
		}
	}
	d := LoadDelta{Segment: seg, Load: load}
	for m, metric := range Metrics {
		md := MetricDelta{Metric: metric, Values: make([]float64, len(in)), N: make([]int, len(in)), Diffs: []Diff{}}
		for i := range in {
			md.Values[i], md.N[i] = points[i].v[m], points[i].n[m]
		}
		for i := 1; i < len(in); i++ {
			md.Diffs = append(md.Diffs, diffOf(in[i].Label, metric, points[0], points[i], boots[0], boots[i], m))
		}
		d.Metrics = append(d.Metrics, md)
	}
	return d
}

// diffOf is run b's difference from baseline a on metric m (index mi).
func diffOf(label string, m Metric, a, b stepStats, ba, bb []stepStats, mi int) Diff {
	d := Diff{Run: label, Significance: NoData}
	if a.n[mi] == 0 || b.n[mi] == 0 {
		return d
	}
	d.Diff = b.v[mi] - a.v[mi]
	if a.v[mi] != 0 {
		d.Ratio = b.v[mi] / a.v[mi]
	}
	lo, hi, ok := interval(ba, bb, mi)
	if !ok {
		return d
	}
	d.Low, d.High = lo, hi
	d.Significance = Noise
	switch {
	case lo <= 0 && hi >= 0:
	case a.v[mi] != 0 && math.Abs(d.Diff) < MinEffect*math.Abs(a.v[mi]):
		d.Significance = Negligible
	default:
		d.Significance = Significant
	}
	d.Better = (d.Diff < 0) == m.LowerIsBetter() && d.Diff != 0
	return d
}

// curvesOf are the steps of each segment of the baseline that every run has, per run.
func curvesOf(labels []string, views [][]segmentView) []SegmentCurves {
	out := []SegmentCurves{}
	for _, base := range views[0] {
		sc := SegmentCurves{Segment: base.name}
		for i := range views {
			v := find(views[i], base.name)
			if v == nil {
				break
			}
			rc := RunCurve{Label: labels[i], Points: []CurvePoint{}}
			for _, s := range v.steps {
				rc.Points = append(rc.Points, CurvePoint{Load: s.Load, TTFTP50Ms: s.TTFTMs.P50, TTFTP95Ms: s.TTFTMs.P95,
					ITLP95Ms: s.ITLMs.P95, OutputTokensPerS: s.OutputTokenThroughput, GoodputRps: s.Goodput, HasLatency: s.TTFTMs.N > 0})
			}
			sc.Runs = append(sc.Runs, rc)
		}
		if len(sc.Runs) == len(views) {
			out = append(out, sc)
		}
	}
	return out
}
