package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"rumbench/internal/runner"
	"rumbench/internal/sweep"
)

// printSweepReport prints the matrices (and the comparison with an earlier
// sweep) and writes report.html; failing to draw them does not fail the
// sweep, whose results are saved.
func printSweepReport(stdout io.Writer, out string, spec *sweep.Spec, compareTo string) {
	if perr := sweep.Markdown(stdout, out, spec); perr != nil {
		fmt.Fprintf(stdout, "rumbench: could not print the matrices: %v\n", perr)
	}
	if compareTo != "" {
		if perr := sweep.CompareMarkdown(stdout, out, spec, compareTo); perr != nil {
			fmt.Fprintf(stdout, "rumbench: could not print the comparison: %v\n", perr)
		}
	}
	html := filepath.Join(out, "report.html")
	if n, herr := sweep.WriteHTMLFile(html, out, spec); herr == nil {
		fmt.Fprintf(stdout, "\nHTML report with %d charts: %s\n", n, html)
	} else {
		fmt.Fprintf(stdout, "rumbench: could not write the HTML report: %v\n", herr)
	}
}

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
		RunE: func(cmd *cobra.Command, args []string) error { return collectSweep(cmd.OutOrStdout(), args[0]) },
	}
}

func collectSweep(stdout io.Writer, dir string) error {
	if !sweep.IsSweep(dir) {
		return &runner.BadInputError{Err: fmt.Errorf("%s is not a sweep directory (it holds no %s): give the --out of a sweep", dir, sweep.SpecFile)}
	}
	spec, err := sweep.Load(dir)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	status := sweep.Status(spec, dir)
	var missing []string
	for _, st := range status {
		if len(st.Missing) > 0 {
			missing = append(missing, fmt.Sprintf("%d %s", st.Index, st.Cell.Name()))
		}
	}
	fmt.Fprintf(stdout, "rumbench sweep collect: %d of %d cells finished in %s\n", len(status)-len(missing), len(status), dir)
	for _, st := range status {
		if len(st.Missing) > 0 {
			fmt.Fprintf(stdout, "missing: cell %d %s (%s)\n", st.Index, st.Cell.Name(), strings.Join(st.Missing, ", "))
		}
	}
	printSweepReport(stdout, dir, spec, "")
	if len(missing) > 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d cells missing: %s (rerun one with --cell INDEX and the sweep's flags)", len(missing), len(status), strings.Join(missing, ", "))}
	}
	return nil
}
