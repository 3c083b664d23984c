package main

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/cli/runcli"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

// sweepFlags are the flags of `rumbench sweep` and `sweep NAME`.
type sweepFlags struct {
	runcli.Sweep
	out string
}

// addSweepAxes declares the flags of d's sweep axes and its shared
// settings (workload.Sweeper).
func addSweepAxes(fl *pflag.FlagSet, d *workload.Definition, f *sweepFlags) {
	f.Workload = d.Name
	for _, a := range d.Sweeper.SweepAxes() {
		if a.Parse != nil {
			def := make([]string, len(a.Default))
			for i, v := range a.Default {
				def[i] = strconv.Itoa(v)
			}
			fl.StringSlice(a.Name, def, a.Usage)
		} else {
			fl.IntSlice(a.Name, a.Default, a.Usage)
		}
		f.Axes = append(f.Axes, a.Name)
	}
	f.CellOf = d.Sweeper.SweepFlags(fl)
}

func newSweepCmd() *cobra.Command { return newSweepCmdWith(&sweepFlags{}) }

// newSweepCmdWith returns `rumbench sweep` parsing its flags into f.
func newSweepCmdWith(f *sweepFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Run the insert benchmark over engines × secondary indexes × row sizes × clients and print the published matrices",
		Long: `Run the insert benchmark once per cell of a grid: every engine × --indexes ×
--pad-sizes × --clients, each a full run of --steps (default l.i0x: the load
that maintains the secondary indexes, as in the published insert rate by
number of indexes) into <out>/<cell>/<engine>/, cell names like x3-pad256-c1.
One progress line per run with the sweep's ETA. A rerun with the same flags
skips the finished runs (an unfinished one is moved aside and run again).
At the end, and with ` + "`rumbench report <out>`" + `, it prints per row size and client
count the matrix of ipsAvg-ipsP-size-PSS by index count, the same relative
to 0 indexes, and r/i and wKB/i by index count.

Server engines run against --dsn, or with --managed on private servers:
each variant of a managed engine (--server-opt, --install scoped as in
` + "`rumbench run`" + `) gets a server of its own, started once and used by all its
cells in turn, each cell in a database of its own, and removed at the end.
--vary varies engine settings, --vary-server a managed server's.

Past one machine (docs/scale-out.md): --cell I runs only cell I (numbered
from 0 in the order of the cells, clients then row size then index count
slowest to fastest; --cell env takes I from JOB_COMPLETION_INDEX), so
cells can run as separate processes, at once, into one --out; a finished
cell is not run again (with --managed, each such process starts the
servers of its cell's variants). --kubernetes FILE writes a Kubernetes
Indexed Job whose pod i runs --cell i into a shared volume instead of
running, and
` + "`rumbench sweep collect <out>`" + ` prints the matrices of the cells present and lists
those missing.`,
		Example: `  rumbench sweep --engine pebble,sqlite --indexes 0,1,2,3 --out sweep1
  rumbench sweep --engine rocksdb,innodb --indexes 0,3 --pad-sizes 256,10KB --clients 1,4 --rows 1000000 --out sweep2
  rumbench sweep --engine innodb --managed --vary-server innodb_page_size=8k,16k --indexes 0,3 --out sweep3
  rumbench sweep --engine pebble,rocksdb --indexes 0,1,2,3 --memory-limit 2GB --out /results/s1 \
      --kubernetes sweep-job.yaml --pvc rumbench-results --parallelism 4
  rumbench sweep collect /results/s1`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := managedArgs(cmd, &f.Managed, args); err != nil {
				return err
			}
			if len(args) > 0 {
				// A workload without a sweep of its own: one line.
				if _, err := workload.Lookup(args[0]); err == nil {
					if _, err := workload.SweeperOf(args[0]); err != nil {
						return &runner.BadInputError{Err: err}
					}
				}
			}
			return argsNone(cmd, args)
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runcli.RunSweep(env(cmd), &f.Sweep, f.out) },
	}
	fl := cmd.Flags()
	def, err := workload.Lookup(defaultWorkload)
	if err != nil {
		panic(err) // the default workload is linked in by workload/all
	}
	addSweepAxes(fl, def, f)
	addSweepFlags(fl, f)
	fl.StringVar(&f.Preset, "preset", "quick", "size preset for --rows, --churn-rows, --query-seconds (and --interval); iobound also sizes each engine's cache and memory limit and defaults --indexes to 0,3")
	fl.DurationVar(&f.Interval, "interval", 0, "measurement interval "+ibench.StepIntervalsNote()+ibench.PresetDefault(func(p ibench.Preset) string { return p.RunInterval().String() }))
	fl.Float64Var(&f.RatePercentile, "rate-percentile", runner.DefaultRatePercentile, "percentile of per-interval rates beside the average (95 with --interval 10s: the published ipsP95)")
	fl.StringArrayVar(&f.Vary, "vary", nil, "KEY=V1,V2,...: run each engine that takes engine setting KEY (ENGINE.KEY or LABEL.KEY for one) once per value, as variants labelled LABEL-KEY-VALUE; repeatable, the variants are the cartesian product (docs/usage.md \"Variants\")")
	fl.StringArrayVar(&f.VaryServer, "vary-server", nil, "KEY=V1,V2,...: as --vary, of a managed server's setting KEY (as --server-opt takes it: innodb.innodb_page_size=8k,16k), each value a variant on a server of its own; needs --managed. Labels: --vary's settings first, then --vary-server's")
	fl.StringVar(&f.Database, "database", "rumbench", "database a server engine works in: created when missing, kept after the run (rumbench verify reads it); --engine-opt drop_database=true drops it at the end; each cell uses <database>_<cell> (rumbench_x3_pad256_c1), so cells run at once (--cell, --kubernetes) never share one")
	fl.StringVar(&f.CompareTo, "compare-to", "", "an earlier sweep's directory: also print each matrix relative to it (this sweep / that one, cell by cell)")
	fl.StringVar(&f.Cell, "cell", "", "run only this cell: its index (0 to cells-1, in the order the sweep runs them), or \"env\" for $JOB_COMPLETION_INDEX (a pod of an Indexed Job)")
	addKubeFlags(fl, &f.Kube, "sweep")
	cmd.AddCommand(newSweepCollectCmd())
	for _, name := range workload.Names() {
		if d, _ := workload.Lookup(name); d.Sweeper != nil && name != defaultWorkload {
			cmd.AddCommand(newWorkloadSweepCmd(d, &sweepFlags{}))
		}
	}
	return cmd
}

