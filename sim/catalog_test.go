package sim

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/catalog"
	"github.com/llmcap/llmcap/plan"
)

func TestCatalogEntriesErrors(t *testing.T) {
	if _, _, err := catalogEntries("", "TPU-v9", "llama-3.1-8b"); err == nil || !strings.Contains(err.Error(), "H100-SXM") {
		t.Errorf("unknown GPU error %v should list the catalog", err)
	}
	if _, _, err := catalogEntries("", "H100-SXM", "llama-9"); err == nil || !strings.Contains(err.Error(), "llama-3.1-8b") {
		t.Errorf("unknown model error %v should list the catalog", err)
	}
	path := writeSimCatalog(t, "gpus:\n  - {name: Y, tflops: 1}\n")
	if _, _, err := catalogEntries(path, "H100-SXM", "llama-3.1-8b"); err == nil || !strings.Contains(err.Error(), `unknown field "tflops"`) {
		t.Errorf("unknown field: %v", err)
	}
	path = writeSimCatalog(t, "gpus:\n  - {name: half, bf16_tflops: 1, hbm_gb: 8}\n")
	if _, err := newServer(plan.Simulator{GPU: "half", Catalog: path}); err == nil || !strings.Contains(err.Error(), `GPU "half": field hbm_tbps must be > 0`) {
		t.Errorf("incomplete GPU: %v", err)
	}
}

func writeSimCatalog(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCatalogPriceAccepted: a catalog that prices GPUs (price_usd_per_hour, which the
// what-if sizing reads) runs the simulator, with the priced GPU's specs unchanged.
func TestCatalogPriceAccepted(t *testing.T) {
	path := writeSimCatalog(t, "gpus:\n  - {name: H100-SXM, price_usd_per_hour: 4.25}\n")
	s := testEngine(t, plan.Simulator{GPU: "H100-SXM", Model: "llama-3.1-8b", Catalog: path})
	if s.gpu.PriceUSDPerHour != 4.25 || s.settings["hbm_tbps"] != 3.35 || s.settings["peak_tflops"] != 989.4 {
		t.Errorf("priced H100: price %g, settings hbm_tbps %v peak_tflops %v", s.gpu.PriceUSDPerHour, s.settings["hbm_tbps"], s.settings["peak_tflops"])
	}
}

// TestOverrideGPUValidatedAndSimulated: a plan naming a GPU that only its catalog
// override defines passes plan validation, and the simulator started from that plan
// runs on the new GPU: its peak, bandwidth and KV cache (24 GB × 0.9 − 2.47 GB of
// llama-3.2-1b weights, in 16-token blocks of 32,768 B per token) are the override's,
// and it answers a completion over HTTP.
func TestOverrideGPUValidatedAndSimulated(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog.yaml")
	if err := os.WriteFile(cat, []byte("gpus:\n  - {name: X1, bf16_tflops: 150, hbm_gb: 24, hbm_tbps: 1.2, price_usd_per_hour: 1.25, source: test}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(dir, "plan.yaml")
	yaml := "target:\n  simulator: {gpu: X1, model: llama-3.2-1b, catalog: catalog.yaml, speed_up: 50}\n" +
		"segments:\n  - {name: short, weight: 1, prompt_tokens: {dist: fixed, value: 10}, output_tokens: {dist: fixed, value: 5}}\n" +
		"ladder: {concurrency: [1], duration: 1s}\n"
	if err := os.WriteFile(planPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := plan.Load(planPath, nil)
	if err != nil {
		t.Fatalf("plan with the override's GPU: %v", err)
	}
	if _, err := plan.Load(planPath, map[string]any{"target.simulator.catalog": ""}); err == nil ||
		!strings.Contains(err.Error(), `target.simulator.gpu: "X1" is not allowed: must be a catalog GPU`) {
		t.Errorf("without the override: %v", err)
	}
	s, err := Start(context.Background(), p.Target.Simulator, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	set := s.Settings()
	perGPU, blockBytes := 24e9*0.9-1235814400*2.0, 16*2*16*8*64*2.0
	wantBlocks := int(perGPU / blockBytes)
	if set["gpu"] != "X1" || set["gpu_source"] != "test" || set["peak_tflops"] != 150.0 || set["hbm_tbps"] != 1.2 || set["kv_cache_blocks"] != wantBlocks {
		t.Errorf("settings gpu %v source %v peak %v hbm %v blocks %v (want %d)", set["gpu"], set["gpu_source"], set["peak_tflops"], set["hbm_tbps"], set["kv_cache_blocks"], wantBlocks)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/completions", strings.NewReader(`{"max_tokens":3,"prompt":"a b c"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Usage map[string]int `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.Usage["completion_tokens"] != 3 {
		t.Errorf("completion on X1: status %d, %v, usage %v", resp.StatusCode, err, out.Usage)
	}
}

func TestRooflineShape(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
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
