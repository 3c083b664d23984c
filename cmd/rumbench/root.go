package main

import (
	"github.com/spf13/cobra"

	_ "rumbench/internal/engine/all"
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
		return &runner.BadInputError{Err: err}
	})
	root.AddCommand(newRunCmd(), newWorkloadsCmd(), newSweepCmd(), newVerifyCmd(), newEnginesCmd(), newReportCmd(), newCrashtestCmd(), newCrashtestChildCmd(), newCgroupExecCmd(), newMergeCmd(), newHistoryCmd())
	return root
}

// argsNone rejects positional arguments as bad input.
func argsNone(cmd *cobra.Command, args []string) error {
	if err := cobra.NoArgs(cmd, args); err != nil {
		return &runner.BadInputError{Err: err}
	}
	return nil
}
