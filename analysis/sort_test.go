package analysis

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
)

// TestSortFloatsMatchesSortFloat64s checks that the radix sort puts every value where
// sort.Float64s does, bit for bit, on slices above and below radixMin: latencies of
// many magnitudes, negatives, duplicates, zeros, subnormals and infinities; and that a
// slice with NaN (sorted by sort.Float64s) puts its NaNs first as before.
func TestSortFloatsMatchesSortFloat64s(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	gen := map[string]func() float64{
		"latencies": func() float64 { return 5 + rng.ExpFloat64()*300 },
		"rounded":   func() float64 { return math.Round(rng.Float64()*50) / 4 }, // many duplicates
		"signed":    func() float64 { return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20)) },
		"edges": func() float64 {
			return []float64{0, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, -math.MaxFloat64,
				math.MaxFloat64, 1, -1, 1e-310}[rng.IntN(9)]
		},
	}
	for name, g := range gen {
		for _, n := range []int{0, 1, 17, radixMin - 1, radixMin, 100_003} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = g()
			}
			want := slices.Clone(xs)
			sort.Float64s(want)
			sortFloats(xs)
			for i := range xs {
				if math.Float64bits(xs[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s n=%d: [%d] = %v, sort.Float64s has %v", name, n, i, xs[i], want[i])
				}
			}
		}
	}
	xs := make([]float64, radixMin+10)
	for i := range xs {
		xs[i] = float64(len(xs) - i)
	}
	xs[100], xs[len(xs)/2] = math.NaN(), math.NaN()
	sortFloats(xs)
	if !math.IsNaN(xs[0]) || !math.IsNaN(xs[1]) || xs[2] != 1 || xs[len(xs)-1] != float64(len(xs)) {
		t.Errorf("with NaN: starts %v %v %v, ends %v", xs[0], xs[1], xs[2], xs[len(xs)-1])
	}
}

// TestIntSortsMatchTheStandardOnes checks sortInt64s against slices.Sort and
// orderStable against sort.SliceStable (equal values keep their index order) on
// send times with many ties, negatives and the int64 extremes, above and below radixMin.
func TestIntSortsMatchTheStandardOnes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{0, 1, 9, radixMin - 1, radixMin, 70_001} {
		xs := make([]int64, n)
		for i := range xs {
			switch rng.IntN(10) {
			case 0:
				xs[i] = -rng.Int64N(1e6)
			case 1:
				xs[i] = []int64{math.MinInt64, math.MaxInt64, 0}[rng.IntN(3)]
			default:
				xs[i] = 1_700_000_000_000_000_000 + rng.Int64N(1000)*1e6 // ties
			}
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		sort.SliceStable(want, func(a, b int) bool { return xs[want[a]] < xs[want[b]] })
		if got := orderStable(xs); !slices.Equal(got, want) {
			t.Fatalf("n=%d: orderStable differs from sort.SliceStable", n)
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		sortInt64s(xs)
		if !slices.Equal(xs, sorted) {
			t.Fatalf("n=%d: sortInt64s differs from slices.Sort", n)
		}
	}
}

// TestAnalysisIndependentOfCPUCount analyses one run (steps of 6,000 requests, above
// radixMin, so the radix sort, the parallel steps and the parallel bootstrap all run)
// on one CPU and on four and checks that analysis.json is byte-identical.
func TestAnalysisIndependentOfCPUCount(t *testing.T) {
	dir, _ := writeMillion(t, 60_000)
	analyse := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		a, err := Analyze(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Segments[0].Steps[0].Requests; got != 6000 {
			t.Fatalf("step 0 has %d requests, want 6000", got)
		}
		if a.Segments[0].Fit == nil || a.Segments[0].Fit.BootstrapReps == 0 {
			t.Fatalf("no bootstrap ran (fit %+v)", a.Segments[0].Fit)
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, four := analyse(1), analyse(4)
	if !bytes.Equal(one, four) {
		i := 0
		for i < min(len(one), len(four)) && one[i] == four[i] {
			i++
		}
		t.Fatalf("analysis differs at byte %d: 1 CPU %q…, 4 CPUs %q…", i, one[i:min(i+80, len(one))], four[i:min(i+80, len(four))])
	}
}
