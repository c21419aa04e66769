package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatalogOverrideSchemaErrors: an override that breaks the catalog schema is one
// problem at target.simulator.catalog naming the entry and the field; a missing file
// is reported once (as a missing file); a priced GPU the override adds is accepted.
func TestCatalogOverrideSchemaErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("gpus:\n  - {name: X1, hbm_gb: 8, tflops: 5}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(cat, gpu string) error {
		_, err := Load(writePlan(t, okSegments+okLadder), map[string]any{"target.simulator.catalog": cat, "target.simulator.gpu": gpu})
		return err
	}
	var ve *ValidationError
	err := load(bad, "H100-SXM")
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != "target.simulator.catalog" ||
		!strings.Contains(ve.Problems[0].Allowed, `gpus[0] "X1": line 2: unknown field "tflops"`) {
		t.Errorf("bad override: %v", err)
	}
	err = load(filepath.Join(dir, "missing.yaml"), "H100-SXM")
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0].Allowed, "must name an existing file") {
		t.Errorf("missing override: %v", err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("gpus:\n  - {name: X1, bf16_tflops: 100, hbm_gb: 24, hbm_tbps: 1, price_usd_per_hour: 1.1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := load(good, "X1"); err != nil {
		t.Errorf("priced override GPU: %v", err)
	}
}
