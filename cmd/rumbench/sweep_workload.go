package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// newWorkloadSweepCmd is `rumbench sweep NAME`: the sweep of a workload
// with a Sweeper (the insert benchmark's is `rumbench sweep` itself), its
// axes and settings declared by the workload, the variants and the rest
// by the sweep.
func newWorkloadSweepCmd(d *workload.Definition, f *sweepFlags) *cobra.Command {
	sw := d.Sweeper
	var axes []string
	for _, a := range sw.SweepAxes() {
		axes = append(axes, "--"+a.Name)
	}
	cmd := &cobra.Command{
		Use:   d.Name,
		Short: fmt.Sprintf("Run %s over variants × %s, one run per cell, and print its matrices", d.Name, strings.Join(axes, " × ")),
		Long: fmt.Sprintf(`Run the %s workload once per cell of a grid: every variant (--engine, --vary)
× %s, each cell a full run into <out>/<cell>/<variant>/. One progress line
per run with the sweep's ETA; a rerun with the same flags skips the finished
runs. At the end, and with `+"`rumbench sweep collect <out>`"+`, it prints the
workload's matrices per variant.`, d.Name, strings.Join(axes, " × ")),
		Example: fmt.Sprintf("  rumbench sweep %s --engine pebble,sqlite --out sweep-%s", d.Name, d.Name),
		Args: func(cmd *cobra.Command, args []string) error {
			if err := managedArgs(cmd, &f.managed, args); err != nil {
				return err
			}
			return argsNone(cmd, args)
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runSweep(cmd, f) },
	}
	fl := cmd.Flags()
	addSweepAxes(fl, d, f)
	fl.StringSliceVar(&f.engines, "engine", []string{"pebble", "sqlite"}, "engines (comma list); LABEL=ENGINE runs a labelled variant, so one engine can run twice with settings of its own (--engine-opt LABEL.key=value)")
	fl.StringVar(&f.preset, "preset", d.Presets[0].Name, "size preset of every run: "+strings.Join(d.PresetNames(), ", "))
	fl.DurationVar(&f.interval, "interval", 0, "measurement interval (default: the preset's)")
	fl.Float64Var(&f.ratePct, "rate-percentile", runner.DefaultRatePercentile, "percentile of per-interval rates beside the average")
	fl.Int64Var(&f.seed, "seed", 1, "seed of the data generator")
	fl.StringVar(&f.out, "out", "", "sweep directory (required): a rerun with the same flags resumes it")
	fl.StringVar(&f.history, "history", "", "record the sweep's runs (every cell) in the results history when it ends: a SQLite file, postgres://..., or \"default\" for "+defaultHistoryHelp)
	fl.StringArrayVar(&f.engineOpts, "engine-opt", nil, "engine setting key=value, repeatable (engine.key=value for one engine)")
	fl.StringArrayVar(&f.vary, "vary", nil, "KEY=V1,V2,...: run each engine that takes engine setting KEY once per value, as variants labelled LABEL-KEY-VALUE; repeatable")
	fl.StringArrayVar(&f.varyServer, "vary-server", nil, "KEY=V1,V2,...: as --vary, of a managed server's setting KEY; needs --managed")
	addManagedFlags(fl, &f.managed, true)
	fl.StringVar(&f.dsn, "dsn", "", "server address for server engines")
	fl.StringVar(&f.database, "database", "rumbench", "database a server engine works in: created when missing, kept after the run (rumbench verify reads it); --engine-opt drop_database=true drops it at the end; each cell uses <database>_<cell> (rumbench_t4_c16), so cells run at once (--cell) never share one")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "also print each run's interval lines")
	addMemFlags(fl, &f.mem, true)
	addRepeatFlag(fl, &f.repeat)
	addCooldownFlag(fl, &f.cooldown)
	fl.StringVar(&f.cell, "cell", "", "run only this cell: its index (0 to cells-1, in the order the sweep runs them), or \"env\" for $JOB_COMPLETION_INDEX")
	fl.IntVar(&f.childRep, "child-rep", 0, "internal: the repetition a --child-cell run is")
	_ = fl.MarkHidden("child-rep")
	return cmd
}
