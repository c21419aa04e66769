package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/sweep"
)

// Log formats (--log-format).
const (
	logFormatText = "text" // consoleHandler: "15:04:05 message key=value …"
	logFormatJSON = "json" // slog.JSONHandler: one JSON object per line
)

// registerConsoleFlags adds the root's console flags: --quiet and --log-format.
func registerConsoleFlags(pf *pflag.FlagSet) {
	pf.BoolP("quiet", "q", false, "print only errors and the final answer and paths (no progress, no info or warning lines)")
	pf.String("log-format", logFormatText, "log line format on stderr: text (one compact line per record) or json (one JSON object per line)")
}

// setupConsole makes g's logger from --log-level, --log-format and --quiet: records go
// through a redact.Handler (the plan's secrets masked) to the console on cmd's stderr,
// which the sweep's progress bar shares (sweep.Console). --quiet keeps errors only and
// makes the summary the answer alone (quietOut).
func (g *globals) setupConsole(cmd *cobra.Command) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(g.v.GetString("log-level"))); err != nil {
		return usageErr(fmt.Errorf("--log-level %q: want debug, info, warn or error", g.v.GetString("log-level")))
	}
	g.quiet = g.v.GetBool("quiet")
	if g.quiet {
		level = slog.LevelError
		cmd.SetOut(&quietOut{cmd.OutOrStdout()})
	}
	g.console = sweep.NewConsole(cmd.ErrOrStderr())
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch f := g.v.GetString("log-format"); f {
	case logFormatText:
		h = newConsoleHandler(g.console, opts)
	case logFormatJSON:
		g.console.SetVerbatim() // a wrapped JSON record would no longer parse
		h = slog.NewJSONHandler(g.console, opts)
		g.logJSON = true
	default:
		return usageErr(fmt.Errorf("--log-format %q: want %s or %s", f, logFormatText, logFormatJSON))
	}
	g.redact = redact.NewHandler(h, g.secrets)
	g.log = slog.New(g.redact)
	slog.SetDefault(g.log)
	return nil
}

// progressWriter is where the sweep draws its live progress: the console, or nothing
// with --quiet.
func (g *globals) progressWriter() io.Writer {
	if g.quiet || g.console == nil {
		return nil
	}
	return g.console
}

// quietOut is stdout under --quiet: printSummary writes only the answer to it.
type quietOut struct{ io.Writer }

// printSummary writes a's console summary to w (analysis.PrintSummary), or under
// --quiet (w a *quietOut) its one-sentence answer alone; lines are wrapped at word
// boundaries at sweep.WrapWidth: a terminal's width, else sweep.ConsoleWidth columns.
func printSummary(w io.Writer, a *analysis.Analysis) error {
	var b strings.Builder
	out := w
	if q, ok := w.(*quietOut); ok {
		fmt.Fprintf(&b, "Answer: %s\n", a.Answer)
		out = q.Writer
	} else if err := analysis.PrintSummary(&b, a); err != nil {
		return err
	}
	_, err := io.WriteString(w, sweep.Wrap(b.String(), sweep.WrapWidth(out)))
	return err
}
