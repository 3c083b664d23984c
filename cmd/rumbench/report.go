package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"rumbench/internal/cli/reportcli"
	"rumbench/internal/runner"
)

func newReportCmd() *cobra.Command {
	f := &reportcli.Options{}
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Compare run bundles: per-step tables, ratios to a base run, throughput summary, HTML charts",
		Long: `Report one or more runs. Each DIR is an engine's bundle (it holds run.json)
or a directory of bundles (the --out of rumbench run, one <engine>/ each).

A repeated run's --out (rep-1, rep-2, ... inside, from --repeat) is one
run per engine over its repetitions: figures are medians with their 95%
confidence interval, ratios are ratios of medians, marked ~ when the
difference is not significant (Mann–Whitney U, α = 0.05). --compare OLD NEW
compares two result dirs engine by engine.

It leads with each step's headline rate and its cost per operation
relative to the base run, then the absolute throughput summary (a row per
run, a column per step), the stalls and, per step, a row per run with the
published columns (units in the headers) and the same relative to the base.
It ends with the verdict that also ends ` + "`rumbench run`" + `: per step, which run
led and by how much ("X ran 2.10× faster than Y"; ~ where repetitions show
no significant difference). Runs are numbered 1..N in
the order given (a --out directory's engines in the order they ran); --base
takes that 1-based number. Figures a run did not measure show as n/a, steps
it did not run as —, never as 0. Runs whose workload sizes differ from the
base are flagged.`,
		Example: `  rumbench report rumbench-results/20260101-120000
  rumbench report results/pebble results/sqlite --base 2
  rumbench report results/* --format csv > steps.csv
  rumbench report results/run1 --html report.html
  rumbench report --compare results/before results/after`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &runner.BadInputError{Err: fmt.Errorf("report needs at least one DIR: a run bundle or a run's --out directory")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return reportcli.Run(cmd.OutOrStdout(), cmd.ErrOrStderr(), *f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Base, "base", "1", "base run for the relative tables: its 1-based number, in the order the runs are listed, or its variant's label (--engine LABEL=ENGINE; an engine's name for a run without one)")
	fl.StringVar(&f.Format, "format", "md", "output format: md (markdown, aligned for terminals), csv (one line per step per run), json")
	fl.StringVar(&f.HTML, "html", "", "also write a self-contained HTML report with charts to this file")
	fl.StringVar(&f.CompareTo, "compare-to", "", "with a sweep directory: also print each matrix relative to this earlier sweep's")
	fl.BoolVar(&f.AllowMixed, "allow-mixed", false, "compare runs whose workload sizes differ (rows, clients, ...); without it report refuses them, since their ratios compare different work (the report's warning says which sizes differ)")
	fl.BoolVar(&f.Compare, "compare", false, "report --compare OLD NEW: compare two result dirs engine by engine (NEW / OLD, medians of their repetitions, ~ where the difference is not significant)")
	return cmd
}
