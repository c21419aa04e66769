package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sim"
)

// simFlags are serve-sim's flags, one per plan.Simulator field; only flags the user
// sets override the plan's (or the default) simulator settings.
type simFlags struct {
	addr         string
	cfg          plan.Simulator
	outputTokens string
}

func (f *simFlags) register(fs *pflag.FlagSet) {
	d := plan.Default().Target.Simulator
	c := &f.cfg
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8000", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&c.GPU, "gpu", d.GPU, "catalog GPU name")
	fs.StringVar(&c.Model, "model", d.Model, "catalog model name")
	fs.StringVar(&c.Catalog, "catalog", "", "YAML catalog overriding the embedded one")
	fs.IntVar(&c.TensorParallel, "tensor-parallel", d.TensorParallel, "tensor-parallel degree (GPUs per replica)")
	fs.IntVar(&c.MaxNumSeqs, "max-num-seqs", d.MaxNumSeqs, "vLLM max_num_seqs: most sequences in the running batch")
	fs.IntVar(&c.MaxNumBatchedTokens, "max-num-batched-tokens", d.MaxNumBatchedTokens, "vLLM max_num_batched_tokens: token budget per iteration (chunked prefill)")
	fs.Float64Var(&c.GPUMemoryUtilization, "gpu-memory-utilization", d.GPUMemoryUtilization, "fraction of HBM the engine may use")
	fs.IntVar(&c.BlockSize, "block-size", d.BlockSize, "KV cache block size in tokens")
	fs.BoolVar(&c.PrefixCaching, "prefix-caching", d.PrefixCaching, "enable prefix caching")
	fs.Float64Var(&c.ComputeEfficiency, "compute-efficiency", d.ComputeEfficiency, "fraction of peak FLOPS achieved")
	fs.Float64Var(&c.BandwidthEfficiency, "bandwidth-efficiency", d.BandwidthEfficiency, "fraction of peak HBM bandwidth achieved")
	fs.Float64Var(&c.OverheadMs, "overhead-ms", d.OverheadMs, "fixed per-iteration overhead in ms")
	fs.StringVar(&f.outputTokens, "output-tokens", "", `natural output lengths without ignore_eos, e.g. "lognormal:mean=200,stddev=80" (default: always max_tokens)`)
	fs.Float64Var(&c.SpeedUp, "speed-up", d.SpeedUp, "divide every simulated duration by this (1 = real time)")
	fs.Float64Var(&c.NondeterministicFraction, "nondeterministic-fraction", d.NondeterministicFraction,
		"share of prompts (0..1) whose temperature-0 output differs at each call (drift probe ground truth)")
}

// apply copies the flags the user set onto s.
func (f *simFlags) apply(fs *pflag.FlagSet, s *plan.Simulator) error {
	c := f.cfg
	set := map[string]func(){
		"gpu": func() { s.GPU = c.GPU }, "model": func() { s.Model = c.Model },
		"catalog": func() { s.Catalog = c.Catalog }, "tensor-parallel": func() { s.TensorParallel = c.TensorParallel },
		"max-num-seqs": func() { s.MaxNumSeqs = c.MaxNumSeqs }, "max-num-batched-tokens": func() { s.MaxNumBatchedTokens = c.MaxNumBatchedTokens },
		"gpu-memory-utilization": func() { s.GPUMemoryUtilization = c.GPUMemoryUtilization },
		"block-size":             func() { s.BlockSize = c.BlockSize }, "prefix-caching": func() { s.PrefixCaching = c.PrefixCaching },
		"compute-efficiency":   func() { s.ComputeEfficiency = c.ComputeEfficiency },
		"bandwidth-efficiency": func() { s.BandwidthEfficiency = c.BandwidthEfficiency },
		"overhead-ms":          func() { s.OverheadMs = c.OverheadMs }, "speed-up": func() { s.SpeedUp = c.SpeedUp },
		"nondeterministic-fraction": func() { s.NondeterministicFraction = c.NondeterministicFraction },
	}
	for name, fn := range set {
		if fs.Changed(name) {
			fn()
		}
	}
	if fs.Changed("output-tokens") {
		d, err := plan.ParseDist(f.outputTokens)
		if err != nil {
			return fmt.Errorf("--output-tokens: %w", err)
		}
		s.OutputTokens = &d
	}
	return nil
}

func newServeSimCmd(g *globals) *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "serve-sim",
		Short: "Serve the embedded engine simulator as an OpenAI-compatible server until Ctrl-C",
		Long: `serve-sim starts the continuous-batching engine simulator on --addr, speaking the OpenAI
streaming API (/v1/chat/completions, /v1/completions, /v1/models) with vLLM-named
Prometheus metrics at /metrics. Settings come from the plan's target.simulator (with -c)
or the defaults; flags override them.`,
		Example: "  llmcap serve-sim --max-num-seqs 32\n  llmcap serve-sim -c configs/demo.yaml --addr 127.0.0.1:0",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := plan.Default().Target.Simulator
			if g.v.GetString("config") != "" {
				p, err := g.loadPlan()
				if err != nil {
					return err
				}
				cfg = p.Target.Simulator
			}
			if err := f.apply(cmd.Flags(), &cfg); err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv, err := sim.Start(ctx, cfg, f.addr)
			if err != nil {
				return fmt.Errorf("serve-sim: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "simulator serving %s on %s×%d (max_num_seqs %d) at %s — Ctrl-C to stop\n",
				cfg.Model, cfg.GPU, cfg.TensorParallel, cfg.MaxNumSeqs, srv.URL())
			<-ctx.Done()
			if err := srv.Close(); err != nil {
				return fmt.Errorf("serve-sim: close: %w", err)
			}
			return nil
		},
	}
	f.register(cmd.Flags())
	return cmd
}
