package analysis

import (
	"math/rand/v2"

	"github.com/llmcap/llmcap/rundir"

	"github.com/llmcap/llmcap/plan"
)

// vsim is a small continuous-batching server in virtual time, for model-recovery tests:
// at most slots requests run; each iteration takes d0 + d1·batch + prefill·(prompt
// tokens admitted) ms and gives every running request one token (the admitting
// iteration gives the first). Users resubmit as soon as a reply ends (closed loop).
type vsim struct {
	slots          int
	d0, d1         float64 // ms, ms per running sequence
	prefillPerTok  float64 // ms per prompt token
	prompt, output int     // output is the mean; drawn uniformly in [output/2, 3·output/2]
	jitter         bool
	warmupS        float64
	windowS        float64
	seed           uint64
	// observe, when set, is called after each closed-loop iteration with the step, the
	// virtual time (ms) and the running and waiting requests (as a server's gauges).
	observe func(step int, tMs float64, running, waiting int)
}

type vreq struct {
	sent, first float64
	out, done   int
	started     bool
}

// step simulates one closed-loop step with n users and returns its records.
func (v vsim) step(stepIdx int, seg string, n int) []rundir.Record {
	rng := rand.New(rand.NewPCG(v.seed, uint64(stepIdx*1000+n)))
	draw := func() int {
		if !v.jitter {
			return v.output
		}
		return v.output/2 + rng.IntN(v.output+1)
	}
	var waiting, running []*vreq
	for i := 0; i < n; i++ {
		waiting = append(waiting, &vreq{sent: 0, out: draw()})
	}
	warmEnd, winEnd := v.warmupS*1000, (v.warmupS+v.windowS)*1000
	var recs []rundir.Record
	t, open := 0.0, n
	for open > 0 {
		admitted := 0
		for len(running) < v.slots && len(waiting) > 0 {
			running = append(running, waiting[0])
			waiting = waiting[1:]
			admitted++
		}
		t += v.d0 + v.d1*float64(len(running)) + v.prefillPerTok*float64(admitted*v.prompt)
		if v.observe != nil {
			v.observe(stepIdx, t, len(running), len(waiting))
		}
		keep := running[:0]
		for _, r := range running {
			if !r.started {
				r.started, r.first = true, t
			}
			r.done++
			if r.done < r.out {
				keep = append(keep, r)
				continue
			}
			open--
			recs = append(recs, v.record(stepIdx, seg, n, r, t, warmEnd, winEnd))
			if t < winEnd { // the user sends the next request
				waiting = append(waiting, &vreq{sent: t, out: draw()})
				open++
			}
		}
		running = keep
	}
	return recs
}

func (v vsim) record(stepIdx int, seg string, n int, r *vreq, end, warmEnd, winEnd float64) rundir.Record {
	const base = int64(1_700_000_000) * 1e9
	phase := rundir.PhaseMeasure
	switch {
	case r.sent < warmEnd:
		phase = rundir.PhaseWarmup
	case end > winEnd:
		phase = rundir.PhaseGrace
	}
	ns := func(ms float64) int64 { return base + int64(ms*1e6) }
	ttft, e2e := r.first-r.sent, end-r.sent
	rec := rundir.Record{RunID: "test", Segment: seg, Step: stepIdx, Schedule: plan.ScheduleConcurrency,
		Concurrency: n, Phase: phase, SentNs: ns(r.sent), FirstTokenNs: ns(r.first), EndNs: ns(end),
		TTFTMs: fp(ttft), TTFOMs: fp(ttft), E2EMs: fp(e2e), PromptTokens: v.prompt, IntendedPromptTokens: v.prompt,
		OutputTokens: r.out, IntendedOutputTokens: r.out, TokensSource: rundir.TokensUsage, Status: rundir.StatusOK}
	if r.out >= 2 {
		rec.ITLMs = fp((e2e - ttft) / float64(r.out-1))
	}
	return rec
}

// ladder simulates every load of a one-segment plan and returns its records.
func (v vsim) ladder(p plan.Plan) []rundir.Record {
	var out []rundir.Record
	for _, s := range p.Steps() {
		out = append(out, v.step(s.Index, s.Segment, s.Concurrency)...)
	}
	return out
}

// stepOpen simulates one open-loop step: Poisson arrivals at rate req/s for the warm-up
// and the window, then drains.
func (v vsim) stepOpen(stepIdx int, seg string, rate float64) []rundir.Record {
	rng := rand.New(rand.NewPCG(v.seed, uint64(stepIdx*1000)+uint64(rate*10)))
	draw := func() int {
		if !v.jitter {
			return v.output
		}
		return v.output/2 + rng.IntN(v.output+1)
	}
	warmEnd, winEnd := v.warmupS*1000, (v.warmupS+v.windowS)*1000
	next := rng.ExpFloat64() / rate * 1000
	var waiting, running []*vreq
	var recs []rundir.Record
	t := 0.0
	for next < winEnd || len(waiting) > 0 || len(running) > 0 {
		if len(waiting) == 0 && len(running) == 0 && next > t {
			t = next
		}
		for next <= t && next < winEnd {
			waiting = append(waiting, &vreq{sent: next, out: draw()})
			next += rng.ExpFloat64() / rate * 1000
		}
		admitted := 0
		for len(running) < v.slots && len(waiting) > 0 {
			running = append(running, waiting[0])
			waiting = waiting[1:]
			admitted++
		}
		if len(running) == 0 {
			continue
		}
		t += v.d0 + v.d1*float64(len(running)) + v.prefillPerTok*float64(admitted*v.prompt)
		keep := running[:0]
		for _, r := range running {
			if !r.started {
				r.started, r.first = true, t
			}
			if r.done++; r.done < r.out {
				keep = append(keep, r)
				continue
			}
			rec := v.record(stepIdx, seg, 0, r, t, warmEnd, winEnd)
			rec.Schedule, rec.Rate, rec.Concurrency = plan.ScheduleRate, rate, 0
			recs = append(recs, rec)
		}
		running = keep
	}
	return recs
}
