package nsga2

import (
	"math"
	"strconv"
	"testing"
)

// zdt is a ZDT problem of Zitzler, Deb & Thiele (2000): n variables in [0, 1], f1 = x1,
// f2 = g·h(f1, g) with g = 1 + 9·mean(x2…xn); the true front is g = 1.
type zdt struct {
	name string
	h    func(f1, g float64) float64
	// trueHV is the true front's hypervolume against (1.1, 1.1): 1.1² minus the area
	// under the front f2 = h(f1, 1) over [0, 1].
	trueHV float64
}

var zdtProblems = []zdt{
	// ZDT1: h = 1 − √(f1/g); ∫₀¹ (1 − √x) dx = 1/3.
	{"ZDT1", func(f1, g float64) float64 { return 1 - math.Sqrt(f1/g) }, 1.21 - 1.0/3},
	// ZDT2: h = 1 − (f1/g)²; ∫₀¹ (1 − x²) dx = 2/3.
	{"ZDT2", func(f1, g float64) float64 { return 1 - (f1/g)*(f1/g) }, 1.21 - 2.0/3},
}

func (z zdt) eval(x Point) []float64 {
	sum := 0.0
	for _, v := range x[1:] {
		sum += v
	}
	g := 1 + 9*sum/float64(len(x)-1)
	return []float64{x[0], g * z.h(x[0], g)}
}

func unitSpace(n int) Space {
	ps := make([]Param, n)
	for i := range ps {
		ps[i] = Param{Name: "x" + strconv.Itoa(i), Kind: Float, Min: 0, Max: 1}
	}
	return Space{Params: ps}
}

// zdtSolve runs NSGA-II on z with 30 variables, population 100 for 250 generations,
// and returns its front's hypervolume against (1.1, 1.1) and the front's size.
func zdtSolve(t *testing.T, z zdt, seed uint64) (float64, int) {
	t.Helper()
	dirs := []Direction{Minimize, Minimize}
	o, err := New(unitSpace(30), dirs, Options{Population: 100, Generations: 250, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	for !o.Done() {
		pts := o.Ask()
		res := make([]Result, len(pts))
		for i, p := range pts {
			res[i] = Result{X: p, Objectives: z.eval(p)}
		}
		if err := o.Tell(res); err != nil {
			t.Fatal(err)
		}
	}
	front := o.Front()
	objs := make([][]float64, len(front))
	for i, r := range front {
		objs[i] = r.Objectives
	}
	return Hypervolume(objs, dirs, []float64{1.1, 1.1}), len(front)
}

// TestZDTFrontHypervolumeNearTheTrueFront: over seeds 1–20 the front reached 99.70%
// (ZDT1) and 99.41% (ZDT2) of the true hypervolume at worst; ZDT2 needs the 250
// generations (at 150, seeds stall at 74–96% before the front spreads along f1).
func TestZDTFrontHypervolumeNearTheTrueFront(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() || raceEnabled {
		seeds = seeds[:1]
	}
	for _, z := range zdtProblems {
		for _, seed := range seeds {
			hv, n := zdtSolve(t, z, seed)
			t.Logf("%s seed %d: front of %d, hypervolume %.5f = %.2f%% of the true %.5f", z.name, seed, n, hv, 100*hv/z.trueHV, z.trueHV)
			if hv < 0.99*z.trueHV || hv > z.trueHV {
				t.Errorf("%s seed %d: hypervolume %.5f, want in [99%%, 100%%] of the true %.5f", z.name, seed, hv, z.trueHV)
			}
		}
	}
}
