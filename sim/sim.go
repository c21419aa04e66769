// Package sim is llmcap's embedded engine simulator: a real HTTP server on loopback that
// speaks the OpenAI streaming API, driven by an iteration-level continuous-batching
// scheduler like vLLM's with iteration times from a roofline of a GPU and model catalog.
//
// Layers: Roofline (iteration time), kvCache (paged blocks, prefix caching), Scheduler
// (a pure virtual-time core: Step plans an iteration, Complete applies it), the driver
// (a goroutine that runs the scheduler on the wall clock, divided by SpeedUp) and the
// HTTP handlers (SSE streams written from pre-encoded chunk templates).
//
// API: POST /v1/chat/completions and /v1/completions (stream true or false; with
// stream_options.include_usage a final usage chunk with empty choices precedes [DONE]),
// GET /v1/models (the catalog model name), GET /metrics (Prometheus text, vLLM names),
// GET /health. Tokenizer: one whitespace-separated word is one token, a chat template adds
// none, messages and prompt arrays are concatenated. Output: exactly max_tokens with
// ignore_eos, else a draw from OutputTokens capped by max_tokens, seeded by the prompt
// text and the request's "seed" field (so identical requests get identical lengths).
// Text: at temperature 0 a function of the prompt text and seed (greedy.go), but for
// the prompts NondeterministicFraction selects; otherwise words seeded by the request id.
// A model name other than the served one gets 404 model_not_found; an empty one is
// accepted. Metric durations are wall-clock seconds (simulated time / SpeedUp).
package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmcap/llmcap/catalog"
	"github.com/llmcap/llmcap/plan"
)

// Server is a running simulator.
type Server struct {
	url      string
	cfg      plan.Simulator
	gpu      catalog.GPU
	model    catalog.Model
	roof     *Roofline
	settings map[string]any
	sampler  *outputSampler
	speedUp  float64
	start    time.Time

	mu      sync.Mutex // guards sched, metrics, lateness, lastArrival
	sched   *Scheduler
	metrics *metrics
	late    latenessStats
	nextID  uint64
	// calls numbers the greedy requests of nondeterministic prompts (greedyText).
	calls atomic.Uint64
	// lastArrival is the virtual arrival time of the latest request submitted.
	lastArrival time.Duration

	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	http   *http.Server
	once   sync.Once
}

// URL returns the OpenAI base URL, e.g. "http://127.0.0.1:41234/v1".
func (s *Server) URL() string { return s.url }

// Start starts a simulator configured by cfg on addr ("127.0.0.1:0" for any free port).
// Zero fields of cfg take the defaults of plan.Simulator (GPU H100-SXM, model
// llama-3.1-8b, TP 1, max_num_seqs 256, max_num_batched_tokens 8192, memory utilisation
// 0.9, block size 16, efficiencies 0.6/0.8, overhead 2 ms, speed-up 1). It runs until ctx
// is done or Close is called. Errors: unknown GPU or model, a model that does not fit,
// a bad setting, or a listen failure.
func Start(ctx context.Context, cfg plan.Simulator, addr string) (*Server, error) {
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sim: listen %s: %w", addr, err)
	}
	s.url = "http://" + ln.Addr().String() + "/v1"
	s.settings["url"] = s.url
	ctx, s.cancel = context.WithCancel(ctx)
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 30 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	s.start = time.Now()
	go s.drive(ctx)
	go func() { _ = s.http.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = s.Close()
	}()
	return s, nil
}

