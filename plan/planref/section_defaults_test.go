package planref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceStatesSectionDefaults: the keys a plan may leave out with its section
// get, from plan/section_defaults.go, a value other than their zero: a 30s window, a
// 5s warm-up without a ladder section, one 512/128-token segment, the
// TTFT p95 ≤ 500 ms and ITL p95 ≤ 50 ms SLA. docs/config.md states each of them at its
// key (a one-off run's user reading "default 0" for ladder.duration would be misled).
func TestReferenceStatesSectionDefaults(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for key, want := range map[string][]string{
		"ladder.duration": {"30s"},
		"ladder.warmup":   {"5s"},
		"segments":        {"512", "128"},
		"sla.ttft_ms":     {"500 ms", "50 ms"}, // sla.itl_ms's entry refers to this one
	} {
		want = append(want, "left out")
		entry := section(doc, key)
		if entry == "" {
			t.Errorf("docs/config.md has no entry for %s", key)
			continue
		}
		for _, w := range want {
			if !strings.Contains(strings.ToLower(entry), strings.ToLower(w)) {
				t.Errorf("docs/config.md at %s does not state its section default %s:\n%s", key, w, entry)
			}
		}
	}
}

// TestReferenceStatesGraceDefault: grace is 30 s in every plan (plan.DefaultGrace), and
// docs/config.md's entry says so in its default.
func TestReferenceStatesGraceDefault(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	if e := section(string(b), "ladder.grace"); !strings.Contains(e, "default `30s`") {
		t.Errorf("docs/config.md at ladder.grace does not give the default 30s:\n%s", e)
	}
}

// section is the text of doc's entry for key: from its heading to the next heading.
func section(doc, key string) string {
	for _, h := range []string{"### `" + key + "`\n", "## `" + key + "`\n"} {
		if i := strings.Index(doc, h); i >= 0 {
			rest := doc[i+len(h):]
			if j := strings.Index(rest, "\n#"); j >= 0 {
				rest = rest[:j]
			}
			return rest
		}
	}
	return ""
}
