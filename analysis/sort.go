package analysis

import (
	"math"
	"sort"
)

// radixMin is the length from which the sorts below radix-sort (faster than pdqsort
// from about 500 values, 4× at 100,000, measured on amd64); shorter slices are
// sorted by comparison.
const radixMin = 768

// sortFloats sorts xs ascending in place, into the same order as sort.Float64s (so
// sums over the sorted values, and so every Summary, are bit-identical): a slice of
// radixMin values or more without NaN is sorted by radixSort on the values' bits,
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
	keys, _ = radixSort(keys, nil)
	for i, k := range keys {
		xs[i] = fromOrderedBits(k)
	}
}

// sortInt64s sorts xs ascending in place (as slices.Sort; radixSort from radixMin).
func sortInt64s(xs []int64) {
	if len(xs) < radixMin {
		sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
		return
	}
	keys := make([]uint64, len(xs))
	for i, x := range xs {
		keys[i] = uint64(x) ^ 1<<63
	}
	keys, _ = radixSort(keys, nil)
	for i, k := range keys {
		xs[i] = int64(k ^ 1<<63)
	}
}

// orderStable returns the indexes 0…len(xs)-1 ordered by xs ascending, equal values
// in index order (as sort.SliceStable).
func orderStable(xs []int64) []int32 {
	ix := make([]int32, len(xs))
	for i := range ix {
		ix[i] = int32(i)
	}
	if len(xs) < radixMin {
		sort.SliceStable(ix, func(a, b int) bool { return xs[ix[a]] < xs[ix[b]] })
		return ix
	}
	keys := make([]uint64, len(xs))
	for i, x := range xs {
		keys[i] = uint64(x) ^ 1<<63
	}
	_, ix = radixSort(keys, ix)
	return ix
}

// radixSort sorts keys ascending by a stable LSD radix sort (8 passes of a byte, a
// pass skipped when every key has the same byte there), moving idx (when not nil,
// len(keys) long) with them, and returns the sorted slices (which may be other
// backing arrays than the arguments').
func radixSort(keys []uint64, idx []int32) ([]uint64, []int32) {
	tmp := make([]uint64, len(keys))
	var tmpIdx []int32
	if idx != nil {
		tmpIdx = make([]int32, len(idx))
	}
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
		for i, k := range keys {
			d := (k >> shift) & 0xff
			tmp[count[d]] = k
			if idx != nil {
				tmpIdx[count[d]] = idx[i]
			}
			count[d]++
		}
		keys, tmp = tmp, keys
		idx, tmpIdx = tmpIdx, idx
	}
	return keys, idx
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
