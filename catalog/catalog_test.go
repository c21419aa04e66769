package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeCatalog(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "override.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEmbeddedEntries: every embedded entry is valid and names its source; the H100's
// figures are the datasheet's; names come in file order.
func TestEmbeddedEntries(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range c.GPUs {
		if err := g.Validate(); err != nil || g.Source == "" || g.File != EmbeddedFile {
			t.Errorf("GPU %s: %v (source %q, file %q)", g.Name, err, g.Source, g.File)
		}
	}
	for _, m := range c.Models {
		if err := m.Validate(); err != nil || m.Source == "" || m.MaxModelLen == 0 {
			t.Errorf("model %s: %v (source %q, max_model_len %d)", m.Name, err, m.Source, m.MaxModelLen)
		}
	}
	h, ok := c.GPU("H100-SXM")
	if !ok || h.BF16TFLOPS != 989.4 || h.FP8TFLOPS != 1978.9 || h.HBMGB != 80 || h.HBMTBps != 3.35 ||
		h.InterconnectGBps != 900 || h.AllReduceLatencyUs != 8 || h.PriceUSDPerHour != 0 {
		t.Errorf("H100-SXM = %+v (%v)", h, ok)
	}
	oss, _ := c.Model("gpt-oss-120b")
	if oss.WeightBytes() != 65.3e9 || oss.Experts != 128 || oss.ExpertsPerToken != 4 {
		t.Errorf("gpt-oss-120b = %+v, weights %g B", oss, oss.WeightBytes())
	}
	if m, _ := c.Model("llama-3.1-8b"); m.WeightBytes() != 8030261248*2 {
		t.Errorf("llama-3.1-8b weights %g B", m.WeightBytes())
	}
	gpus, models := c.Names()
	if len(gpus) != 9 || gpus[0] != "A100-80GB" || gpus[8] != "cpu-slow" || len(models) != 10 || models[0] != "stories-260k" {
		t.Errorf("names %v %v", gpus, models)
	}
	if _, ok := c.GPU("h100-sxm"); ok {
		t.Error("GPU matched a name of another case")
	}
	if g, ok := c.GPUFold("h100-sxm"); !ok || g.Name != "H100-SXM" {
		t.Errorf("GPUFold(h100-sxm) = %q, %v", g.Name, ok)
	}
	if _, ok := c.GPU("TPU-v9"); ok {
		t.Error("TPU-v9 found")
	}
}

// TestDefaultIsACopy: changing what Default returned does not change the next Default.
func TestDefaultIsACopy(t *testing.T) {
	a, _ := Default()
	a.GPUs[0].BF16TFLOPS = 1
	a.Models = nil
	b, _ := Default()
	if b.GPUs[0].BF16TFLOPS != 312 || len(b.Models) != 10 {
		t.Errorf("Default changed: A100 %g TFLOPS, %d models", b.GPUs[0].BF16TFLOPS, len(b.Models))
	}
}

// TestOverrideMerges: an override entry with an embedded name updates only the fields
// it sets (H100's bf16 becomes 1, its fp8 stays; H200 gains a price and keeps its
// specs); a new name is added after the embedded ones; others are kept.
func TestOverrideMerges(t *testing.T) {
	path := writeCatalog(t, "gpus:\n  - {name: H100-SXM, bf16_tflops: 1, hbm_tbps: 1, source: test}\n"+
		"  - {name: H200, price_usd_per_hour: 3.75}\n"+
		"  - {name: X1, bf16_tflops: 2, hbm_gb: 10, hbm_tbps: 1, price_usd_per_hour: 1.5, source: test}\n"+
		"models:\n  - {name: tiny, params: 100, active_params: 100, layers: 1, hidden: 8, heads: 2, kv_heads: 1, head_dim: 4, dtype_bytes: 2}\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := c.GPU("H100-SXM")
	if h.BF16TFLOPS != 1 || h.HBMTBps != 1 || h.FP8TFLOPS != 1978.9 || h.HBMGB != 80 || h.Source != "test" || h.File != path {
		t.Errorf("H100-SXM = %+v", h)
	}
	h200, _ := c.GPU("H200")
	if h200.PriceUSDPerHour != 3.75 || h200.HBMGB != 141 || h200.HBMTBps != 4.8 || h200.BF16TFLOPS != 989.4 {
		t.Errorf("H200 = %+v", h200)
	}
	x, ok := c.GPU("X1")
	if !ok || x.BF16TFLOPS != 2 || x.PriceUSDPerHour != 1.5 || x.Validate() != nil {
		t.Errorf("X1 = %+v (%v, %v)", x, ok, x.Validate())
	}
	gpus, models := c.Names()
	if len(gpus) != 10 || gpus[9] != "X1" || !slices.Contains(gpus, "B200") || len(models) != 11 || models[10] != "tiny" {
		t.Errorf("names %v %v", gpus, models)
	}
	if d, _ := Default(); d.GPUs[2].BF16TFLOPS != 989.4 {
		t.Errorf("Load changed the embedded catalog: H100 %g", d.GPUs[2].BF16TFLOPS)
	}
}

// TestOverrideErrorsNameFileEntryAndField: each malformed override is rejected with an
// error naming the file, the entry and the field (or section).
func TestOverrideErrorsNameFileEntryAndField(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"gpus:\n  - {name: Y, tflops: 1}\n", `gpus[0] "Y": line 2: unknown field "tflops" (known: name, bf16_tflops,`},
		{"gpus:\n  - {name: A}\n  - {name: B, hbm_gb: lots}\n", `gpus[1] "B": field hbm_gb: line 3: cannot unmarshal !!str ` + "`lots`" + ` into float64`},
		{"models:\n  - {heads: 8}\n", `models[0] (line 2): field name is missing`},
		{"gpus:\n  - just-a-name\n", `gpus[0] (line 2): must be a mapping of fields`},
		{"gpu:\n  - {name: A}\n", `line 1: unknown section "gpu" (known: gpus, models)`},
		{"gpus: {name: A}\n", `line 1: gpus must be a list of entries`},
		{"gpus: [\n", `yaml: line 1`},
	} {
		path := writeCatalog(t, c.yaml)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), "catalog "+path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %s and %q", c.yaml, err, path, c.want)
		}
	}
	_, err := Load(filepath.Join(t.TempDir(), "missing.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist wrapped", err)
	}
}