// addSweepFlags are the flags every sweep (`rumbench sweep`, `sweep NAME`)
// takes alike; each adds those whose help differs.
func addSweepFlags(fl *pflag.FlagSet, f *sweepFlags) {
	fl.StringSliceVar(&f.Engines, "engine", []string{"pebble", "sqlite"}, "engines (comma list); LABEL=ENGINE runs a labelled variant, so one engine can run twice with settings of its own (--engine-opt LABEL.key=value)")
	fl.Int64Var(&f.Seed, "seed", 1, "seed of the data generator")
	fl.StringVar(&f.out, "out", "", "sweep directory (required): a rerun with the same flags resumes it")
	fl.StringVar(&f.History, "history", "", "record the sweep's runs (every cell) in the results history when it ends: a SQLite file, postgres://..., or \"default\" for "+defaultHistoryHelp)
	fl.StringArrayVar(&f.EngineOpts, "engine-opt", nil, "engine setting key=value, repeatable (engine.key=value for one engine)")
	addManagedFlags(fl, &f.Managed, true)
	fl.StringVar(&f.DSN, "dsn", "", "server address for server engines")
	fl.BoolVarP(&f.Verbose, "verbose", "v", false, "also print each run's interval lines")
	addMemFlags(fl, &f.Memory, true)
	addRepeatFlag(fl, &f.Repeat)
	addCooldownFlag(fl, &f.Cooldown)
	fl.IntVar(&f.ChildRep, "child-rep", 0, "internal: the repetition a --child-cell run is")
	_ = fl.MarkHidden("child-rep")
}

// sweepRequest is the sweep the flags ask for (runcli.Sweep.Request).
func sweepRequest(fl *pflag.FlagSet, f *sweepFlags) (*plan.Sweep, error) { return f.Request(fl, f.out) }
