// Command llmcap measures how many concurrent users an LLM inference deployment can
// serve within its SLA, what limits it, and how much hardware N users need.
//
// It is a thin layer: flags, environment and the YAML plan (viper) become a typed
// plan.Plan, which the stages take in turn: plan → sweep → run directory → analysis →
// report. See docs/ARCHITECTURE.md.
package main

import (
	"fmt"
	"os"
)

// init lets plan estimate trace steps from their trace's span (plan parses no traces).

// main is the only place that exits: errors print as "llmcap: <message>" (under
// --log-format json as an ERROR record with exit_status), the plan's secrets masked; the status is 2 for a usage error, 130 after Ctrl-C, else 1
// (exitCode).
func main() {
	root, g := newRoot()
	err := root.Execute()
	if err == nil {
		return
	}
	msg, code := "llmcap: "+g.redactError(err), exitCode(err)
	if g.logJSON {
		g.log.Error(msg, "exit_status", code) // stderr stays JSON lines
	} else {
		fmt.Fprintln(os.Stderr, msg)
	}
	os.Exit(code)
}

// exitError carries a specific exit status (exitUsage, exitInterrupt).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
