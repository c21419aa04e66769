package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadErr loads yaml and returns the error text ("" when it loads).
func loadErr(t *testing.T, yaml string) string {
	t.Helper()
	_, err := Load(writePlan(t, yaml), nil)
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestUnknownSimulatorNamesListAllowed(t *testing.T) {
	msg := loadErr(t, "target: {simulator: {gpu: H100, model: llama-9}}"+okSegments+okLadder)
	for _, want := range []string{
		`target.simulator.gpu: "H100" is not allowed: must be a catalog GPU: A100-80GB,`,
		`H100-SXM`,
		`target.simulator.model: "llama-9" is not allowed: must be a catalog model: `,
		`llama-3.1-8b`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	// A catalog override adds names.
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat.yaml")
	if err := os.WriteFile(cat, []byte("gpus:\n  - name: my-gpu\nmodels:\n  - name: my-model\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg := loadErr(t, "target: {simulator: {gpu: my-gpu, model: my-model, catalog: "+cat+"}}"+okSegments+okLadder); strings.Contains(msg, "catalog GPU") || strings.Contains(msg, "catalog model") {
		t.Errorf("override catalog names rejected: %s", msg)
	}
}

func TestCaptureSessionNeedsName(t *testing.T) {
	msg := loadErr(t, "capture: {enabled: true, mode: session}"+okSegments+okLadder)
	if !strings.Contains(msg, "capture.session_name: session mode needs the name") {
		t.Errorf("error = %q", msg)
	}
}

func TestEnvMisspelledAndSLAEntries(t *testing.T) {
	t.Setenv("LLMCAP_TARGET_SIMULATR_GPU", "H200")
	t.Setenv("LLMCAP_SOMETHING_ELSE", "1") // not under a plan section: left alone
	msg := loadErr(t, okSegments+okLadder)
	if !strings.Contains(msg, "LLMCAP_TARGET_SIMULATR_GPU: names no plan key (misspelled?); did you mean LLMCAP_TARGET_SIMULATOR_GPU?") ||
		strings.Contains(msg, "SOMETHING_ELSE") {
		t.Errorf("error = %q", msg)
	}
	os.Unsetenv("LLMCAP_TARGET_SIMULATR_GPU")
	t.Setenv("LLMCAP_SLA_TTFT_MS_P99", "300")
	p, err := Load(writePlan(t, "sla: {ttft_ms: {p95: 500}}"+okSegments+okLadder), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.SLA.TTFTMs["p99"] != 300 || p.SLA.TTFTMs["p95"] != 500 {
		t.Errorf("sla.ttft_ms = %v, want p95 500 (file) and p99 300 (env)", p.SLA.TTFTMs)
	}
	p, err = Load(writePlan(t, okSegments+okLadder), map[string]any{"sla.ttft_ms.p99": 200})
	if err != nil || p.SLA.TTFTMs["p99"] != 200 {
		t.Errorf("override must win over env: %v %v", p, err)
	}
	t.Setenv("LLMCAP_SLA_TTFT_MS_P99", "fast")
	if msg := loadErr(t, okSegments+okLadder); !strings.Contains(msg, `"fast" (from LLMCAP_SLA_TTFT_MS_P99)`) {
		t.Errorf("error = %q", msg)
	}
}

func TestEnvValueErrorsNameTheVariable(t *testing.T) {
	t.Setenv("LLMCAP_LADDER_DURATION", "3")
	msg := loadErr(t, okSegments+okLadder)
	if !strings.Contains(msg, `ladder.duration: 3 has no unit: write e.g. "3s"`) || !strings.Contains(msg, "LLMCAP_LADDER_DURATION") {
		t.Errorf("error = %q", msg)
	}
	t.Setenv("LLMCAP_LADDER_DURATION", "3x")
	if msg := loadErr(t, okSegments+okLadder); !strings.Contains(msg, `invalid duration "3x"`) {
		t.Errorf("error = %q", msg)
	}
}

func TestAPIKeyEnvLookingLikeAKeyIsNotShown(t *testing.T) {
	secret := "sk-abc123/very+secret"
	msg := loadErr(t, "target: {url: http://127.0.0.1:1/v1, model: m, api_key_env: \""+secret+"\"}"+okSegments+okLadder)
	if strings.Contains(msg, secret) || !strings.Contains(msg, "target.api_key_env: must name an environment variable (the value looks like a key itself; it is not shown)") {
		t.Errorf("error = %q", msg)
	}
}

func TestNotAPlanFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, nil); err == nil || err.Error() != dir+": is a directory, not a plan file" {
		t.Errorf("directory: %v", err)
	}
	if _, err := Load("../configs/catalog.yaml", nil); err == nil || !strings.Contains(err.Error(), "this is the simulator catalog, not a plan") {
		t.Errorf("catalog: %v", err)
	}
	if msg := loadErr(t, okSegments+"ladder: {concurrency: [1], duration: 3}"); !strings.Contains(msg, `ladder.duration: 3 has no unit: write e.g. "3s"`) {
		t.Errorf("bare number: %q", msg)
	}
}
