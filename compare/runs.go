package compare

import (
	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// hoursPerMonth is the month the analysis's sizing prices (730 h).
const hoursPerMonth = 730

// summaryOf is one run's answer from its analysis: the overall capacity and the
// measured GPU's sizing rows.
func summaryOf(in Input) RunSummary {
	a := in.Analysis
	c := a.Overall
	s := RunSummary{Label: in.Label, Dir: in.Dir, RunID: a.RunID, Schedule: a.Schedule,
		Capacity: capacityLoad(c), RangeLow: c.RangeLow, RangeHigh: c.RangeHigh, OpenEnded: c.OpenEnded,
		RangeKind: c.RangeKind, Method: c.Method, Basis: basisOf(c.Method),
		Bottleneck: c.Bottleneck, QueueLimit: c.QueueLimit, Limiting: c.LimitingConstraint,
		Users: c.Users, UsersWithThinkTime: c.UsersWithThinkTime, ThinkTimeS: c.ThinkTimeS, UsersSource: c.UsersSource,
		OutputTokensPerS: c.OutputTokensPerSAtCapacity, Sizing: []analysis.WhatIf{}, GPU: gpuOf(&a.Plan), Answer: a.Answer}
	if s.Basis == BasisNone {
		s.Capacity = 0
	}
	s.RunState, s.StepsCompleted, s.StepsPlanned = a.RunState, a.StepsCompleted, a.StepsPlanned
	s.HighestLoad = highestLoad(a)
	s.Bound = boundOf(c, a.RunState)
	for _, w := range a.WhatIf {
		if !w.Projected {
			s.Sizing = append(s.Sizing, w)
		}
	}
	return s
}

// capacityLoad is a capacity on its ladder's axis: users for a users ladder, the rate
// for an open loop, else the concurrency.
func capacityLoad(c analysis.Capacity) float64 {
	switch {
	case c.UsersSource == analysis.UsersMeasured:
		return c.UsersWithThinkTime
	case c.MaxRateWithinSLA > 0:
		return c.MaxRateWithinSLA
	}
	return c.MaxConcurrencyWithinSLA
}

// basisOf says whether a capacity found by method was measured or modelled.
func basisOf(m analysis.CapacityMethod) Basis {
	switch m {
	case analysis.MethodMeasured, analysis.MethodAtLeast:
		return BasisMeasured
	case analysis.MethodInterpolated, analysis.MethodModel:
		return BasisModelled
	}
	return BasisNone
}

// gpuOf is the deployment's GPU: report.gpu, else the simulator's.
func gpuOf(p *plan.Plan) string {
	if p.Report.GPU != "" {
		return p.Report.GPU
	}
	if p.Target.IsSimulator() {
		return p.Target.Simulator.GPU
	}
	return ""
}

// ReplicaHourUSD is the price of one replica for an hour (its GPUs × $/GPU-hour), from
// the first sizing row with a price; 0 when none has.
func (s RunSummary) ReplicaHourUSD() float64 {
	for _, w := range s.Sizing {
		if w.GPUHourUSD > 0 && w.Replicas > 0 && w.GPUs > 0 {
			return w.GPUHourUSD * float64(w.GPUs) / float64(w.Replicas)
		}
	}
	return 0
}

// GPUsPerReplica is the GPUs one replica uses (from the sizing rows; 0 when unknown).
func (s RunSummary) GPUsPerReplica() int {
	for _, w := range s.Sizing {
		if w.Replicas > 0 && w.GPUs > 0 {
			return w.GPUs / w.Replicas
		}
	}
	return 0
}

// CostPerMOutputUSD is the cost per million output tokens at capacity (USD; 0 when
// the analysis has no price).
func (s RunSummary) CostPerMOutputUSD() float64 {
	for _, w := range s.Sizing {
		if w.CostPerMOutputUSD > 0 {
			return w.CostPerMOutputUSD
		}
	}
	return 0
}

// boundOf says why capacity c is a lower bound (BoundNone when it is not): a model
// projection that hit its cap (method model, open-ended), or at_least: the ladder's
// top when the run completed, else the run was interrupted (state runState).
func boundOf(c analysis.Capacity, runState string) Bound {
	switch {
	case c.Method == analysis.MethodModel && c.OpenEnded:
		return BoundModelCap
	case c.Method == analysis.MethodAtLeast && runState != "":
		return BoundInterrupted
	case c.Method == analysis.MethodAtLeast:
		return BoundLadder
	}
	return BoundNone
}

// highestLoad is the highest load a run measured in any segment (its ladder's axis).
func highestLoad(a *analysis.Analysis) float64 {
	hi := 0.0
	segs := a.Segments
	if a.Mix != nil {
		segs = append(segs[:len(segs):len(segs)], *a.Mix)
	}
	for _, s := range segs {
		for _, st := range s.Steps {
			hi = max(hi, st.Load)
		}
	}
	return hi
}
