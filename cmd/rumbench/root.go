package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"rumbench/internal/cli/flagerr"
	"rumbench/internal/cli/runcli"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/flagnum"
	"rumbench/internal/managed"
	"rumbench/internal/runner"
	"rumbench/internal/version"
	"rumbench/internal/workload"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "rumbench",
		Short: "Benchmark database storage engines: the cost of each read, write and byte, and the stalls",
		Long: `rumbench runs the insert benchmark and related workloads against storage
engines (LSM and B-tree, embedded and server) and reports throughput per
interval, latency without coordinated omission, and per-operation costs.

Start with:  rumbench run            (quick insert benchmark on pebble and sqlite)
             rumbench workloads      (what can run: ibench, hotrow, ...)
             rumbench engines        (what can run it on this machine)`,
		Version:       version.Version + " (" + version.Revision() + ")",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Flag and argument errors are the user's input: exit code 2.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &runner.BadInputError{Err: suggestFlag(c, err)}
	})
	// --version has no -v: -v is --verbose wherever it is a flag (engines,
	// sweep), one meaning throughout.
	root.Flags().Bool("version", false, "print rumbench's version and commit")
	root.AddCommand(newRunCmd(), newWorkloadsCmd(), newSweepCmd(), newVerifyCmd(), newEnginesCmd(), newReportCmd(), newCrashtestCmd(), newCrashtestChildCmd(), newCgroupExecCmd(), newMergeCmd(), newHistoryCmd())
	// Runnable with argsNone, so an unknown command is refused with the
	// commands listed on one line (Cobra's own error spans lines); alone,
	// it prints the help as before.
	root.Args = argsNone
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			// Cobra's completion command prints its help, exit 0, for a
			// shell it does not know (tcsh).
			c.Args = argsNone
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
	wrapNumericFlags(root)
	return root
}

// argsNone rejects positional arguments as bad input: for a command with
// subcommands, an unknown one, listing them; else an argument the command
// does not take.
func argsNone(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		return &runner.BadInputError{Err: fmt.Errorf("unknown command %q for `%s`: choose one of %s%s", args[0], cmd.CommandPath(), strings.Join(names, ", "), suggest(cmd, args[0]))}
	}
	return &runner.BadInputError{Err: fmt.Errorf("unexpected argument %q: `%s` takes flags only (see `%s --help`)", args[0], cmd.CommandPath(), cmd.CommandPath())}
}

// suggest is "; did you mean X?" when arg is a near miss of one of cmd's
// subcommands, else "".
func suggest(cmd *cobra.Command, arg string) string {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // Cobra's own default
	}
	if s := cmd.SuggestionsFor(arg); len(s) > 0 {
		return "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return ""
}

// suggestFlag words c's flag error (flagerr.Explain).
func suggestFlag(c *cobra.Command, err error) error {
	return flagerr.Explain(err, c.Flags(), c.CommandPath())
}

// wrapNumericFlags gives every numeric flag of cmd and its subcommands
// readable errors and the 1e6 form (flagnum.Wrap).
func wrapNumericFlags(cmd *cobra.Command) {
	flagnum.Wrap(cmd.Flags())
	flagnum.Wrap(cmd.PersistentFlags())
	for _, c := range cmd.Commands() {
		wrapNumericFlags(c)
	}
}

// runArgs rejects positional arguments, saying how to give --managed its
// engines when one follows a bare --managed.
func runArgs(cmd *cobra.Command, f *runcli.Common, args []string) error {
	if err := managedArgs(cmd, &f.Managed, args); err != nil {
		return err
	}
	if len(args) > 0 && cmd.HasAvailableSubCommands() {
		// `run NAME`: the subcommands are the workloads.
		return &runner.BadInputError{Err: fmt.Errorf("unknown workload %q: choose one of %s (`rumbench run NAME`; see `rumbench workloads`)%s", args[0], strings.Join(workload.Names(), ", "), suggest(cmd, args[0]))}
	}
	return argsNone(cmd, args)
}

// managedArgs refuses a positional argument after a bare --managed, saying
// how to give --managed its engines.
func managedArgs(cmd *cobra.Command, m *managed.Request, args []string) error {
	if len(args) > 0 && cmd.Flags().Changed("managed") && contains(m.Engines, managed.All) {
		return &runner.BadInputError{Err: fmt.Errorf("unexpected argument %q: give --managed its engines with '=' (--managed=%s), or --managed alone for every server engine", args[0], args[0])}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
