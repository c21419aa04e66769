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

// TestIncompleteCatalogEntriesFailThePlan: what the sweep or the analysis would reject
// later fails the plan now, every problem at once: a simulator GPU the override adds
// without its figures, a negative price on a what-if GPU, an unknown what-if GPU and a
// repeated one (names match case-insensitively, as the analysis matches them).
func TestIncompleteCatalogEntriesFailThePlan(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat.yaml")
	yaml := "gpus:\n  - {name: BARE, price_usd_per_hour: 1}\n  - {name: H200, price_usd_per_hour: -3}\n"
	if err := os.WriteFile(cat, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(writePlan(t, okSegments+okLadder), map[string]any{"target.simulator.catalog": cat,
		"target.simulator.gpu": "BARE", "report.what_if_gpus": []any{"H200", "NOPE", "A100-80GB", "a100-80gb"}})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("plan accepted: %v", err)
	}
	want := map[string]string{
		"target.simulator.gpu":   "field bf16_tflops must be > 0",
		"report.what_if_gpus[0]": "field price_usd_per_hour must be >= 0",
		"report.what_if_gpus[1]": "must be a catalog GPU",
		"report.what_if_gpus[3]": "must not repeat report.what_if_gpus[2]",
	}
	got := map[string]string{}
	for _, p := range ve.Problems {
		got[p.Path] = p.Allowed
	}
	for path, frag := range want {
		if !strings.Contains(got[path], frag) {
			t.Errorf("%s: %q, want it to say %q (all: %v)", path, got[path], frag, err)
		}
	}
	if len(ve.Problems) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(ve.Problems), len(want), err)
	}
}
