package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// The plan diff leaves out what does not apply to a run: target.simulator.* of a run
// whose target is not the simulator, and a distribution's parameters its kind does
// not use (a fixed distribution's stale mean, a uniform one's value).
func TestPlanDiffSkipsFieldsThatDoNotApply(t *testing.T) {
	base, err := plan.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Segments) == 0 {
		t.Fatal("default plan has no segment")
	}
	mk := func(edit func(p *plan.Plan)) *plan.Plan {
		p, err := plan.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		edit(p)
		return p
	}
	// Two imported (HTTP) runs whose default simulator blocks differ, with the same
	// fixed output length and different unused parameters.
	a := mk(func(p *plan.Plan) {
		p.Target.URL = "http://gpu-a:8000/v1"
		p.Target.Simulator.MaxNumSeqs = 32
		p.Segments[0].OutputTokens = plan.Dist{Kind: plan.DistFixed, Value: 64, Mean: 10, Min: 1}
		p.Segments[0].PromptTokens = plan.Dist{Kind: plan.DistUniform, Min: 100, Max: 200, Value: 7, Mean: 150}
	})
	b := mk(func(p *plan.Plan) {
		p.Target.URL = "http://gpu-b:8000/v1"
		p.Target.Simulator.MaxNumSeqs = 256
		p.Segments[0].OutputTokens = plan.Dist{Kind: plan.DistFixed, Value: 64, Mean: 99, StdDev: 3}
		p.Segments[0].PromptTokens = plan.Dist{Kind: plan.DistUniform, Min: 100, Max: 300, Value: 9, Mean: 1}
	})
	var paths []string
	for _, f := range planDiff([]*plan.Plan{a, b}) {
		paths = append(paths, f.Path)
	}
	if want := []string{"target.url", "segments[0].prompt_tokens.max"}; !slices.Equal(paths, want) {
		t.Errorf("plan diff of two HTTP runs lists %v, want only %v", paths, want)
	}

	// A simulator run against an HTTP one: the simulator's fields are the first run's
	// only ("–" for the other), and a kind change shows each kind's own parameters.
	sim := mk(func(p *plan.Plan) {
		p.Target.Simulator.MaxNumSeqs = 32
		p.Segments[0].OutputTokens = plan.Dist{Kind: plan.DistNormal, Mean: 64, StdDev: 8, Value: 5}
	})
	http := mk(func(p *plan.Plan) {
		p.Target.URL = "http://gpu:8000/v1"
		p.Segments[0].OutputTokens = plan.Dist{Kind: plan.DistFixed, Value: 64, Mean: 3}
	})
	diff := map[string][]string{}
	for _, f := range planDiff([]*plan.Plan{sim, http}) {
		diff[f.Path] = f.Values
	}
	if v := diff["target.simulator.max_num_seqs"]; !slices.Equal(v, []string{"32", absent}) {
		t.Errorf("target.simulator.max_num_seqs = %v, want [32 –] (the HTTP run has no simulator)", v)
	}
	for path, want := range map[string][]string{
		"segments[0].output_tokens.dist":   {"normal", "fixed"},
		"segments[0].output_tokens.mean":   {"64", absent},
		"segments[0].output_tokens.stddev": {"8", absent},
		"segments[0].output_tokens.value":  {absent, "64"},
	} {
		if v := diff[path]; !slices.Equal(v, want) {
			t.Errorf("%s = %v, want %v", path, v, want)
		}
	}
	for path, v := range diff {
		if strings.HasPrefix(path, simulatorPath+".") && v[1] != absent {
			t.Errorf("%s = %v: the HTTP run has a simulator value", path, v)
		}
	}
}
