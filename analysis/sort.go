package analysis

import (
	"math"
	"sort"
)

// radixMin is the length from which sortFloats radix-sorts; shorter slices are
// sorted by sort.Float64s.
const radixMin = 4096

// sortFloats sorts xs ascending in place, into the same order as sort.Float64s (so
// sums over the sorted values, and so every Summary, are bit-identical): a slice of
// radixMin values or more without NaN is sorted by an LSD radix sort on the values'
// bits (8 passes of a byte, a pass skipped when every value has the same byte there),
// linear in len(xs) where sort.Float64s is n·log n. The one difference: −0 sorts
// before +0, which sort.Float64s leaves in either order (they compare equal).
func sortFloats(xs []float64) {
	if len(xs) < radixMin || hasNaN(xs) {
		sort.Float64s(xs)
		return
	}
	keys := make([]uint64, len(xs))
	for i, x := range xs {
		keys[i] = orderedBits(x)
	}
	tmp := make([]uint64, len(xs))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [256]int
		for _, k := range keys {
			count[(k>>shift)&0xff]++
		}
		if count[(keys[0]>>shift)&0xff] == len(keys) {
			continue // every key has this byte: the pass would not move anything
		}
		pos := 0
		for b := range count {
			pos, count[b] = pos+count[b], pos
		}
		for _, k := range keys {
			d := (k >> shift) & 0xff
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		xs[i] = fromOrderedBits(k)
	}
}

// orderedBits maps x to a uint64 whose unsigned order is x's numeric order (NaN
// excepted): the sign bit flipped for positives, every bit for negatives.
func orderedBits(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// fromOrderedBits inverts orderedBits.
func fromOrderedBits(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

func hasNaN(xs []float64) bool {
	for _, x := range xs {
		if x != x {
			return true
		}
	}
	return false
}
