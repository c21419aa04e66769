// Package slatest holds the SLA agreement ladder for tests: one segment's three steps
// whose TTFT p95 sits exactly on the SLA threshold, or where nearest-rank and linear
// (numpy) percentiles fall on opposite sides of it. The analysis, the sweep's early
// stop and the profiles' knee each judge it through their own code path and must reach
// the verdicts written here (sla.Judge's), so the capacity, the early stop and the knee
// cannot disagree about a step.
package slatest

import (
	"fmt"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// ThresholdMs is the ladder's SLA: TTFT p95 ≤ 500 ms (and the default 1% error rate).
const ThresholdMs = 500

// CutOffWaitMs is the wait of each step's unfinished request (ms): below every finished
// TTFT of the ladder.
const CutOffWaitMs = 50.0

// SLA returns the ladder's SLA.
func SLA() plan.SLA {
	return plan.SLA{TTFTMs: map[string]float64{"p95": ThresholdMs}, MaxErrorRate: 0.01}
}

// Segment is the ladder's segment name.
const Segment = "chat"

// Step is one step of the agreement ladder: the TTFTs (ms, ascending) of its measured
// requests, all successful with OutputTokens tokens each, and its verdict.
type Step struct {
	Name        string
	Concurrency int
	TTFTMs      []float64
	// LinearP95Ms is numpy.percentile(TTFTMs, 95) (worked out by hand in Ladder);
	// NearestRankP95Ms the ⌈0.95·n⌉-th value, the profiles' former percentile.
	LinearP95Ms, NearestRankP95Ms float64
	// Pass is the verdict every SLA user must reach: LinearP95Ms ≤ ThresholdMs.
	Pass bool
}

// OutputTokens is each request's output length: two or more, so ITL is defined.
const OutputTokens = 8

// Ladder returns the three steps in load order (concurrency 1, 2, 3): the first two
// pass and the third fails, so the knee and the first failing step are the third (index
// 2), and the capacity lies between loads 2 and 3. The former profiles' nearest-rank
// check would have failed the first step and passed the third.
func Ladder() []Step {
	return []Step{
		{
			// n = 10: rank h = 9·0.95 = 8.55, between 400 (index 8) and 580 (index 9):
			// 400 + 0.55·180 = 499 ≤ 500, but nearest rank ⌈9.5⌉ = 10th = 580 > 500.
			Name: "nearest-rank fails, linear passes", Concurrency: 1,
			TTFTMs:      ramp(8, 400, 580),
			LinearP95Ms: 499, NearestRankP95Ms: 580, Pass: true,
		},
		{
			// n = 20: h = 19·0.95 = 18.05, between 500 and 500: exactly 500 = the
			// threshold, inclusive; nearest rank ⌈19⌉ = 19th = 500 too.
			Name: "p95 exactly on the threshold", Concurrency: 2,
			TTFTMs:      ramp(18, 500, 500),
			LinearP95Ms: 500, NearestRankP95Ms: 500, Pass: true,
		},
		{
			// n = 20: h = 18.05, between 500 and 1000: 500 + 0.05·500 = 525 > 500, but
			// nearest rank = 19th = 500 ≤ 500.
			Name: "nearest-rank passes, linear fails", Concurrency: 3,
			TTFTMs:      ramp(18, 500, 1000),
			LinearP95Ms: 525, NearestRankP95Ms: 500, Pass: false,
		},
	}
}

// ramp returns n values 100, 110, … (100 + 10·(n−1) ≤ 400 for n ≤ 31) followed by a and b.
func ramp(n int, a, b float64) []float64 {
	out := make([]float64, 0, n+2)
	for i := 0; i < n; i++ {
		out = append(out, 100+10*float64(i))
	}
	return append(out, a, b)
}

// PlanStep is the plan step of ladder step i (closed loop at s.Concurrency).
func (s Step) PlanStep(i int) plan.Step {
	return plan.Step{Index: i, Segment: Segment, Schedule: plan.ScheduleConcurrency, Concurrency: s.Concurrency}
}

// Records returns the step's records.jsonl lines for step index i of run runID, sent
// 10 ms apart from startNs: one warm-up request (TTFT 10 s: never judged), then the
// measured requests, each successful with OutputTokens tokens, TTFT from TTFTMs (in a
// shuffled order, so no user may rely on sorted input), E2E = TTFT + 70 ms and ITL
// 10 ms, then one grace-phase request still in flight when the step ended, after a
// 50 ms wait without a token (unfinished: outside the error rate, which it would
// otherwise break; a censored TTFT below every finished one, so it changes no
// percentile the judge estimates).
func (s Step) Records(runID string, i int, startNs int64) []rundir.Record {
	n := len(s.TTFTMs)
	out := make([]rundir.Record, 0, n+2)
	rec := func(k int, phase string, ttft float64) rundir.Record {
		e2e, itl := ttft+70, 10.0
		sent := startNs + int64(k)*10_000_000
		return rundir.Record{RunID: runID, Segment: Segment, Step: i, Schedule: plan.ScheduleConcurrency,
			Concurrency: s.Concurrency, Phase: phase, RequestID: fmt.Sprintf("%s-%d-%d", runID, i, k),
			SentNs: sent, FirstTokenNs: sent + int64(ttft*1e6), EndNs: sent + int64(e2e*1e6),
			TTFTMs: &ttft, TTFOMs: &ttft, ITLMs: &itl, E2EMs: &e2e,
			IntendedPromptTokens: 32, PromptTokens: 32, IntendedOutputTokens: OutputTokens, OutputTokens: OutputTokens,
			TokensSource: rundir.TokensUsage, Chunks: OutputTokens, FinishReason: "length", Status: rundir.StatusOK}
	}
	out = append(out, rec(0, rundir.PhaseWarmup, 10_000))
	for k := 0; k < n; k++ {
		out = append(out, rec(k+1, rundir.PhaseMeasure, s.TTFTMs[(k*7+3)%n])) // 7 is coprime with 10 and 20
	}
	cut := rec(n+1, rundir.PhaseGrace, 0)
	cut.TTFTMs, cut.TTFOMs, cut.ITLMs, cut.E2EMs, cut.FirstTokenNs = nil, nil, nil, nil, 0
	waited := CutOffWaitMs
	cut.EndNs, cut.OutputTokens, cut.Chunks, cut.FinishReason, cut.WaitedMs = 0, 0, 0, "", &waited
	cut.Status, cut.ErrorClass, cut.Error = rundir.StatusError, rundir.ErrUnfinished, "unfinished: still in flight when the step ended"
	return append(out, cut)
}
