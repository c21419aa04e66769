package nsga2

import (
	"math"
	"testing"
)

func TestPolynomialMutationIsSymmetricWithMeanStepOneOverEtaPlusTwo(t *testing.T) {
	r := newRNG(1, streamMain)
	const n = 20000
	up, sumStep := 0, 0.0
	for range n {
		y := polyMutate(r, 0.5, 0, 1, 20)
		if y < 0 || y > 1 {
			t.Fatalf("mutated to %v, outside [0, 1]", y)
		}
		if y > 0.5 {
			up++
		}
		sumStep += math.Abs(y - 0.5)
	}
	// The perturbation's density is (η+1)/2 · (1−|δ|)^η, so E|δ| = 1/(η+2) = 1/22.
	if f := float64(up) / n; f < 0.48 || f > 0.52 {
		t.Errorf("moved up in %.3f of mutations, want ≈ 0.5", f)
	}
	if m := sumStep / n; math.Abs(m-1.0/22) > 0.002 {
		t.Errorf("mean step %.4f, want ≈ 1/22 = %.4f", m, 1.0/22)
	}
	for range 2000 {
		if y := polyMutate(r, 0.999, 0, 1, 20); y < 0 || y > 1 {
			t.Fatalf("near the bound: mutated to %v, outside [0, 1]", y)
		}
	}
}

func TestSBXKeepsTheParentsMeanAndContractsHalfTheTime(t *testing.T) {
	r := newRNG(2, streamMain)
	const n = 20000
	contract, swapped := 0, 0
	for range n {
		// Bounds far away: the bounded SBX is then the unbounded one, whose children are
		// symmetric about the parents' mean with a spread factor β below 1 half the time.
		c1, c2, ok := sbx(r, 0.4, 0.6, -100, 100, 20)
		if !ok {
			t.Fatal("distinct parents not crossed")
		}
		if math.Abs(c1+c2-1) > 1e-9 {
			t.Fatalf("children %v, %v: mean %v, want the parents' 0.5", c1, c2, (c1+c2)/2)
		}
		if math.Abs(c2-c1) < 0.2 {
			contract++
		}
		if c1 > c2 {
			swapped++
		}
	}
	if f := float64(contract) / n; f < 0.48 || f > 0.52 {
		t.Errorf("children closer than the parents in %.3f of crossings, want ≈ 0.5", f)
	}
	if f := float64(swapped) / n; f < 0.48 || f > 0.52 {
		t.Errorf("first child the upper one in %.3f, want ≈ 0.5", f)
	}
	for range 2000 {
		c1, c2, _ := sbx(r, 0.01, 0.99, 0, 1, 2)
		if c1 < 0 || c1 > 1 || c2 < 0 || c2 > 1 {
			t.Fatalf("children %v, %v outside [0, 1]", c1, c2)
		}
	}
	if _, _, ok := sbx(r, 0.3, 0.3, 0, 1, 20); ok {
		t.Error("equal parents crossed")
	}
}

func TestTournamentPrefersRankThenCrowding(t *testing.T) {
	b := &breeder{r: newRNG(3, streamMain), parents: []member{
		{rank: 0, crowd: 0}, {rank: 1, crowd: math.Inf(1)}, {rank: 1, crowd: 0.5},
	}}
	// Three pairs, equally likely: {0,1} and {0,2} go to 0 by rank, {1,2} to 1 by crowding.
	wins := make([]int, 3)
	const n = 9000
	for range n {
		wins[b.tournament()]++
	}
	if wins[2] != 0 || math.Abs(float64(wins[0])/n-2.0/3) > 0.02 {
		t.Errorf("wins %v of %d, want about 2/3, 1/3 and none", wins, n)
	}
}

func TestCategoricalVariationTakesAParentsOrAnotherChoice(t *testing.T) {
	dims, err := compile(Space{Params: []Param{{Name: "c", Kind: Categorical, Choices: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	b := &breeder{dims: dims, r: newRNG(4, streamMain), opt: Options{MutationProb: 1, EtaC: 20, EtaM: 20}}
	counts := make([]int, 4)
	for range 3000 {
		c1, c2 := b.genes(Point{1}), b.genes(Point{3})
		b.crossover(c1, c2)
		if p1, p2 := b.decode(c1)[0], b.decode(c2)[0]; p1+p2 != 4 || (p1 != 1 && p1 != 3) {
			t.Fatalf("crossover of choices 1 and 3 gave %v and %v", p1, p2)
		}
		m := b.genes(Point{2})
		b.mutate(m)
		counts[int(b.decode(m)[0])]++
	}
	if counts[2] != 0 {
		t.Errorf("mutation kept choice 2 in %d of 3000", counts[2])
	}
	for _, k := range []int{0, 1, 3} {
		if f := float64(counts[k]) / 3000; math.Abs(f-1.0/3) > 0.03 {
			t.Errorf("mutation chose %d in %.3f, want ≈ 1/3: %v", k, f, counts)
		}
	}
}
