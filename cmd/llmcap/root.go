package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/sweep"
)

// globals are the root's persistent settings, read through viper so each one can also
// come from the environment (LLMCAP_CONFIG, LLMCAP_OUT, LLMCAP_LOG_LEVEL).
type globals struct {
	v   *viper.Viper
	set []string // --set key=value plan overrides
	// headers are --header 'Name: value' flags (header_flag.go).
	headers []string
	// concurrency is --concurrency: a ladder ("1,4,16") or "auto" (a capacity search).
	concurrency string
	log         *slog.Logger
	// redact masks the loaded plan's secrets in every log record (useSecrets).
	redact *redact.Handler
	// secrets is the loaded plan's redactor (nil before a plan is loaded); main
	// applies it to the error it prints.
	secrets *redact.Redactor
	// command is the name of the subcommand being run (run, sweep, plan…).
	command string
	flags   planFlags // the one-off run flags of run, sweep and plan (run_flags.go)
	// console is stderr, shared by the log and the sweep's progress bar; quiet is
	// --quiet (setupConsole).
	console *sweep.Console
	quiet   bool
	// logJSON: g.log writes JSON records (--log-format json; setupConsole), so main
	// logs the command's error as one.
	logJSON bool
}

func newRootCmd() *cobra.Command {
	root, _ := newRoot()
	return root
}

