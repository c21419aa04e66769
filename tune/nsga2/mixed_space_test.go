package nsga2

import (
	"math"
	"strconv"
	"testing"
)

// mixedSpace is an engine-like space: an Int with a step, a log Int, a stepped Float, a
// Categorical, a continuous log Float and a stepped log Float, with the constraint
// tokens ≥ seqs.
func mixedSpace() Space {
	return Space{Params: []Param{
		{Name: "max_num_batched_tokens", Kind: Int, Min: 16, Max: 4096, Step: 16},
		{Name: "max_num_seqs", Kind: Int, Min: 1, Max: 4096, Log: true},
		{Name: "gpu_memory_utilization", Kind: Float, Min: 0.80, Max: 0.95, Step: 0.01},
		{Name: "scheduler", Kind: Categorical, Choices: 3},
		{Name: "swap_gb", Kind: Float, Min: 0.1, Max: 10, Log: true},
		{Name: "block", Kind: Float, Min: 1, Max: 64, Step: 0.5, Log: true},
	}, Feasible: func(p Point) bool { return p[0] >= p[1] }}
}

// checkOnGrid fails the test unless every value of p is on its Param's grid and in
// bounds, judged from the Params alone.
func checkOnGrid(t *testing.T, s Space, p Point) {
	t.Helper()
	if len(p) != len(s.Params) {
		t.Fatalf("point %v has %d values for %d params", p, len(p), len(s.Params))
	}
	for i, par := range s.Params {
		v := p[i]
		lo, hi, step := par.Min, par.Max, par.Step
		switch par.Kind {
		case Categorical:
			lo, hi, step = 0, float64(par.Choices-1), 1
		case Int:
			step = max(step, 1)
		}
		if !(v >= lo && v <= hi) {
			t.Errorf("%s = %v outside [%v, %v] in %v", par.Name, v, lo, hi, p)
		}
		if step == 0 {
			continue
		}
		k := (v - lo) / step
		if math.Abs(k-math.Round(k)) > 1e-9 || (par.Kind != Float && v != math.Trunc(v)) {
			t.Errorf("%s = %v is off the grid %v + k·%v in %v", par.Name, v, lo, step, p)
		}
		if par.Kind == Float {
			if d, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64); d != v {
				t.Errorf("%s = %v is not its 2-decimal grid value in %v", par.Name, v, p)
			}
		}
	}
}

// engineResult is a made-up trial: users served (maximised) and memory (minimised); a
// point above 0.93 of GPU memory fails, as an engine that runs out of memory would.
func engineResult(p Point) Result {
	if p[2] > 0.93 {
		return Result{X: p, Failed: true}
	}
	users := math.Min(p[1], p[0]/16) * p[2] * []float64{1, 0.9, 1.1}[int(p[3])] / (1 + math.Abs(p[5]-16)/16)
	return Result{X: p, Objectives: []float64{users, 100*p[2] + p[4]}}
}

func TestMixedSpacePointsOnGridFeasibleAndNew(t *testing.T) {
	s := mixedSpace()
	dirs := []Direction{Maximize, Minimize}
	o, err := New(s, dirs, Options{Population: 24, Generations: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	seen := set{}
	choices := map[float64]int{}
	var firstBest, best float64
	for g := 0; !o.Done(); g++ {
		pts := o.Ask()
		if len(pts) != 24 {
			t.Fatalf("generation %d: %d points, want 24", g, len(pts))
		}
		res := make([]Result, len(pts))
		for i, p := range pts {
			checkOnGrid(t, s, p)
			if p[0] < p[1] {
				t.Errorf("generation %d: infeasible %v", g, p)
			}
			if seen.has(p) {
				t.Errorf("generation %d: %v asked before", g, p)
			}
			seen.add(p)
			choices[p[3]]++
			res[i] = engineResult(p)
			if !res[i].Failed {
				best = math.Max(best, res[i].Objectives[0])
			}
		}
		if g == 0 {
			firstBest = best
		}
		if err := o.Tell(res); err != nil {
			t.Fatal(err)
		}
	}
	if len(choices) != 3 {
		t.Errorf("scheduler took %v, want all 3 choices", choices)
	}
	for _, r := range o.Front() {
		if r.X[2] > 0.93 {
			t.Errorf("front holds the failed point %v", r.X)
		}
	}
	t.Logf("best users: %.1f in generation 0, %.1f after 12", firstBest, best)
	if best < 1.5*firstBest {
		t.Errorf("best users %.1f after 12 generations, want ≥ 1.5 × generation 0's %.1f", best, firstBest)
	}
}

func TestLogIntSampledEvenlyInLogSpace(t *testing.T) {
	s := mixedSpace()
	s.Feasible = nil
	pts, err := Random(s, 2000, 11)
	if err != nil {
		t.Fatal(err)
	}
	// log-uniform over [0.5, 4096.5]: P(seqs ≤ 64) = ln(64.5/0.5)/ln(4096.5/0.5) ≈ 0.54;
	// uniform it would be 1.6%. swap_gb ≤ 1 (log-uniform over [0.1, 10]): 0.5.
	var seqs, swap int
	for _, p := range pts {
		checkOnGrid(t, s, p)
		if p[1] <= 64 {
			seqs++
		}
		if p[4] <= 1 {
			swap++
		}
	}
	if f := float64(seqs) / 2000; f < 0.50 || f > 0.58 {
		t.Errorf("max_num_seqs ≤ 64 in %.3f of draws, want ≈ 0.54", f)
	}
	if f := float64(swap) / 2000; f < 0.46 || f > 0.54 {
		t.Errorf("swap_gb ≤ 1 in %.3f of draws, want ≈ 0.5", f)
	}
}

func TestGridEndsDrawnAsOftenAsTheMiddle(t *testing.T) {
	// Rounding a uniform draw over [Min, Max] would give the ends half a share each;
	// over [Min − Step/2, Max + Step/2] every grid value gets one.
	s := Space{Params: []Param{
		{Name: "n", Kind: Int, Min: 1, Max: 3},
		{Name: "f", Kind: Float, Min: 0, Max: 0.2, Step: 0.1},
		{Name: "free", Kind: Float, Min: 0, Max: 1},
	}}
	pts, err := Random(s, 6000, 5)
	if err != nil {
		t.Fatal(err)
	}
	ints, floats := map[float64]int{}, map[float64]int{}
	for _, p := range pts {
		ints[p[0]]++
		floats[p[1]]++
	}
	for _, v := range []float64{1, 2, 3} {
		if f := float64(ints[v]) / 6000; math.Abs(f-1.0/3) > 0.025 {
			t.Errorf("n = %v in %.3f of draws, want ≈ 1/3: %v", v, f, ints)
		}
	}
	for _, v := range []float64{0, 0.1, 0.2} {
		if f := float64(floats[v]) / 6000; math.Abs(f-1.0/3) > 0.025 {
			t.Errorf("f = %v in %.3f of draws, want ≈ 1/3: %v", v, f, floats)
		}
	}
}
