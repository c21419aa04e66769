package rundir

import "testing"

// TestOverMaxTokensRule: beyond 1.5× and 16 tokens more than max_tokens; never without
// a max_tokens.
func TestOverMaxTokensRule(t *testing.T) {
	cases := []struct {
		intended, output int
		want             bool
	}{
		{4, 40, true}, {4, 20, false}, {4, 21, true}, {100, 150, false}, {100, 151, true}, {0, 1000, false}, {10, 10, false},
	}
	for _, tc := range cases {
		if got := OverMaxTokens(tc.intended, tc.output); got != tc.want {
			t.Errorf("OverMaxTokens(%d, %d) = %v, want %v", tc.intended, tc.output, got, tc.want)
		}
	}
}