// newServer resolves the configuration and builds the engine without starting it.
func newServer(cfg plan.Simulator) (*Server, error) {
	cfg = withDefaults(cfg)
	g, m, err := catalogEntries(cfg.Catalog, cfg.GPU, cfg.Model)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	if cfg.GPUMemoryUtilization <= 0 || cfg.GPUMemoryUtilization > 1 || cfg.SpeedUp <= 0 || cfg.OverheadMs < 0 ||
		cfg.NondeterministicFraction < 0 || cfg.NondeterministicFraction > 1 {
		return nil, fmt.Errorf("sim: need gpu_memory_utilization in (0, 1], speed_up > 0, overhead_ms ≥ 0, nondeterministic_fraction in [0, 1]")
	}
	roof, err := NewRoofline(g, m, cfg.TensorParallel, cfg.ComputeEfficiency, cfg.BandwidthEfficiency,
		time.Duration(cfg.OverheadMs*float64(time.Millisecond)))
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	blocks, err := kvBlocks(g, m, cfg)
	if err != nil {
		return nil, err
	}
	sampler, err := newOutputSampler(cfg.OutputTokens, 0)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	sched, err := NewScheduler(SchedulerConfig{MaxNumSeqs: cfg.MaxNumSeqs, MaxNumBatchedTokens: cfg.MaxNumBatchedTokens,
		NumBlocks: blocks, BlockSize: cfg.BlockSize, PrefixCaching: cfg.PrefixCaching}, roof.Iteration)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s := &Server{cfg: cfg, gpu: g, model: m, roof: roof, sampler: sampler, speedUp: cfg.SpeedUp,
		sched: sched, metrics: newMetrics(m.Name), wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.settings = s.resolvedSettings(blocks)
	return s, nil
}

// withDefaults fills zero fields with plan.Simulator's documented defaults.
func withDefaults(c plan.Simulator) plan.Simulator {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.GPU == "" {
		c.GPU = "H100-SXM"
	}
	if c.Model == "" {
		c.Model = "llama-3.1-8b"
	}
	defInt(&c.TensorParallel, 1)
	defInt(&c.MaxNumSeqs, 256)
	defInt(&c.MaxNumBatchedTokens, 8192)
	defInt(&c.BlockSize, 16)
	def(&c.GPUMemoryUtilization, 0.9)
	def(&c.ComputeEfficiency, 0.6)
	def(&c.BandwidthEfficiency, 0.8)
	def(&c.OverheadMs, 2)
	def(&c.SpeedUp, 1)
	return c
}

// kvBlocks sizes the KV cache: per GPU, HBM × utilisation − weights / TP, divided by the
// per-GPU bytes of a block (block_size × KV bytes per token / TP).
func kvBlocks(g catalog.GPU, m catalog.Model, cfg plan.Simulator) (int, error) {
	tp := float64(cfg.TensorParallel)
	perGPU := g.HBMGB*1e9*cfg.GPUMemoryUtilization - m.WeightBytes()/tp
	blockBytes := float64(cfg.BlockSize) * KVBytesPerToken(m) / tp
	n := int(perGPU / blockBytes)
	if perGPU <= 0 || n < 1 {
		return 0, fmt.Errorf("sim: model %s (%.1f GB of weights) does not fit on %d × %s at gpu_memory_utilization %.2f",
			m.Name, m.WeightBytes()/1e9, cfg.TensorParallel, g.Name, cfg.GPUMemoryUtilization)
	}
	return n, nil
}

// resolvedSettings is the ground truth recorded in run.json.
func (s *Server) resolvedSettings(blocks int) map[string]any {
	c := s.cfg
	return map[string]any{
		"gpu": s.gpu.Name, "gpu_source": s.gpu.Source, "model": s.model.Name, "model_source": s.model.Source,
		"tp": c.TensorParallel, "max_num_seqs": c.MaxNumSeqs, "max_num_batched_tokens": c.MaxNumBatchedTokens,
		"gpu_memory_utilization": c.GPUMemoryUtilization, "block_size": c.BlockSize,
		"kv_cache_blocks": blocks, "kv_cache_tokens": blocks * c.BlockSize,
		"kv_bytes_per_token": KVBytesPerToken(s.model), "weight_bytes": s.model.WeightBytes(),
		"prefix_caching": c.PrefixCaching, "compute_efficiency": c.ComputeEfficiency,
		"bandwidth_efficiency": c.BandwidthEfficiency, "overhead_ms": c.OverheadMs, "speed_up": c.SpeedUp,
		"nondeterministic_fraction": c.NondeterministicFraction,
		"peak_tflops":               s.roof.PeakFLOPS / 1e12, "hbm_tbps": s.gpu.HBMTBps, "max_model_len": s.model.MaxModelLen,
		"decode_ms_per_token_single": ms(s.roof.DecodeStep(1024)),
		"decode_ms_by_batch_ctx1024": s.decodeByBatch(),
		"prefill_ms_1k_tokens":       ms(s.roof.Prefill(1024)),
		"tokenizer":                  "1 whitespace-separated word = 1 token; chat template adds 0",
	}
}

// decodeByBatch is the decode iteration time (ms) for batches of sequences with 1,024
// tokens of context each, keyed by batch size (1, 8, 32, 128 and max_num_seqs).
func (s *Server) decodeByBatch() map[string]float64 {
	out := map[string]float64{}
	for _, b := range []int{1, 8, 32, 128, s.cfg.MaxNumSeqs} {
		work := make([]Work, b)
		for i := range work {
			work[i] = Work{Context: 1024, Tokens: 1}
		}
		out[strconv.Itoa(b)] = ms(s.roof.Iteration(work))
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// Settings returns the resolved ground truth of the engine (GPU, model, TP, limits, KV
// cache blocks and tokens, efficiencies, single-request decode ms/token at a 1k context
// and 1k-token prefill ms, the URL once started). The map is a copy.
func (s *Server) Settings() map[string]any {
	out := make(map[string]any, len(s.settings))
	for k, v := range s.settings {
		out[k] = v
	}
	return out
}

// Close stops the server and its scheduler; in-flight streams are cut. It is idempotent.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		if s.cancel != nil {
			s.cancel()
		}
		if s.http != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			if e := s.http.Shutdown(ctx); e != nil && !errors.Is(e, context.DeadlineExceeded) {
				err = fmt.Errorf("sim: shutdown: %w", e)
			}
			_ = s.http.Close()
		}
	})
	return err
}
