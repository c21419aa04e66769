package report

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"

	"github.com/llmcap/llmcap/analysis"
)

// cdfExactMax is the most TTFT values a CDF line keeps: up to it the line is the exact
// empirical CDF; beyond it the line is drawn from a uniform random sample of this many
// values (ttftSample).
const cdfExactMax = 200_000

// cdfSampleErr is the CDF error bound of a sampled line: by the Dvoretzky–Kiefer–Wolfowitz
// inequality, P(sup_x |F_sample(x) − F(x)| > ε) ≤ 2·exp(−2·m·ε²); with m = cdfExactMax
// and ε = 0.005 that is 2·e⁻¹⁰ < 10⁻⁴ (sampling without replacement from the run's
// values is at least as close). README.md and docs/ARCHITECTURE.md state it.
const cdfSampleErr = 0.005

// ttftSample holds one CDF line's TTFT values (ms): all of them up to cdfExactMax, then
// a reservoir sample (Vitter's algorithm R) of cdfExactMax of them, drawn with a
// generator seeded by the line's segment and step, so a report is reproducible.
type ttftSample struct {
	vals []float64
	// n is the number of values added; positive is whether all of them were > 0.
	n        int
	positive bool
	rng      *rand.Rand
}

// newTTFTSample is an empty sample for the CDF line key.
func newTTFTSample(key cdfKey) *ttftSample {
	h := fnv.New64a()
	h.Write([]byte(key.segment + "\x00" + strconv.Itoa(key.step)))
	return &ttftSample{positive: true, rng: rand.New(rand.NewPCG(h.Sum64(), 0x6c6c6d636170))}
}

// add offers one value: kept while fewer than cdfExactMax were added, else it replaces
// a random kept value with probability cdfExactMax/n.
func (s *ttftSample) add(v float64) {
	s.n++
	s.positive = s.positive && v > 0
	if len(s.vals) < cdfExactMax {
		s.vals = append(s.vals, v)
		return
	}
	if j := s.rng.IntN(s.n); j < cdfExactMax {
		s.vals[j] = v
	}
}

// sampled reports whether the line is drawn from a sample (more than cdfExactMax values).
func (s *ttftSample) sampled() bool { return s.n > cdfExactMax }

// cdfCaption says how a segment's CDF lines that have more than cdfExactMax values were
// drawn (a seeded uniform sample, and its error bound); "" when every line is exact.
func cdfCaption(a *analysis.Analysis, seg analysis.SegmentAnalysis, ttft map[cdfKey]*ttftSample) string {
	for _, s := range cdfSteps(a, seg) {
		if v := ttft[cdfKey{seg.Segment, s.Step}]; v != nil && v.sampled() {
			return fmt.Sprintf("A step with more than %d TTFT values is drawn from a seeded uniform sample of %d of them: "+
				"its curve is within %g of the exact CDF everywhere with probability above 99.99%% (Dvoretzky–Kiefer–Wolfowitz).",
				cdfExactMax, cdfExactMax, cdfSampleErr)
		}
	}
	return ""
}
