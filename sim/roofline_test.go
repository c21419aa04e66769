package sim

import (
	"testing"
	"time"

	"github.com/llmcap/llmcap/catalog"
)

// decodeBatch is the duration of one decode iteration of b sequences with ctx tokens of
// context each.
func decodeBatch(r *Roofline, b, ctx int) time.Duration {
	work := make([]Work, b)
	for i := range work {
		work[i] = Work{Context: ctx, Tokens: 1}
	}
	return r.Iteration(work)
}

// TestRooflineAWQOnRTX3060 pins how an INT4 AWQ (W4A16) model decodes on a GeForce
// Ampere card, the set-up of seed article 001: the weights read per iteration are the
// INT4 checkpoint's 5.73 GB (19.9 ms at 360 GB/s × 0.8), and the FLOPs run at the
// card's 25.4 TFLOPS FP16 tensor rate with FP32 accumulation (the rate vLLM's AWQ Marlin
// kernels use; no FP8 on Ampere), 2 × 8.03e9 FLOP per sequence = 1.05 ms at 0.6
// efficiency. So decode turns compute-bound at batch 19 and a batch of 64 takes about
// twice as long as one of 32: fewer bytes per weight lower the batch at which decode
// stops being memory-bound. llm-jp-3-1.8b (bf16, the article's other model) stays
// memory- and KV-bound there: within 1.3× from 32 to 64 sequences at the stress arm's
// contexts (16 prompt tokens + 128 generated on average).
func TestRooflineAWQOnRTX3060(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := c.GPU("RTX-3060")
	roof := func(model string) *Roofline {
		m, ok := c.Model(model)
		if !ok {
			t.Fatalf("catalog has no %s", model)
		}
		r, err := NewRoofline(g, m, 1, 0.6, 0.8, 0)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	awq := roof("llama-3.1-8b-awq")
	if awq.PeakFLOPS != 25.4e12 {
		t.Errorf("AWQ peak %g FLOP/s, want the bf16/fp16 tensor peak 25.4e12", awq.PeakFLOPS)
	}
	read := 5.73e9 / (0.36e12 * 0.8)
	if got := awq.DecodeStep(0).Seconds(); got < read || got > read*1.01 {
		t.Errorf("batch-1 decode %.2f ms, want the INT4 weights' read time %.2f ms", got*1e3, read*1e3)
	}
	first := 0 // the first batch whose decode takes longer than reading the weights
	for b := 1; b <= 64 && first == 0; b++ {
		if float64(decodeBatch(awq, b, 0)) > 1.003*float64(awq.DecodeStep(0)) {
			first = b
		}
	}
	if first != 19 {
		t.Errorf("AWQ decode turns compute-bound at batch %d, want 19", first)
	}
	d32, d64 := decodeBatch(awq, 32, 144), decodeBatch(awq, 64, 144)
	t.Logf("llama-3.1-8b-awq on RTX-3060: compute-bound from batch %d; decode %v at 32, %v at 64", first, d32, d64)
	if x := float64(d64) / float64(d32); x < 1.9 || x > 2.05 {
		t.Errorf("AWQ decode 64/32 = %.2f, want ≈ 2 (compute-bound)", x)
	}
	jp := roof("llm-jp-3-1.8b")
	j32, j64 := decodeBatch(jp, 32, 144), decodeBatch(jp, 64, 144)
	t.Logf("llm-jp-3-1.8b on RTX-3060: decode %v at 32, %v at 64", j32, j64)
	if x := float64(j64) / float64(j32); x > 1.3 {
		t.Errorf("llm-jp-3-1.8b decode 64/32 = %.2f, want ≤ 1.3 (memory- and KV-bound)", x)
	}
}
