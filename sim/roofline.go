package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/llmcap/llmcap/catalog"
)

// Work is one sequence's share of an iteration: Tokens new tokens computed on top of
// Context tokens already in its KV cache.
type Work struct {
	Context int
	Tokens  int
}

// Roofline is the iteration-time model of one replica (a model on TP GPUs).
//
// For an iteration computing T tokens over sequences with contexts c_i and new tokens n_i:
//
//	FLOPs   = 2 × active_params × T + 4 × layers × heads × head_dim × Σ n_i (c_i + (n_i+1)/2)
//	compute = FLOPs / (peak × compute_efficiency × TP)
//	bytes   = weights read + KV bytes per token × Σ (c_i + n_i)      (per replica)
//	memory  = bytes / TP / (HBM bandwidth × bandwidth_efficiency)
//	comm    = TP > 1: 2 × layers × (all-reduce latency + 2 (TP−1)/TP × T × hidden × 2 B / link)
//	time    = max(compute, memory) + overhead + comm
//
// For an MoE model the weights read are the dense part plus the fraction of experts that
// the T tokens touch, 1 − (1 − k/E)^T.
type Roofline struct {
	// PeakFLOPS is the per-GPU peak used (BF16, or FP8 for 1-byte weights), in FLOP/s.
	PeakFLOPS float64
	// BandwidthBps is the per-GPU HBM bandwidth in bytes/s.
	BandwidthBps float64
	// ComputeEfficiency and BandwidthEfficiency scale the peaks (0..1].
	ComputeEfficiency, BandwidthEfficiency float64
	// Overhead is the fixed per-iteration cost (scheduling, launch, sampling).
	Overhead time.Duration
	// TP is the tensor-parallel degree.
	TP int
	// Model and GPU are the catalog entries.
	Model catalog.Model
	GPU   catalog.GPU

	flopsPerToken   float64 // 2 × active params
	attnFLOPsUnit   float64 // 4 × layers × heads × head_dim
	kvBytesPerToken float64 // per replica (all TP shards)
	denseBytes      float64 // weights read every iteration
	expertBytes     float64 // weights of all routed experts
	expertProb      float64 // k / E
}

// NewRoofline builds the iteration-time model; efficiencies must be in (0, 1] and tp ≥ 1.
func NewRoofline(g catalog.GPU, m catalog.Model, tp int, computeEff, bandwidthEff float64, overhead time.Duration) (*Roofline, error) {
	if tp < 1 || computeEff <= 0 || computeEff > 1 || bandwidthEff <= 0 || bandwidthEff > 1 {
		return nil, fmt.Errorf("roofline: need tp ≥ 1 and efficiencies in (0, 1], got tp=%d compute=%g bandwidth=%g", tp, computeEff, bandwidthEff)
	}
	peak := g.BF16TFLOPS
	if m.DTypeBytes <= 1 && g.FP8TFLOPS > 0 {
		peak = g.FP8TFLOPS
	}
	r := &Roofline{
		PeakFLOPS: peak * 1e12, BandwidthBps: g.HBMTBps * 1e12,
		ComputeEfficiency: computeEff, BandwidthEfficiency: bandwidthEff,
		Overhead: overhead, TP: tp, Model: m, GPU: g,
		flopsPerToken:   2 * m.ActiveParams,
		attnFLOPsUnit:   4 * float64(m.Layers*m.Heads*m.HeadDim),
		kvBytesPerToken: KVBytesPerToken(m),
	}
	w := m.WeightBytes()
	r.denseBytes = w
	if m.Experts > 0 && m.Params > m.ActiveParams {
		k, e := float64(m.ExpertsPerToken), float64(m.Experts)
		// active = dense + (k/E) × experts; total = dense + experts.
		expertParams := (m.Params - m.ActiveParams) / (1 - k/e)
		frac := expertParams / m.Params
		r.expertBytes = w * frac
		r.denseBytes = w - r.expertBytes
		r.expertProb = k / e
	}
	return r, nil
}

// KVBytesPerToken is the KV-cache size of one token for the whole model (all TP shards):
// 2 (K and V) × layers × KV heads × head_dim × dtype bytes.
func KVBytesPerToken(m catalog.Model) float64 {
	return 2 * float64(m.Layers*m.KVHeads*m.HeadDim) * m.DTypeBytes
}

// Iteration returns the simulated duration of one iteration over work.
func (r *Roofline) Iteration(work []Work) time.Duration {
	var tokens, attn, kvTokens float64
	for _, w := range work {
		n, c := float64(w.Tokens), float64(w.Context)
		tokens += n
		attn += n * (c + (n+1)/2)
		kvTokens += c + n
	}
	if tokens == 0 {
		return 0
	}
	tp := float64(r.TP)
	flops := r.flopsPerToken*tokens + r.attnFLOPsUnit*attn
	compute := flops / (r.PeakFLOPS * r.ComputeEfficiency * tp)
	weights := r.denseBytes
	if r.expertBytes > 0 {
		weights += r.expertBytes * (1 - math.Pow(1-r.expertProb, tokens))
	}
	memory := (weights + r.kvBytesPerToken*kvTokens) / tp / (r.BandwidthBps * r.BandwidthEfficiency)
	sec := math.Max(compute, memory) + r.Overhead.Seconds() + r.commSeconds(tokens)
	return time.Duration(sec * 1e9)
}

// commSeconds is the tensor-parallel all-reduce time of one iteration (two per layer).
func (r *Roofline) commSeconds(tokens float64) float64 {
	if r.TP <= 1 {
		return 0
	}
	tp := float64(r.TP)
	link := r.GPU.InterconnectGBps * 1e9
	if link <= 0 {
		link = 32e9
	}
	bytes := tokens * float64(r.Model.Hidden) * 2
	per := r.GPU.AllReduceLatencyUs*1e-6 + 2*(tp-1)/tp*bytes/link
	return 2 * float64(r.Model.Layers) * per
}

// DecodeStep returns the duration of one decode iteration of a single sequence whose
// context holds ctx tokens.
func (r *Roofline) DecodeStep(ctx int) time.Duration {
	return r.Iteration([]Work{{Context: ctx, Tokens: 1}})
}

// Prefill returns the duration of prefilling a prompt of n tokens in one iteration.
func (r *Roofline) Prefill(n int) time.Duration {
	return r.Iteration([]Work{{Context: 0, Tokens: n}})
}
