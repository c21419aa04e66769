package importer

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// source is one imported file: its run's settings and requests. One file is one step.
type source struct {
	file string // as the messages name it
	tool string // the tool's name in words: "AIPerf", "vLLM bench serve"
	// model is the served model ("" unknown); url the server's OpenAI base URL ("":
	// unknown); api "chat" or "completions" ("" unknown).
	model, url, api string
	// schedule is plan.ScheduleConcurrency (a closed loop of concurrency requests) or
	// plan.ScheduleRate (an open loop at rate req/s, at most maxConcurrency in flight
	// when > 0, arrivals by arrival with burstiness).
	schedule       string
	concurrency    int
	rate           float64
	maxConcurrency int
	arrival        string
	burstiness     float64
	requests       []request
	skipped        []Skip
	renamed        int // records whose repeated request id got a suffix (uniqueIDs)
	// notes are what the description says about this file (e.g. reconstructed send
	// times), each a short clause.
	notes []string
}

// load is the step's load: its concurrency or its rate in req/s.
func (s *source) load() float64 {
	if s.schedule == plan.ScheduleRate {
		return s.rate
	}
	return float64(s.concurrency)
}

// loadWords is the load as the messages write it: "concurrency 8", "rate 2.5 req/s".
func (s *source) loadWords() string {
	if s.schedule == plan.ScheduleRate {
		return fmt.Sprintf("rate %g req/s", s.rate)
	}
	return fmt.Sprintf("concurrency %d", s.concurrency)
}

// orderLadder checks that srcs form one ladder — one schedule (all closed-loop
// concurrency, or all open-loop rate), one model, no load twice — and returns them
// ordered by load. Each error names the files on each side.
func orderLadder(srcs []*source) ([]*source, error) {
	if err := oneSchedule(srcs); err != nil {
		return nil, err
	}
	if err := oneDeployment(srcs); err != nil {
		return nil, err
	}
	out := slices.Clone(srcs)
	slices.SortStableFunc(out, func(a, b *source) int {
		switch {
		case a.load() < b.load():
			return -1
		case a.load() > b.load():
			return 1
		}
		return 0
	})
	for i := 1; i < len(out); i++ {
		if out[i].load() == out[i-1].load() {
			return nil, fmt.Errorf("%s and %s are both at %s: a ladder has one step per load; import them into separate run directories",
				out[i-1].file, out[i].file, out[i].loadWords())
		}
	}
	return out, nil
}

// oneSchedule refuses a mix of closed-loop (concurrency) and open-loop (rate) files.
func oneSchedule(srcs []*source) error {
	by := map[string][]string{}
	for _, s := range srcs {
		by[s.schedule] = append(by[s.schedule], s.file)
	}
	if len(by) < 2 {
		return nil
	}
	return fmt.Errorf("the files mix closed-loop concurrency runs (%s) and open-loop request-rate runs (%s): "+
		"a ladder has one schedule; import each kind into its own run directory",
		strings.Join(by[plan.ScheduleConcurrency], ", "), strings.Join(by[plan.ScheduleRate], ", "))
}

// oneDeployment refuses files of different models, servers, APIs or arrival
// processes (those the files name: an unknown one matches any), naming the files of
// each value: a ladder measures one deployment under one arrival process.
func oneDeployment(srcs []*source) error {
	for _, c := range []struct {
		what string
		get  func(*source) string
	}{
		{"models", func(s *source) string { return s.model }},
		{"server URLs", func(s *source) string { return s.url }},
		{"APIs", func(s *source) string { return s.api }},
		{"arrival processes", func(s *source) string { return s.arrival }},
	} {
		if err := sameAcross(srcs, c.what, c.get); err != nil {
			return err
		}
	}
	return nil
}

// sameAcross refuses files whose non-empty get values differ, naming the files of each.
func sameAcross(srcs []*source, what string, get func(*source) string) error {
	by := map[string][]string{}
	for _, s := range srcs {
		if v := get(s); v != "" {
			by[v] = append(by[v], s.file)
		}
	}
	if len(by) < 2 {
		return nil
	}
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s (%s)", v, strings.Join(by[v], ", ")))
	}
	return fmt.Errorf("the files are of different %s: %s; a ladder measures one deployment under one arrival process: import each into its own run directory",
		what, strings.Join(parts, "; "))
}

// stepResult summarises source s imported as step st.
func stepResult(s *source, st plan.Step) StepResult {
	r := StepResult{File: s.file, Step: st, RenamedIDs: s.renamed}
	for i := range s.requests {
		q := &s.requests[i]
		switch {
		case q.warmup:
			r.Warmup++
		default:
			r.Measured++
			if q.fail != nil {
				r.Errors++
			}
		}
	}
	return r
}
