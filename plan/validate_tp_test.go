package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTensorParallelKVHeads: with a user catalog's model of 24 heads and 8 KV heads,
// tensor_parallel 12 divides the heads but neither divides nor is a multiple of the
// KV heads (rejected), 8 divides both and 24 replicates the KV heads (both accepted);
// GQA replication of stories-260k's 4 KV heads over 8 GPUs is accepted.
func TestTensorParallelKVHeads(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat.yaml")
	// A complete entry (the simulator runs it): only its head counts matter here.
	yaml := "models:\n  - {name: odd-24, params: 8.0e9, active_params: 8.0e9, layers: 32, hidden: 3072, " +
		"heads: 24, kv_heads: 8, head_dim: 128, dtype_bytes: 2}\n"
	if err := os.WriteFile(cat, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(model string, tp int) error {
		_, err := Load(writePlan(t, okSegments+okLadder), map[string]any{
			"target.simulator.catalog": cat, "target.simulator.model": model, "target.simulator.tensor_parallel": tp})
		return err
	}
	err := load("odd-24", 12)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != "target.simulator.tensor_parallel" ||
		!strings.Contains(ve.Problems[0].Allowed, "must divide model odd-24's 8 KV heads or be a multiple of them (valid: 1, 2, 4, 8 or 24)") {
		t.Errorf("tp 12 over 24 heads / 8 KV heads: %v", err)
	}
	for _, c := range []struct {
		model string
		tp    int
	}{{"odd-24", 8}, {"odd-24", 24}, {"stories-260k", 8}, {"llama-3.1-8b", 1}} {
		if err := load(c.model, c.tp); err != nil {
			t.Errorf("%s with tensor_parallel %d: %v", c.model, c.tp, err)
		}
	}
}
