package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/merge"
)

func newMergeCmd(g *globals) *cobra.Command {
	var o merge.Options
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "merge SHARD_DIR... -o RUN_DIR",
		Short: "Combine the run directories of a sharded sweep (sweep --shard I/N) into one run",
		Long: `merge checks the shards of one sharded sweep and writes one ordinary run directory that
llmcap analyze and llmcap report read like any run. It refuses, naming every problem:
shards of different plans or counts, a missing or repeated shard, a shard with a step
cut mid-way or not run (resume that shard, then merge again), a clock measured no
better than --max-clock-uncertainty, and a step whose shards started more than
--align-tolerance apart. A shard that ran a step off the common timeline (a resumed
shard) is merged with a warning on that step. Records are re-based onto the reference
clock; step summaries are combined; each metrics endpoint keeps one shard's scrapes.
See docs/distributed.md.`,
		Example: "  llmcap merge runs/shard-0 runs/shard-1 runs/shard-2 runs/shard-3 -o runs/merged\n" +
			"  llmcap merge --wait 2h /runs/shard-0 /runs/shard-1 -o /runs/merged   # beside the shards",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("usage: llmcap merge SHARD_DIR... -o RUN_DIR (every shard's run directory)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Dirs, o.Out = args, g.v.GetString("out")
			if o.Out == "" {
				return usageErr(fmt.Errorf("llmcap merge: -o RUN_DIR is required (a new or empty directory)"))
			}
			if wait > 0 {
				ctx, cancel := context.WithTimeout(cmd.Context(), wait)
				defer cancel()
				g.log.Info("waiting for every shard's sweep to end", "shards", len(args), "at_most", wait)
				if err := merge.Wait(ctx, args); err != nil {
					return err
				}
			}
			res, err := merge.Merge(o)
			if err != nil {
				return err
			}
			for _, w := range res.Warnings {
				g.log.Warn(w.Message)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shards: %d steps, %d records (step starts within %v)\nrun directory: %s\nnext: llmcap analyze %s && llmcap report %s\n",
				res.Shards, res.Steps, res.Records, time.Duration(res.AlignNs).Round(time.Millisecond), res.Dir, shellQuote(res.Dir), shellQuote(res.Dir))
			return nil
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 0, "first wait up to this long for every shard's sweep to end (a merge Job started beside the shards)")
	cmd.Flags().DurationVar(&o.AlignTolerance, "align-tolerance", merge.DefaultAlignTolerance, "how far apart the shards' starts of one step may be, beyond their clocks' uncertainty")
	cmd.Flags().DurationVar(&o.MaxClockUncertainty, "max-clock-uncertainty", merge.DefaultMaxClockUncertainty, "the largest clock uncertainty a shard may have")
	return cmd
}
