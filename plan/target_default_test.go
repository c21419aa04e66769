package plan

import "testing"

func TestTargetURLSet(t *testing.T) {
	t.Setenv("LLMCAP_TARGET_URL", "")
	bare := writePlan(t, okSegments+okLadder+"target: {simulator: {max_num_seqs: 4}}\n")
	if TargetURLSet(bare, nil) {
		t.Errorf("a plan without target.url reports it set")
	}
	if !TargetURLSet(bare, map[string]any{"target.url": "simulator"}) {
		t.Errorf("--set target.url not seen")
	}
	if !TargetURLSet(writePlan(t, okSegments+okLadder+"target: {url: simulator}\n"), nil) {
		t.Errorf("target.url: simulator in the file not seen")
	}
	t.Setenv("LLMCAP_TARGET_URL", "http://127.0.0.1:9/v1")
	if !TargetURLSet(bare, nil) {
		t.Errorf("LLMCAP_TARGET_URL not seen")
	}
}