// newRoot is the root command and its settings (main redacts errors with them).
func newRoot() (*cobra.Command, *globals) {
	g := &globals{v: viper.New()}
	root := &cobra.Command{
		Use:   "llmcap",
		Short: "Capacity planning for LLM inference: how many users within the SLA, what limits, what to buy",
		Long: `llmcap drives an OpenAI-compatible inference server (or its embedded engine simulator)
through a ladder of load levels per traffic segment, then tells you how many concurrent
users fit within the SLA, what limits the deployment (queue/admission, prefill, decode)
and how many GPUs N users need.

Plan settings come from (highest first): --set flags, LLMCAP_* environment variables
(target.simulator.max_num_seqs ← LLMCAP_TARGET_SIMULATOR_MAX_NUM_SEQS; SLA entries too:
sla.ttft_ms.p99 ← LLMCAP_SLA_TTFT_MS_P99), the --config file, defaults. An LLMCAP_*
variable under a plan section that names no plan key (a misspelling) is an error.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.setup(cmd)
		},
	}
	setVersion(root) // --version
	pf := root.PersistentFlags()
	pf.StringP("config", "c", "", "plan file (YAML), e.g. configs/demo.yaml")
	pf.StringP("out", "o", "", "run directory (default runs/<YYYYmmdd-HHMMSS>-<name>)")
	pf.String("log-level", "info", "log level: debug, info, warn or error")
	registerConsoleFlags(pf)
	pf.StringArrayVar(&g.set, "set", nil, "override a plan key, e.g. --set ladder.concurrency=[1,2,4]; list items by index, e.g. --set segments[0].weight=2 (repeatable)")
	_ = g.v.BindPFlags(pf) // cannot fail: the flags exist
	g.v.SetEnvPrefix(plan.EnvPrefix)
	g.v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	g.v.AutomaticEnv()

	root.AddCommand(newPlanCmd(g), newRunCmd(g), newSweepCmd(g), newTuneCmd(g), newAnalyzeCmd(g),
		newReportCmd(g), newServeSimCmd(g), newVersionCmd(), newProfileCmd(), newCompareCmd(g))
	root.AddCommand(newImportCmd(g), newK8sCmd(g), newMergeCmd(g))
	registerPlanFlags(root, g)
	markUsageErrors(root)
	return root, g
}

// setup configures the logger (setupConsole); every record goes through a
// redact.Handler (the plan's secrets are added once it is loaded: useSecrets).
func (g *globals) setup(cmd *cobra.Command) error {
	g.command = cmd.Name()
	return g.setupConsole(cmd)
}

// overrides parses --set key=value pairs; values are YAML ("[1,2]", "30s", "true").
func (g *globals) overrides() (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range g.set {
		k, val, err := plan.ParseSet(kv)
		if err != nil {
			return nil, usageErr(err)
		}
		out[k] = val
	}
	if err := concurrencyOverrides(g.concurrency, out); err != nil {
		return nil, usageErr(err)
	}
	if err := headerOverrides(g.headers, out); err != nil {
		return nil, usageErr(err)
	}
	return out, usageErr(g.flags.overrides(g.concurrency, out))
}

// concurrencyOverrides adds the plan overrides of --concurrency to out: "auto" replaces
// the ladder's levels with a capacity search over concurrency (ladder.search, its
// other fields from the plan or the defaults); a list "1,4,16" replaces them with
// those levels and no search. "" adds nothing.
func concurrencyOverrides(flag string, out map[string]any) error {
	flag = strings.TrimSpace(flag)
	switch flag {
	case "":
		return nil
	case "auto":
		out["ladder.concurrency"], out["ladder.rate"] = []any{}, []any{}
		// Concurrency bounds, not those of a file's search over users or rate.
		out["ladder.search.over"] = plan.SearchConcurrency
		out["ladder.search.start"], out["ladder.search.max"] = plan.DefaultSearchStart, plan.DefaultSearchMaxLoad
		return nil
	}
	var levels []any
	for _, f := range strings.Split(flag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("--concurrency %q: want auto or a list of whole numbers ≥ 1, e.g. 1,4,16", flag)
		}
		levels = append(levels, n)
	}
	out["ladder.concurrency"], out["ladder.rate"] = levels, []any{} // levels replace a file's search (plan.Load)
	return nil
}

// loadPlan loads and validates the plan named by --config, with --set overrides.
func (g *globals) loadPlan() (*plan.Plan, error) {
	path := g.v.GetString("config")
	ov, err := g.overrides()
	if err != nil {
		return nil, err
	}
	p, err := g.loadWithFlags(path, ov)
	if err != nil {
		return nil, err
	}
	g.useSecrets(p)
	if !plan.TargetURLSet(path, ov) && p.Target.IsSimulator() && p.Tune == nil { // a tune launches its own target
		s := p.Target.Simulator
		g.log.Warn(fmt.Sprintf("no target.url in the plan: driving the embedded simulator (%s on %s×%d, max_num_seqs %d); "+
			"set target.url: simulator to choose it, or target.url: http://HOST:PORT/v1 and target.model for a real server",
			s.Model, s.GPU, s.TensorParallel, s.MaxNumSeqs))
	}
	if err := sweep.CheckOpenFiles(p); err != nil {
		if g.command != "serve-sim" { // run and sweep before the run directory is created; plan as they would
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		g.log.Warn("run and sweep will refuse this plan: " + err.Error())
	}
	if g.log.Enabled(context.Background(), slog.LevelDebug) {
		b, _ := json.Marshal(p.Redacted())
		g.log.Debug("plan loaded", "file", path, "plan", string(b))
	}
	return p, nil
}

// useSecrets makes the logger and the printed error mask p's secrets
// (plan.Plan.Redactor).
func (g *globals) useSecrets(p *plan.Plan) {
	g.secrets = p.Redactor()
	if g.redact != nil {
		g.redact.SetRedactor(g.secrets)
	}
}

// redactError is err's message with the loaded plan's secrets (and any URL password or
// bearer token) masked.
func (g *globals) redactError(err error) string { return g.secrets.String(err.Error()) }

// outDir is --out, or runs/<YYYYmmdd-HHMMSS>-<name>.
func (g *globals) outDir(p *plan.Plan) string {
	if d := g.v.GetString("out"); d != "" {
		return d
	}
	return filepath.Join("runs", time.Now().Format("20060102-150405")+"-"+p.Name)
}

// printJSON writes v indented.
func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// fileExists reports whether path names an existing regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
