package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/importer"
)

// importFormats are the import subcommands: the format, its files' usage and help.
var importFormats = []struct {
	format  importer.Format
	files   string
	short   string
	example string
}{
	{importer.FormatAIPerf, "EXPORT...",
		"Import AIPerf per-request exports (profile_export.jsonl, or their directories), one step each",
		"  llmcap import aiperf artifacts/c1 artifacts/c4 artifacts/c16 -o runs/aiperf-qwen\n" +
			"  llmcap import aiperf artifacts/c8/profile_export.jsonl -o runs/c8 --set sla.ttft_ms.p99=800"},
	{importer.FormatVLLMBench, "RESULT.json...",
		"Import vllm bench serve results (--save-result --save-detailed), one step each",
		"  llmcap import vllm-bench results/*.json -o runs/vllm-bench"},
}

func newImportCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Turn another benchmark tool's per-request results into a run directory (then analyze, report)",
		Long: `import reads another tool's per-request results and writes an ordinary run directory
(run.json, records.jsonl, steps.jsonl) that llmcap analyze and llmcap report read
unchanged. Several files form one ladder, one step per file in order of load
(concurrency, or request rate for open loops); files that mix the two or measure
different models are refused. The SLA is llmcap's default unless --set sla.… gives
one; the ladder and the segment are the files'. -o names a new or empty directory.
See docs/import.md.`,
		// A format that is none of the subcommands reaches here: a usage error naming the
		// formats (markUsageErrors makes it exit 2); no argument prints the help.
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("llmcap import %s: unknown format %q: want one of %s (llmcap import FORMAT FILE... -o RUN_DIR)",
					args[0], args[0], importFormatNames())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	for _, f := range importFormats {
		cmd.AddCommand(newImportFormatCmd(g, f.format, f.files, f.short, f.example))
	}
	return cmd
}

// newImportFormatCmd is `llmcap import FORMAT FILE... -o DIR`.
func newImportFormatCmd(g *globals, f importer.Format, files, short, example string) *cobra.Command {
	return &cobra.Command{
		Use:     string(f) + " " + files + " -o RUN_DIR",
		Short:   short,
		Example: example,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("usage: llmcap import %s %s -o RUN_DIR (at least one file)", f, files)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := g.v.GetString("out")
			if out == "" {
				return usageErr(fmt.Errorf("llmcap import %s: -o RUN_DIR is required (a new or empty directory)", f))
			}
			if c := g.v.GetString("config"); c != "" {
				return usageErr(fmt.Errorf("llmcap import takes no plan file (-c %s): the files give the ladder; set the SLA with --set sla.…", c))
			}
			ov, err := g.overrides()
			if err != nil {
				return err
			}
			build := currentBuild()
			res, err := importer.Import(importer.Options{Format: f, Files: args, OutDir: out, Overrides: ov,
				ToolVersion: build.Version, ToolCommit: build.Commit})
			if errors.Is(err, importer.ErrOverride) {
				return usageErr(err)
			}
			if err != nil {
				return err
			}
			printImport(cmd.OutOrStdout(), res, g.quiet)
			return nil
		},
	}
}

// importFormatNames are the formats import reads, as its usage names them.
func importFormatNames() string {
	names := make([]string, len(importFormats))
	for i, f := range importFormats {
		names[i] = string(f.format)
	}
	return strings.Join(names, ", ")
}

// printImport lists what an import wrote: each step with its file and counts, the
// skipped records (at most 10), and the next commands; with quiet (--quiet) only the
// run directory's path.
func printImport(w io.Writer, res *importer.Result, quiet bool) {
	if quiet {
		fmt.Fprintf(w, "wrote %s\n", res.Dir)
		return
	}
	for i, s := range res.Steps {
		fmt.Fprintf(w, "step %d: %s %g from %s: %d requests (%d failed), %d warm-up",
			i+1, s.Step.Schedule, s.Step.Load(), s.File, s.Measured, s.Errors, s.Warmup)
		if s.RenamedIDs > 0 {
			fmt.Fprintf(w, "; %d repeated request ids renamed (#2, #3…)", s.RenamedIDs)
		}
		fmt.Fprintln(w)
	}
	for i, s := range res.Skipped {
		if i == 10 {
			fmt.Fprintf(w, "… and %d more corrupt records skipped\n", len(res.Skipped)-10)
			break
		}
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	fmt.Fprintf(w, "wrote %s\nnext: llmcap analyze %s && llmcap report %s\n", res.Dir, shellQuote(res.Dir), shellQuote(res.Dir))
}
