package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"rumbench/internal/execute"
	"rumbench/internal/runner"
)

// newSweepCollectCmd is `rumbench sweep collect DIR`: the report of the
// cells present and the list of those missing.
func newSweepCollectCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "collect DIR",
		Short: "Print a sweep's matrices from the cells present in DIR and list the missing ones",
		Long: `Read the sweep in DIR (its sweep.json and the cells' bundles, written by
one sweep or by its cells run separately: --cell, or the pods of a
--kubernetes Job), list each cell not finished by its index and name with
the engines it lacks, then print the matrices and write DIR/report.html as
the sweep does at its end (a missing cell's figures are "not run").

Exit status: 0 when every cell is finished, 1 when some are missing (the
report of the others is still printed), 2 when DIR is not a sweep.`,
		Example: `  rumbench sweep collect /results/s1
  rumbench sweep --cell 3 --engine pebble --indexes 0,1,2,3 --out /results/s1   # redo a missing cell`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &runner.BadInputError{Err: fmt.Errorf("sweep collect takes one sweep directory, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return execute.Collect(cmd.OutOrStdout(), args[0]) },
	}
}
