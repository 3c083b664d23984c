package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/cli/historycli"
	"rumbench/internal/history"
	"rumbench/internal/runner"
)

// addFilterFlags adds the flags that select runs.
func addFilterFlags(fs *pflag.FlagSet, f *historycli.Selection) {
	fs.StringVar(&f.Label, "label", "", "only runs recorded under this label (the LABEL of --engine LABEL=ENGINE or of history add --label, else the engine's name; list shows it)")
	fs.StringVar(&f.Engine, "engine", "", "only runs of this engine")
	fs.StringVar(&f.Step, "step", "", "only this step (e.g. l.i1), and for list the runs that ran it")
	fs.StringVar(&f.Workload, "workload", "", "only runs of this workload")
	fs.StringVar(&f.HostClass, "host-class", "", "only runs on this host class (CPU/cores/memory/device, as list shows it)")
	fs.StringVar(&f.Since, "since", "", "only runs started at or after this: a date (2026-01-31), an RFC 3339 time, or an age (36h, 7d)")
}

const historyFlagHelp = "the history: a SQLite file, or postgres://user@host:port/database for a shared one (default $XDG_DATA_HOME/rumbench/history.db, else ~/.local/share/rumbench/history.db)"

func newHistoryCmd() *cobra.Command {
	f := &historycli.Selection{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Keep every run in a database and compare runs over time: add, list, show, export, check for regressions",
		Long: `The results history keeps runs in a database (a SQLite file by default,
PostgreSQL for a team) so that runs can be compared across builds, versions
and machines. ` + "`rumbench run --history PATH`" + ` records a run when it ends;
` + "`rumbench history add DIR...`" + ` imports bundles already written.

A series is the runs that share workload, sizes, step, label and host class;
each point keeps rumbench's and the engine's build and settings, so that a
change point names what changed around it. ` + "`history check`" + ` exits 1 when the
newest runs of a series hold a regression (docs/history.md).`,
	}
	// Runnable with argsNone, as the root command: an unknown subcommand
	// is refused on one line (exit 2), alone it prints the help.
	cmd.Args = argsNone
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	cmd.PersistentFlags().StringVar(&f.Target, "history", "", historyFlagHelp)
	cmd.AddCommand(newHistoryAddCmd(f), newHistoryListCmd(f), newHistoryShowCmd(f), newHistoryExportCmd(f), newHistoryCheckCmd(f), newHistoryCalibrateCmd(f), newHistoryCompareCmd(f))
	return cmd
}

func newHistoryAddCmd(f *historycli.Selection) *cobra.Command {
	var label string
	cmd := &cobra.Command{
		Use:   "add DIR...",
		Short: "Import run bundles: single runs, --out directories, repeated runs, sweeps, merged shards",
		Long: `Record every bundle found under each DIR (at any depth, as report finds
them): an engine's bundle, a run's --out, a repeated run's rep-N, a sweep's
cells, a merged sharded run. A bundle already recorded is replaced, not
added again: a run is known by its host, start time, engine and workload,
wherever its directory is. A shard's own bundle is skipped: record the
bundle ` + "`rumbench merge`" + ` makes of the shards.`,
		Example: `  rumbench history add rumbench-results/*
  rumbench history add --history postgres://bench@db:5432/history results/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &runner.BadInputError{Err: fmt.Errorf("history add needs at least one DIR: a run bundle or a directory of them")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return historycli.AddTo(cmd.Context(), f.Target, args, label, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&label, "label", "", "record the runs under this label instead of their own (their variant's label, else their engine's name)")
	return cmd
}

func newHistoryListCmd(f *historycli.Selection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List recorded runs, oldest first",
		Args:  argsNone,
		RunE:  func(cmd *cobra.Command, args []string) error { return f.ListRuns(cmd.Context(), cmd.OutOrStdout()) },
	}
	addFilterFlags(cmd.Flags(), f)
	return cmd
}

// addDetectFlags adds the change-point detector's settings.
func addDetectFlags(fs *pflag.FlagSet, d *historycli.Detector) {
	fs.StringVar(&d.MinEffect, "min-effect", "5%", "smallest shift of a figure's mean reported as a change (a percentage, or a fraction: 0.05)")
	fs.Float64Var(&d.Alpha, "alpha", history.DefaultDetect.Alpha, "significance a change must reach (Student's t-test, Bonferroni-corrected for the splits tried)")
	fs.IntVar(&d.MinSegment, "min-runs", history.DefaultDetect.MinSegment, "fewest runs on each side of a change")
}

func newHistoryShowCmd(f *historycli.Selection) *cobra.Command {
	var figures []string
	var det historycli.Detector
	var htmlPath string
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show the series the filters select as tables over time (and --html charts), change points marked",
		Example: `  rumbench history show --label pebble --step l.i1
  rumbench history show --engine rocksdb --figure rate_avg,cpu_us_per_op --since 30d`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.ShowSeries(cmd.Context(), cmd.OutOrStdout(), figures, &det, htmlPath)
		},
	}
	addFilterFlags(cmd.Flags(), f)
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write the series as an HTML page: a chart per figure over the runs, the level between change points drawn, and the runs' builds")
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to show (comma list; default "+strings.Join(history.CheckFigures, ",")+")")
	addDetectFlags(cmd.Flags(), &det)
	return cmd
}

func newHistoryExportCmd(f *historycli.Selection) *cobra.Command {
	var format, out, config string
	var figures []string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export one variant's runs as Apache Otava's CSV input (a row per run, a column per step and figure)",
		Long: `Write the runs the filters select as the CSV Apache Otava (formerly Hunter)
reads: a time column, attribute columns (run, rumbench_version,
rumbench_commit, engine_version, hostname) and one metric column per step
and figure ("l.i1.rate_avg"). Otava reads a CSV as one test, so the runs
must be one variant's: one workload, sizes, label and host class.
--otava-config FILE writes an Otava configuration naming the CSV's columns
and each metric's direction.`,
		Example: `  rumbench history export --format otava --label pebble --out pebble.csv --otava-config otava.yaml`,
		Args:    argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.ExportSeries(cmd.Context(), cmd.OutOrStdout(), format, figures, out, config)
		},
	}
	cmd.Flags().StringVar(&format, "format", "otava", "export format: otava")
	cmd.Flags().StringVar(&out, "out", "", "write the CSV to this file (default standard output)")
	cmd.Flags().StringVar(&config, "otava-config", "", "also write an Otava configuration (YAML) for the CSV to this file")
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to export (comma list; default every figure recorded)")
	addFilterFlags(cmd.Flags(), f)
	return cmd
}

