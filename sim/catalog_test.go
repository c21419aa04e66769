package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

func TestCatalogEntries(t *testing.T) {
	c, err := LoadCatalog("")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"A100-80GB", "H100-SXM", "H200", "L40S", "B200", "MI300X"} {
		g, err := c.GPU(name)
		if err != nil || g.Source == "" {
			t.Errorf("GPU %s: %v (source %q)", name, err, g.Source)
		}
	}
	for _, name := range []string{"llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b", "gpt-oss-120b", "granite-350m", "stories-260k"} {
		m, err := c.Model(name)
		if err != nil || m.Source == "" || m.MaxModelLen == 0 {
			t.Errorf("model %s: %v (source %q, max_model_len %d)", name, err, m.Source, m.MaxModelLen)
		}
	}
	if _, err := c.GPU("TPU-v9"); err == nil || !strings.Contains(err.Error(), "H100-SXM") {
		t.Errorf("unknown GPU error %v should list the catalog", err)
	}
}

func TestCatalogOverride(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	data := "gpus:\n  - {name: H100-SXM, bf16_tflops: 1, hbm_gb: 80, hbm_tbps: 1, source: test}\n" +
		"  - {name: X1, bf16_tflops: 2, hbm_gb: 10, hbm_tbps: 1, source: test}\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCatalog(path)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := c.GPU("H100-SXM")
	x, errX := c.GPU("X1")
	b, errB := c.GPU("B200")
	if h.BF16TFLOPS != 1 || errX != nil || x.BF16TFLOPS != 2 || errB != nil || b.BF16TFLOPS == 0 {
		t.Errorf("override: H100 %v, X1 %v (%v), B200 kept %v (%v)", h.BF16TFLOPS, x.BF16TFLOPS, errX, b.BF16TFLOPS, errB)
	}
	if err := os.WriteFile(path, []byte("gpus:\n  - {name: Y, tflops: 1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCatalog(path); err == nil {
		t.Error("unknown field: want an error")
	}
}

func TestRooflineShape(t *testing.T) {
	c, _ := LoadCatalog("")
	h100, _ := c.GPU("H100-SXM")
	roof := func(model string, tp int) *Roofline {
		m, _ := c.Model(model)
		r, err := NewRoofline(h100, m, tp, 0.6, 0.8, 0)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Dense decode is memory-bound: ≈ weight bytes / effective bandwidth.
	r8 := roof("llama-3.1-8b", 1)
	want := 8.03e9 * 2 / (3.35e12 * 0.8)
	if got := r8.DecodeStep(0).Seconds(); got < want || got > want*1.02 {
		t.Errorf("8B decode %.2f ms, want ≈ %.2f ms", got*1e3, want*1e3)
	}
	// An MoE decode reads only the touched experts: gpt-oss-120b decodes faster than 8B.
	if oss := roof("gpt-oss-120b", 1).DecodeStep(0); oss >= r8.DecodeStep(0) {
		t.Errorf("gpt-oss-120b decode %v should beat dense 8B %v (5.1B active, MXFP4)", oss, r8.DecodeStep(0))
	}
	// FP8 weights use the FP8 peak and half the bytes.
	if f8 := roof("llama-3.1-8b-fp8", 1); f8.PeakFLOPS != 1978.9e12 || f8.DecodeStep(0) >= r8.DecodeStep(0) {
		t.Errorf("fp8: peak %g, decode %v", f8.PeakFLOPS, f8.DecodeStep(0))
	}
	// Prefill is compute-bound and grows with tokens; TP adds communication.
	if p1, p2 := r8.Prefill(1024), r8.Prefill(2048); p2 < 2*p1*95/100 {
		t.Errorf("prefill 1k %v, 2k %v: want ≈ linear", p1, p2)
	}
	r70 := roof("llama-3.1-70b", 8)
	if r70.commSeconds(1) <= 0 || r70.DecodeStep(0) < 2*time.Millisecond {
		t.Errorf("70B TP8: comm %g s, decode %v", r70.commSeconds(1), r70.DecodeStep(0))
	}
	if _, err := NewRoofline(h100, r8.Model, 0, 0.6, 0.8, 0); err == nil {
		t.Error("tp 0: want an error")
	}
}

func TestKVSizing(t *testing.T) {
	s := testEngine(t, plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b"})
	// (80 GB × 0.9 − 16.06 GB) / (16 tokens × 131,072 B).
	perGPU, block := 80e9*0.9-8030261248*2.0, 16*131072.0
	want := int(perGPU / block)
	if got := s.settings["kv_cache_blocks"].(int); got != want {
		t.Errorf("kv blocks %d, want %d", got, want)
	}
	if _, err := newServer(plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-70b"}); err == nil {
		t.Error("70B BF16 on one H100: want 'does not fit'")
	}
	if _, err := newServer(plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-70b", TensorParallel: 4}); err != nil {
		t.Errorf("70B TP4 on H100: %v", err)
	}
	if _, err := newServer(plan.Simulator{OutputTokens: &plan.Dist{Kind: plan.DistEmpirical}}); err == nil {
		t.Error("empirical output distribution: want an error")
	}
}
