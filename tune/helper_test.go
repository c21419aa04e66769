package tune

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/sim"
)

// envHelper makes the test binary a server instead of a test run: "sim" serves the
// embedded simulator (like `llmcap serve-sim`, a subset of its flags), "crash" exits 3
// at once after a line on stderr, "hang" never answers; "tuner" runs a tune
// (resume_kill_test.go).
const envHelper = "TUNETEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(envHelper) {
	case "":
		os.Exit(m.Run())
	case "sim":
		os.Exit(serveSim(os.Args[1:]))
	case "crash":
		fmt.Fprintln(os.Stderr, "CUDA error: out of memory (simulated crash)")
		os.Exit(3)
	case "hang":
		select {}
	case "tuner":
		os.Exit(runTuner())
	}
}

// serveSim serves the simulator on --addr until SIGTERM.
func serveSim(args []string) int {
	cfg := plan.Default().Target.Simulator
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "")
	fs.IntVar(&cfg.MaxNumSeqs, "max-num-seqs", cfg.MaxNumSeqs, "")
	fs.IntVar(&cfg.MaxNumBatchedTokens, "max-num-batched-tokens", cfg.MaxNumBatchedTokens, "")
	fs.Float64Var(&cfg.GPUMemoryUtilization, "gpu-memory-utilization", cfg.GPUMemoryUtilization, "")
	fs.Float64Var(&cfg.SpeedUp, "speed-up", cfg.SpeedUp, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := sim.Start(ctx, cfg, *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "simulator serving at %s (max_num_seqs %d)\n", srv.URL(), cfg.MaxNumSeqs)
	<-ctx.Done()
	_ = srv.Close()
	return 0
}

// Environment of the "tuner" helper: the plan file and the tune directory.
const (
	envTunerPlan = "TUNETEST_PLAN"
	envTunerDir  = "TUNETEST_DIR"
)

// runTuner is the "tuner" helper: a tune of envTunerPlan into envTunerDir.
func runTuner() int {
	p, err := plan.Load(os.Getenv(envTunerPlan), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	exe, _ := os.Executable()
	if _, err := Run(context.Background(), p, Options{Dir: os.Getenv(envTunerDir), Executable: exe}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
