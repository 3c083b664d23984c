package main

import (
	"strings"

	"github.com/spf13/cobra"

	"rumbench/internal/cli/runcli"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// newWorkloadSweepCmd is `rumbench sweep NAME`: the sweep of a workload
// with a Sweeper (the insert benchmark's is `rumbench sweep` itself), its
// axes and settings declared by the workload, the variants and the rest
// by the sweep.
func newWorkloadSweepCmd(d *workload.Definition, f *sweepFlags) *cobra.Command {
	short, long, example := d.SweepHelp()
	cmd := &cobra.Command{
		Use:     d.Name,
		Short:   short,
		Long:    long,
		Example: example,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := managedArgs(cmd, &f.Managed, args); err != nil {
				return err
			}
			return argsNone(cmd, args)
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runcli.RunSweep(env(cmd), &f.Sweep, f.out) },
	}
	fl := cmd.Flags()
	addSweepAxes(fl, d, f)
	addSweepFlags(fl, f)
	fl.StringVar(&f.Preset, "preset", d.Presets[0].Name, "size preset of every run: "+strings.Join(d.PresetNames(), ", "))
	fl.DurationVar(&f.Interval, "interval", 0, "measurement interval (default: the preset's)")
	fl.Float64Var(&f.RatePercentile, "rate-percentile", runner.DefaultRatePercentile, "percentile of per-interval rates beside the average")
	fl.StringArrayVar(&f.Vary, "vary", nil, "KEY=V1,V2,...: run each engine that takes engine setting KEY once per value, as variants labelled LABEL-KEY-VALUE; repeatable")
	fl.StringArrayVar(&f.VaryServer, "vary-server", nil, "KEY=V1,V2,...: as --vary, of a managed server's setting KEY; needs --managed")
	fl.StringVar(&f.Database, "database", "rumbench", "database a server engine works in: created when missing, kept after the run (rumbench verify reads it); --engine-opt drop_database=true drops it at the end; each cell uses <database>_<cell> (rumbench_t4_c16), so cells run at once (--cell) never share one")
	fl.StringVar(&f.Cell, "cell", "", "run only this cell: its index (0 to cells-1, in the order the sweep runs them), or \"env\" for $JOB_COMPLETION_INDEX")
	return cmd
}
