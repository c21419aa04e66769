package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses (main): the Unix conventions.
const (
	exitFailure   = 1   // the command failed (a bad plan, an unreachable target, a disk error…)
	exitUsage     = 2   // the command line is wrong: an unknown flag, a bad flag value, wrong arguments
	exitInterrupt = 130 // stopped by Ctrl-C (128 + SIGINT)
)

// usageErr marks err as a usage error: main exits with exitUsage.
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitUsage, err: err}
}

// markUsageErrors makes every flag-parsing error and every wrong-arguments error of
// root and its subcommands a usage error (exit 2).
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error { return usageErr(args(cmd, a)) }
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// exitCode is the exit status for err returned by the root command: an *exitError's
// code, exitUsage for cobra's unknown subcommand (cobra has no typed error for it: its
// message starts "unknown command"), else exitFailure.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case strings.HasPrefix(err.Error(), "unknown command "):
		return exitUsage
	}
	return exitFailure
}
