package plan

import (
	"strings"
	"testing"
)

// TestSetTypoSuggestsKey: a --set key that names no plan key gets the nearest known key
// ("did you mean duration?", as a misspelt LLMCAP_* variable does) and says it came
// from --set; a key near none gets no suggestion.
func TestSetTypoSuggestsKey(t *testing.T) {
	_, err := Load(writePlan(t, okSegments+okLadder), map[string]any{"ladder.duraton": "5s"})
	want := `ladder.duraton: unknown key "duraton" is not allowed: did you mean duration? known keys here are arrival,`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(the key comes from --set)") {
		t.Fatalf("err = %v, want %q … (the key comes from --set)", err, want)
	}
	_, err = Load(writePlan(t, okSegments+okLadder), map[string]any{"ladder.zzzzzzzzzz": 1})
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("err = %v, want no suggestion for a key near none", err)
	}
}
