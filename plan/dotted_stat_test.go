package plan

import (
	"errors"
	"testing"
)

// TestDottedPercentileKeyNamed: a percentile key with a dot (p99.9), which the loader
// splits into p99: {9: …}, is one problem at the key as written saying it is no
// statistic and why, from a file and from --set; a mapping under a statistic that is
// not a split key keeps the type error.
func TestDottedPercentileKeyNamed(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		ov   map[string]any
		want string
	}{
		{"sla: {ttft_ms: {p99.9: 5}}\n", nil,
			"sla.ttft_ms.p99.9: p99.9 is not a statistic: use one of p50, p90, p95, p99, mean (keys with dots are split by the loader)"},
		{"sla: {e2e_ms: {p99.99: 5, p95: 900}}\n", nil,
			"sla.e2e_ms.p99.99: p99.99 is not a statistic: use one of p50, p90, p95, p99, mean (keys with dots are split by the loader)"},
		{"", map[string]any{"sla.itl_ms.p99.9": 5},
			"sla.itl_ms.p99.9: p99.9 is not a statistic: use one of p50, p90, p95, p99, mean (keys with dots are split by the loader)"},
		{"sla: {ttft_ms: {p95: {a: 5}}}\n", nil, "sla.ttft_ms.p95: map[a:5] is not allowed: must be a number"},
	} {
		_, err := Load(writePlan(t, okSegments+okLadder+tc.yaml), tc.ov)
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Error() != tc.want {
			t.Errorf("%q %v: got %v\nwant the one problem %s", tc.yaml, tc.ov, err, tc.want)
		}
	}
}
