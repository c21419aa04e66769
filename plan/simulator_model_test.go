package plan

import (
	"strings"
	"testing"
)

// TestSimulatorServesOnlyItsModel: the embedded simulator answers only its own model
// name (target.simulator.model) and 404s any other, so a simulator plan whose
// target.model names another model is invalid at target.model; the default
// target.model (the simulator's) and an equal one are fine.
func TestSimulatorServesOnlyItsModel(t *testing.T) {
	_, err := Load(writePlan(t, "target:\n  url: simulator\n  model: llama-3.1-70b\n"+okSegments+okLadder), nil)
	if err == nil || !strings.Contains(err.Error(), "target.model") || !strings.Contains(err.Error(), "target.simulator.model") {
		t.Errorf("simulator with target.model llama-3.1-70b: %v, want a problem at target.model naming target.simulator.model", err)
	}
	for _, yaml := range []string{
		"target:\n  url: simulator\n",
		"target:\n  url: simulator\n  model: llama-3.1-70b\n  simulator: {model: llama-3.1-70b}\n",
		"target:\n  url: http://127.0.0.1:9/v1\n  model: anything\n",
	} {
		if _, err := Load(writePlan(t, yaml+okSegments+okLadder), nil); err != nil {
			t.Errorf("%q: %v", yaml, err)
		}
	}
}
