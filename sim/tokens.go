package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unicode"
	"unicode/utf8"

	"github.com/llmcap/llmcap/plan"
)

// The simulator's tokenizer: one whitespace-separated word (unicode.IsSpace, as
// strings.Fields) is one token; a chat template adds no tokens; an empty prompt counts as
// one token (a BOS token).

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// promptHasher counts the tokens of prompt text pieces and, with prefix caching, builds
// the hash chain of full blocks (each block's hash covers its parent's hash and its words).
type promptHasher struct {
	blockSize int
	hashing   bool
	tokens    int
	inBlock   int
	cur       uint64
	parent    uint64
	hashes    []uint64
	textHash  uint64 // FNV-1a of all words, for the output-length seed
}

func newPromptHasher(blockSize int, hashing bool) *promptHasher {
	return &promptHasher{blockSize: blockSize, hashing: hashing, cur: fnvOffset, textHash: fnvOffset}
}

// add feeds one text piece; word boundaries also fall between pieces.
func (h *promptHasher) add(text string) {
	inWord := false
	for i := 0; i < len(text); {
		c, size := rune(text[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsSpace(c) {
			if inWord {
				h.endWord()
				inWord = false
			}
		} else {
			inWord = true
			for j := i; j < i+size; j++ {
				h.cur = (h.cur ^ uint64(text[j])) * fnvPrime
				h.textHash = (h.textHash ^ uint64(text[j])) * fnvPrime
			}
		}
		i += size
	}
	if inWord {
		h.endWord()
	}
}

func (h *promptHasher) endWord() {
	h.tokens++
	h.cur = (h.cur ^ 0xff) * fnvPrime // word separator
	h.textHash = (h.textHash ^ 0xff) * fnvPrime
	h.inBlock++
	if h.inBlock == h.blockSize {
		if h.hashing {
			h.hashes = append(h.hashes, h.cur)
		}
		h.parent = h.cur
		h.cur = (fnvOffset ^ h.parent) * fnvPrime
		h.inBlock = 0
	}
}

// outputSampler draws natural output lengths from a plan.Dist.
type outputSampler struct {
	dist *plan.Dist
	seed uint64
}

func newOutputSampler(d *plan.Dist, seed uint64) (*outputSampler, error) {
	if d == nil {
		return &outputSampler{seed: seed}, nil
	}
	switch d.Kind {
	case plan.DistFixed, plan.DistUniform, plan.DistNormal, plan.DistLognormal:
	default:
		return nil, fmt.Errorf("output_tokens: distribution %q is not supported by the simulator (fixed, uniform, normal, lognormal)", d.Kind)
	}
	return &outputSampler{dist: d, seed: seed}, nil
}

// draw returns an output length in [1, limit], deterministic in (prompt text hash,
// request seed, sampler seed); limit when the distribution is nil.
func (o *outputSampler) draw(textHash, reqSeed uint64, limit int) int {
	if o.dist == nil {
		return limit
	}
	rng := rand.New(rand.NewPCG(textHash^o.seed, reqSeed))
	d := o.dist
	var v float64
	switch d.Kind {
	case plan.DistFixed:
		v = d.Value
	case plan.DistUniform:
		v = d.Min + rng.Float64()*(d.Max-d.Min+1)
	case plan.DistNormal:
		v = d.Mean + d.StdDev*rng.NormFloat64()
	case plan.DistLognormal:
		// Parameters of the underlying normal from the mean and stddev of the values.
		if d.Mean > 0 {
			s2 := math.Log(1 + d.StdDev*d.StdDev/(d.Mean*d.Mean))
			v = math.Exp(math.Log(d.Mean) - s2/2 + math.Sqrt(s2)*rng.NormFloat64())
		}
	}
	if d.Kind != plan.DistUniform && d.Max > 0 {
		v = min(v, d.Max)
	}
	if d.Kind != plan.DistUniform && d.Min > 0 {
		v = max(v, d.Min)
	}
	n := int(math.Floor(v))
	return max(1, min(n, limit))
}