// TestMergeLeavesTheCatalogOnError: a document that fails half-way changes nothing.
func TestMergeLeavesTheCatalogOnError(t *testing.T) {
	c, _ := Default()
	if err := c.Merge([]byte("gpus:\n  - {name: H200, price_usd_per_hour: 9}\n  - {name: Z, hbm: 1}\n"), "x.yaml"); err == nil {
		t.Fatal("want an error")
	}
	if h, _ := c.GPU("H200"); h.PriceUSDPerHour != 0 {
		t.Errorf("H200 price %g after a failed merge", h.PriceUSDPerHour)
	}
	if err := c.Merge(nil, "empty.yaml"); err != nil || len(c.GPUs) != 9 {
		t.Errorf("empty document: %v, %d GPUs", err, len(c.GPUs))
	}
}

// TestValidateNamesTheField: a sketched entry loads, and Validate names the file,
// entry and first missing or bad field.
func TestValidateNamesTheField(t *testing.T) {
	path := writeCatalog(t, "gpus:\n  - {name: sketch, bf16_tflops: 10, hbm_gb: 8}\n  - {name: priced, bf16_tflops: 1, hbm_gb: 1, hbm_tbps: 1, price_usd_per_hour: -2}\n"+
		"models:\n  - {name: moe, params: 10, active_params: 5, layers: 1, hidden: 8, heads: 2, kv_heads: 1, head_dim: 4, dtype_bytes: 2, experts: 8, experts_per_token: 9}\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := c.GPU("sketch")
	p, _ := c.GPU("priced")
	m, _ := c.Model("moe")
	for _, v := range []struct {
		err  error
		want string
	}{
		{s.Validate(), `catalog ` + path + `: GPU "sketch": field hbm_tbps must be > 0 (got 0)`},
		{p.Validate(), `catalog ` + path + `: GPU "priced": field price_usd_per_hour must be >= 0 (got -2)`},
		{m.Validate(), `catalog ` + path + `: model "moe": field experts_per_token must be in [1, experts=8] (got 9)`},
	} {
		if v.err == nil || v.err.Error() != v.want {
			t.Errorf("error %v, want %q", v.err, v.want)
		}
	}
}