func newHistoryCheckCmd(f *historycli.Selection) *cobra.Command {
	var figures []string
	var det historycli.Detector
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Find change points in every series; exit 1 when a series' newest runs hold a regression",
		Long: `Look for change points in each figure of each series the filters select
(default figures: ` + strings.Join(history.CheckFigures, ", ") + `), by binary
segmentation with Student's t-test (docs/history.md). A change is a regression
when the figure moved the wrong way: down for rates, up for costs and
latencies. The command exits 1 when the last change of a series' figure is
a regression past --min-effect (its newest runs are at the worse level),
printing the series, the change's position, its runs' builds and what
differs between the runs either side; 0 otherwise. Earlier changes are
listed as well.`,
		Example: `  rumbench history check --label pebble
  rumbench history check --history postgres://bench@db/history --min-effect 3% --since 60d`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := f.CheckSeries(cmd.Context(), cmd.OutOrStdout(), figures, &det)
			var reg *historycli.RegressionError
			if errors.As(err, &reg) {
				return &exitError{code: exitFailure, err: err}
			}
			return err
		},
	}
	addFilterFlags(cmd.Flags(), f)
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to check (comma list; default "+strings.Join(history.CheckFigures, ",")+")")
	addDetectFlags(cmd.Flags(), &det)
	return cmd
}

const defaultHistoryHelp = "$XDG_DATA_HOME/rumbench/history.db (else ~/.local/share/rumbench/history.db)"

func newHistoryCalibrateCmd(f *historycli.Selection) *cobra.Command {
	var figures []string
	var det historycli.Detector
	var shuffles int
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the change-point detector's false alarms per 100 runs on A/A series (one build and config, run again and again)",
		Long: `Judge A/A series with the detector: runs of one build and config on this host
(record them with ` + "`rumbench run --repeat N --history ...`" + `), where every change
point flagged is a false alarm. Series whose runs differ in anything recorded
are left out. It reports the false alarms per 100 runs at the chosen
--alpha/--min-runs for several minimum effects (the chosen one marked), in
the order the runs ran (drift included) and over --shuffles random orders
of the same values (noise alone), then per figure: pick the settings that
keep the rate under the false alarms you accept (docs/history.md).`,
		Example: `  rumbench run --engine pebble --steps l.i0,l.x,l.i1 --repeat 30 --history aa.db
  rumbench history calibrate --history aa.db`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.CalibrateSeries(cmd.Context(), cmd.OutOrStdout(), figures, &det, shuffles)
		},
	}
	addFilterFlags(cmd.Flags(), f)
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to judge (comma list; default "+strings.Join(history.CheckFigures, ",")+")")
	cmd.Flags().IntVar(&shuffles, "shuffles", 20, "random orders of each series judged beside the order the runs ran")
	addDetectFlags(cmd.Flags(), &det)
	return cmd
}

func newHistoryCompareCmd(f *historycli.Selection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two recorded runs, or two sets of runs, with the report's relative tables and significance",
		Long: `Compare run BASE with run NEW as ` + "`rumbench report`" + ` does: each is a run's key
as ` + "`history list`" + ` prints it (6 characters or more), or a comma list of keys: a
set of runs of one configuration, reported by their medians with 95%
intervals and the Mann–Whitney test of the difference (at least 4 runs a side
to ever be significant). The runs' bundles are read from the directories
recorded with them: the history keeps each run's figures, not its bundle.`,
		Example: `  rumbench history compare 2eb081dbf76b 87d4f2a0c7ed
  rumbench history compare 4445423a20,87d4f2a0c7,c3aa4216e4,82eecaefbd 8e6cd7d6a8,acf721d32d,...`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &runner.BadInputError{Err: fmt.Errorf("history compare needs two arguments, BASE and NEW: run keys (see history list), or comma lists of them")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return historycli.Compare(cmd.Context(), f.Target, args, cmd.OutOrStdout())
		},
	}
	return cmd
}
