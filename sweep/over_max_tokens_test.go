package sweep

import (
	"net/http"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
)

// TestServerIgnoringMaxTokensIsFlagged: a server that answers every other request
// with 10× the max_tokens it was sent (40 tokens for 4) gets those requests counted in
// the step summary (over_max_tokens 10 of 20), in the analysis' step statistics
// (ratio 10) and named in an ignored-max-tokens warning on the step; the answers of
// exactly max_tokens are not counted.
func TestServerIgnoringMaxTokensIsFlagged(t *testing.T) {
	f := newFaultServer(t, func(n int, w http.ResponseWriter, maxTokens int) {
		if n%2 == 0 {
			maxTokens *= 10
		}
		streamTokens(w, maxTokens)
	})
	p := rtPlan(f.url()) // 4 output tokens (max_tokens 4), 20 requests at concurrency 4
	dir, recs, sum, _ := runFault(t, p, nil)
	if len(recs) != 20 || sum.OverMaxTokens != 10 {
		t.Fatalf("%d records, over_max_tokens %d: want 20 and 10", len(recs), sum.OverMaxTokens)
	}
	a, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := a.Segments[0].Steps[0]
	if s.OverMaxTokens != 10 || s.OverMaxTokensOf != 20 || s.OverMaxTokensRatio != 10 {
		t.Errorf("analysis: over_max_tokens %d of %d, ratio %v: want 10 of 20, ratio 10", s.OverMaxTokens, s.OverMaxTokensOf, s.OverMaxTokensRatio)
	}
	var found []string
	for _, w := range a.Warnings {
		if w.Kind == analysis.WarnIgnoredMaxTokens {
			found = append(found, w.Message)
			if w.Step != 0 || w.Segment != "short" {
				t.Errorf("warning on segment %q step %d, want short step 0", w.Segment, w.Step)
			}
		}
	}
	want := "segment short, step 1 (concurrency 4): the server ignored max_tokens: 10 of 20 requests returned ~10× the requested tokens"
	if len(found) != 1 || !strings.HasPrefix(found[0], want) || !strings.Contains(found[0], "every per-token figure is the server's") {
		t.Errorf("ignored-max-tokens warnings %q, want one starting %q", found, want)
	}
}
