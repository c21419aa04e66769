package main

import (
	"strings"
	"testing"
)

// TestRunOnlyFlagsOnTheirCommands: --concurrency, --header and the one-off flags are
// flags of run, sweep and plan only: serve-sim, analyze and report neither list them in
// their help nor accept them (an unknown flag: exit 2).
func TestRunOnlyFlagsOnTheirCommands(t *testing.T) {
	runOnly := []string{"--concurrency", "--header", "--goodput", "--request-rate", "--print-plan"}
	for _, cmd := range []string{"run", "sweep", "plan"} {
		r := llmcap(t, nil, cmd, "--help")
		for _, f := range runOnly {
			if r.code != 0 || !strings.Contains(r.stdout, f+" ") {
				t.Errorf("%s --help: exit %d, does not list %s", cmd, r.code, f)
			}
		}
	}
	for _, cmd := range []string{"serve-sim", "analyze", "report"} {
		r := llmcap(t, nil, cmd, "--help")
		for _, f := range runOnly {
			if r.code != 0 || strings.Contains(r.stdout, f+" ") {
				t.Errorf("%s --help: exit %d, lists %s, which does not apply to it", cmd, r.code, f)
			}
		}
	}
	if r := llmcap(t, nil, "serve-sim", "--concurrency", "4"); r.code != 2 || !strings.Contains(r.stderr, "unknown flag: --concurrency") {
		t.Errorf("serve-sim --concurrency: exit %d, stderr %q", r.code, r.stderr)
	}
}
