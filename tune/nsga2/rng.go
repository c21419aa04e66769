package nsga2

import (
	"math/bits"
	"math/rand/v2"
)

// The PCG streams: the optimizer's one random sequence, and apart from it the probe New
// makes for a feasible point, so that the probe leaves the optimizer's draws as Random's.
const (
	streamMain  uint64 = 0x6e736761322d7631 // "nsga2-v1"
	streamProbe uint64 = 0x6e736761322d7072 // "nsga2-pr"
)

// rng is the package's random source: a PCG (math/rand/v2) seeded from the caller's
// seed, read through the two conversions below rather than rand.Rand's methods, so the
// sequence of draws rests only on PCG's definition, not on how a Go release turns
// uint64s into floats and bounded integers.
type rng struct{ src *rand.PCG }

// newRNG returns the PCG of seed on one stream.
func newRNG(seed, stream uint64) *rng { return &rng{src: rand.NewPCG(seed, stream)} }

// float is uniform in [0, 1): the top 53 bits of one draw.
func (r *rng) float() float64 { return float64(r.src.Uint64()>>11) * 0x1p-53 }

// intN is uniform in [0, n) for n ≥ 1 (Lemire's multiply-and-reject, unbiased).
func (r *rng) intN(n int) int {
	bound := uint64(n)
	threshold := -bound % bound
	for {
		hi, lo := bits.Mul64(r.src.Uint64(), bound)
		if lo >= threshold {
			return int(hi)
		}
	}
}
