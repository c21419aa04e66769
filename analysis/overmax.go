package analysis

import (
	"fmt"
	"math"
	"slices"

	"github.com/llmcap/llmcap/rundir"
	"github.com/llmcap/llmcap/sla"
)

// overMaxTokens counts a step's successful measured requests (phase measure or grace)
// that ignored max_tokens (rundir.OverMaxTokens: the sweep sends each request's
// intended output as max_tokens), of those sent one (intended output > 0), and the
// median output ÷ max_tokens of the former (0 when none).
func overMaxTokens(st *store, idx []int32) (over, of int, ratio float64) {
	var ratios []float64
	for _, i := range idx {
		q := st.req(i)
		if !q.ok || (q.phase != phaseMeasure && q.phase != phaseGrace) || q.intendedOutput <= 0 {
			continue
		}
		of++
		if rundir.OverMaxTokens(int(q.intendedOutput), int(q.output)) {
			over++
			ratios = append(ratios, float64(q.output)/float64(q.intendedOutput))
		}
	}
	if over == 0 {
		return 0, of, 0
	}
	slices.Sort(ratios)
	return over, of, sla.Percentile(ratios, 0.5)
}

// overMaxTokensWarning says that a step's server ignored max_tokens (some successful
// measured request returned more than rundir.OverMaxTokens allows); "" when none did.
func overMaxTokensWarning(seg string, s *StepStats) string {
	if s.OverMaxTokens == 0 {
		return ""
	}
	return fmt.Sprintf("%s: the server ignored max_tokens: %d of %d requests returned ~%s× the requested tokens; "+
		"output length and every per-token figure is the server's, not the plan's",
		stepPlace(seg, s), s.OverMaxTokens, s.OverMaxTokensOf, fmtNum(roundRatio(s.OverMaxTokensRatio)))
}

// roundRatio rounds a ratio for a sentence: to 0.1 below 3, to 1 from there.
func roundRatio(r float64) float64 {
	if r < 3 {
		return math.Round(r*10) / 10
	}
	return math.Round(r)
}
