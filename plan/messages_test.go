package plan

import (
	"strings"
	"testing"
)

// TestLoadMessages: each problem says what fits its field and nothing else — the
// simulator alternative only for target.url, an example mapping for an SLA metric
// given a number, and no derived weights-sum problem when a weight itself is bad.
func TestLoadMessages(t *testing.T) {
	cases := []struct {
		name    string
		sets    []string
		want    []string // the whole problem list, in order
		notWant string
	}{
		{"metrics URL", []string{"target.metrics_urls=[notaurl]"},
			[]string{`target.metrics_urls[0]: "notaurl" is not allowed: must be an http:// or https:// URL with a host (a Prometheus endpoint, e.g. http://127.0.0.1:8000/metrics)`},
			"simulator"},
		{"target URL", []string{"target.url=notaurl", "target.model=m"},
			[]string{`target.url: "notaurl" is not allowed: must be an http:// or https:// URL with a host (or "simulator" for the embedded simulator)`}, ""},
		{"SLA metric as a number", []string{"sla.ttft_ms=500"},
			[]string{"sla.ttft_ms: 500 is not allowed: must be a mapping of statistic to ms, e.g. {p95: 500}"}, ""},
		{"weight a word", []string{"segments[0].weight=heavy"},
			[]string{`segments[0].weight: "heavy" is not allowed: must be a number`}, "must sum"},
		{"weight NaN", []string{"segments[0].weight=.nan"},
			[]string{"segments[0].weight: NaN is not allowed: must be a finite number"}, "must sum"},
		{"weights zero", []string{"segments[0].weight=0"},
			[]string{"segments[*].weight: a sum of 0 is not allowed: weights must sum to a positive number"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, msg := loadSet(t, tc.sets...)
			lines := strings.Split(msg, "\n  ")
			if len(lines) < 1 || !strings.Contains(lines[0], "invalid plan") {
				t.Fatalf("got %q, want an invalid plan", msg)
			}
			got := lines[1:]
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.notWant != "" && strings.Contains(msg, tc.notWant) {
				t.Errorf("problems %q mention %q", msg, tc.notWant)
			}
		})
	}
}

// TestAnyItem: a "[*]" path names each item's field, and only with a numeric index.
func TestAnyItem(t *testing.T) {
	for _, tc := range []struct {
		path, item string
		want       bool
	}{
		{"segments[*].weight", "segments[2].weight", true},
		{"segments[*].weight", "segments[12].weight", true},
		{"segments[*].weight", "segments[2].name", false},
		{"segments[*].weight", "segments[x].weight", false},
		{"segments[*].weight", "ladder.weight", false},
		{"segments[0].weight", "segments[0].weight", false},
	} {
		if got := anyItem(tc.path, tc.item); got != tc.want {
			t.Errorf("anyItem(%q, %q) = %v, want %v", tc.path, tc.item, got, tc.want)
		}
	}
}
