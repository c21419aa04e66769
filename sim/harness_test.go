package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// loadResult holds per-request latencies (ms) of a virtual-time load run.
type loadResult struct {
	ttft, itl, e2e []float64
	elapsed        time.Duration
	preemptions    int64
}

func (l loadResult) p50(v []float64) float64 { return percentile(v, 0.5) }

// percentile is numpy's linear interpolation between closest ranks.
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// testEngine builds the scheduler of a simulator configuration without starting it.
func testEngine(t testing.TB, cfg plan.Simulator) *Server {
	t.Helper()
	s, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// closedLoop runs clients that each send perClient requests back to back (a new request
// as soon as the previous one finishes) in virtual time, and records every request
// except each client's first (the start-up burst).
func closedLoop(t testing.TB, s *Scheduler, clients, prompt, output, perClient int) loadResult {
	t.Helper()
	var res loadResult
	var now time.Duration
	var id uint64
	owner := map[*Request]int{}
	sent := make([]int, clients)
	submit := func(c int) {
		id++
		r := &Request{ID: id, PromptTokens: prompt, OutputTokens: output}
		if err := s.Add(r, now); err != nil {
			t.Fatal(err)
		}
		owner[r] = c
		sent[c]++
	}
	for c := range clients {
		submit(c)
	}
	for {
		it := s.Step(now)
		if it == nil {
			break
		}
		now += it.Duration
		_, finished := s.Complete(it)
		for _, r := range finished {
			c := owner[r]
			delete(owner, r)
			if sent[c] > 1 || perClient == 1 {
				res.ttft = append(res.ttft, ms(r.FirstToken-r.Arrival))
				res.e2e = append(res.e2e, ms(r.LastToken-r.Arrival))
				if r.Generated > 1 {
					res.itl = append(res.itl, ms(r.LastToken-r.FirstToken)/float64(r.Generated-1))
				}
			}
			if sent[c] < perClient {
				submit(c)
			}
		}
	}
	res.elapsed, res.preemptions = now, s.Preemptions
	return res
}
