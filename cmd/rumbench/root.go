package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	_ "rumbench/internal/engine/all"
	"rumbench/internal/flagnum"
	"rumbench/internal/nearname"
	"rumbench/internal/runner"
	"rumbench/internal/version"
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

// suggestFlag adds to pflag's "unknown flag: --X" the flags of c that X
// is a near miss of ("; did you mean --engine?"), and to an unknown -v
// where -v means what.
func suggestFlag(c *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name, _, _ = strings.Cut(name, "=")
		if s := nearFlags(c, name); len(s) > 0 {
			return fmt.Errorf("%s; did you mean --%s? (see `%s --help`)", msg, strings.Join(s, " or --"), c.CommandPath())
		}
		return fmt.Errorf("%s (see `%s --help`)", msg, c.CommandPath())
	}
	if strings.HasPrefix(msg, "unknown shorthand flag: 'v'") {
		return fmt.Errorf("%s: -v is --verbose, for rumbench engines and rumbench sweep; the version is rumbench --version", msg)
	}
	if strings.HasPrefix(msg, "unknown shorthand flag:") {
		return fmt.Errorf("%s (see `%s --help`)", msg, c.CommandPath())
	}
	return err
}

// nearFlags are the names of c's visible flags that name is a near miss
// of (nearname.Near).
func nearFlags(c *cobra.Command, name string) []string {
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return nearname.Near(name, names)
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
