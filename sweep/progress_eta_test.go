package sweep

import (
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// TestProgressETASearch: a capacity search's step-done line gives the steps it may
// still take times the step's estimate — max_steps less those taken, none once it
// stopped, a search not begun at its opener's estimate — instead of eta=0s (its later
// steps are not chosen yet); a fixed ladder sums the later steps.
func TestProgressETASearch(t *testing.T) {
	p := plan.Default()
	p.Segments = []plan.Segment{
		{Name: "a", Weight: 1, PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 10}, OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 10}},
		{Name: "b", Weight: 1, PromptTokens: plan.Dist{Kind: plan.DistFixed, Value: 10}, OutputTokens: plan.Dist{Kind: plan.DistFixed, Value: 10}},
	}
	p.Ladder.Concurrency = nil
	p.Ladder.Duration = 10 * time.Second
	p.Ladder.Search = &plan.Search{Over: plan.SearchConcurrency, Start: 1, Max: 64, MaxSteps: 5, Growth: 4, Tolerance: 0.05}
	openers := p.Steps()
	st := p.StepAt(0, "a", 4)
	st.Estimated = 20 * time.Second
	rn := &runner{plan: p, meta: &rundir.RunMeta{
		Steps:    []plan.Step{openers[0], st},
		Searches: []rundir.SearchLog{{Segment: "a", Steps: []rundir.SearchStep{{Index: 0}, {Index: 1}}}},
	}}
	want := 3*20*time.Second + 5*openers[1].Estimated // a: 5 − 2 steps left; b: not begun
	if got := rn.etaAfter(st); got != want || got <= 0 {
		t.Errorf("etaAfter in a search = %v, want %v", got, want)
	}
	rn.meta.Searches[0].Stop = "adjacent"
	if got, want := rn.etaAfter(st), 5*openers[1].Estimated; got != want {
		t.Errorf("etaAfter once a's search stopped = %v, want %v (b's alone)", got, want)
	}

	p.Ladder.Search = nil
	p.Ladder.Concurrency = []int{1, 2, 4}
	steps := p.Steps()
	rn = &runner{plan: p, meta: &rundir.RunMeta{Steps: steps}}
	if got, want := rn.etaAfter(steps[3]), steps[4].Estimated+steps[5].Estimated; got != want {
		t.Errorf("etaAfter on a fixed ladder = %v, want %v", got, want)
	}
}
