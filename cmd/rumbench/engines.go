package main

import (
	"github.com/spf13/cobra"

	"rumbench/internal/enginelist"
)

func newEnginesCmd() *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "engines",
		Short: "List the engines, their family, how they run, and whether they are available here",
		Args:  argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			enginelist.Print(cmd.OutOrStdout(), verbose)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also list each engine's settings and defaults")
	return cmd
}
