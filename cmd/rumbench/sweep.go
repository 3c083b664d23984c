package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/launch"
	"rumbench/internal/plan"
	"rumbench/internal/report"
	"rumbench/internal/runner"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

type sweepFlags struct {
	engines       []string
	indexes       []int
	padSizes      []string
	padRandomPct  int
	clients       []int
	steps         []string
	preset        string
	rows          int64
	churnRows     int64
	querySeconds  float64
	rowsPerCommit int
	interval      time.Duration
	ratePct       float64
	seed          int64
	out           string
	engineOpts    []string
	dsn           string
	database      string
	verbose       bool
	mem           memFlags
	compareTo     string
	repeat        int
	cooldown      time.Duration
	childRep      int
	cell          string
	kube          kubeFlags
	history       string
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

Past one machine (docs/scale-out.md): --cell I runs only cell I (numbered
from 0 in the order of the cells, clients then row size then index count
slowest to fastest; --cell env takes I from JOB_COMPLETION_INDEX), so
cells can run as separate processes, at once, into one --out; a finished
cell is not run again. --kubernetes FILE writes a Kubernetes Indexed Job
whose pod i runs --cell i into a shared volume instead of running, and
` + "`rumbench sweep collect <out>`" + ` prints the matrices of the cells present and lists
those missing.`,
		Example: `  rumbench sweep --engine pebble,sqlite --indexes 0,1,2,3 --out sweep1
  rumbench sweep --engine rocksdb,innodb --indexes 0,3 --pad-sizes 256,10KB --clients 1,4 --rows 1000000 --out sweep2
  rumbench sweep --engine pebble,rocksdb --indexes 0,1,2,3 --memory-limit 2GB --out /results/s1 \
      --kubernetes sweep-job.yaml --pvc rumbench-results --parallelism 4
  rumbench sweep collect /results/s1`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSweep(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.engines, "engine", []string{"pebble", "sqlite"}, "engines (comma list)")
	fl.IntSliceVar(&f.indexes, "indexes", nil, "numbers of secondary indexes (comma list of 0..3) "+sweepDefault(func(p ibench.Preset) string { return joinInts(sweepIndexes(p)) }))
	fl.StringSliceVar(&f.padSizes, "pad-sizes", []string{"20"}, "sizes of the data column, bytes (comma list; 256, 10KB, 1MB)")
	fl.IntVar(&f.padRandomPct, "pad-random-pct", 50, "percent of the data column that is random characters (the rest compresses)")
	fl.IntSliceVar(&f.clients, "clients", []int{1}, "client counts (comma list), each client with its own table")
	fl.StringSliceVar(&f.steps, "steps", []string{ibench.StepLoadIndexed}, "insert benchmark steps of every run (see rumbench run --help); the matrices show the first load step")
	fl.StringVar(&f.preset, "preset", "quick", "size preset for --rows, --churn-rows, --query-seconds (and --interval); iobound also sizes each engine's cache and memory limit and defaults --indexes to 0,3")
	fl.Int64Var(&f.rows, "rows", 0, "rows per client loaded "+sweepDefault(func(p ibench.Preset) string { return fmt.Sprint(p.Rows) }))
	fl.Int64Var(&f.churnRows, "churn-rows", 0, "rows per client for l.i1+l.i2 "+sweepDefault(func(p ibench.Preset) string { return fmt.Sprint(p.ChurnRows) }))
	fl.Float64Var(&f.querySeconds, "query-seconds", 0, "length of each query step, seconds "+sweepDefault(func(p ibench.Preset) string { return fmt.Sprint(p.QuerySeconds) }))
	fl.IntVar(&f.rowsPerCommit, "rows-per-commit", 0, "rows per transaction (default: each step's own)")
	fl.DurationVar(&f.interval, "interval", 0, "measurement interval "+sweepDefault(func(p ibench.Preset) string { return p.RunInterval().String() }))
	fl.Float64Var(&f.ratePct, "rate-percentile", runner.DefaultRatePercentile, "percentile of per-interval rates beside the average (95 with --interval 10s: the published ipsP95)")
	fl.Int64Var(&f.seed, "seed", 1, "seed of the data generator")
	fl.StringVar(&f.out, "out", "", "sweep directory (required): a rerun with the same flags resumes it")
	fl.StringVar(&f.history, "history", "", "record the sweep's runs (every cell) in the results history when it ends: a SQLite file, postgres://..., or \"default\" for "+defaultHistoryHelp)
	fl.StringArrayVar(&f.engineOpts, "engine-opt", nil, "engine setting key=value, repeatable (engine.key=value for one engine)")
	fl.StringVar(&f.dsn, "dsn", "", "server address for server engines")
	fl.StringVar(&f.database, "database", "rumbench", "database a server engine creates and drops; each cell uses <database>_<cell> (rumbench_x3_pad256_c1), so cells run at once (--cell, --kubernetes) never share one")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "also print each run's interval lines")
	fl.StringVar(&f.compareTo, "compare-to", "", "an earlier sweep's directory: also print each matrix relative to it (this sweep / that one, cell by cell)")
	addMemFlags(fl, &f.mem, true)
	addRepeatFlag(fl, &f.repeat)
	addCooldownFlag(fl, &f.cooldown)
	fl.StringVar(&f.cell, "cell", "", "run only this cell: its index (0 to cells-1, in the order the sweep runs them), or \"env\" for $JOB_COMPLETION_INDEX (a pod of an Indexed Job)")
	addKubeFlags(fl, &f.kube, "sweep")
	fl.IntVar(&f.childRep, "child-rep", 0, "internal: the repetition a --child-cell run is")
	_ = fl.MarkHidden("child-rep")
	cmd.AddCommand(newSweepCollectCmd())
	return cmd
}

// sweepDefault is the help of a sweep flag whose default comes from the
// insert benchmark's preset, listed from the presets themselves.
func sweepDefault(v func(p ibench.Preset) string) string {
	return workload.PresetDefaults(ibench.PresetOrder, func(n string) string { return v(ibench.Presets[n]) })
}

// sweepIndexes are the index counts a sweep of preset p runs without
// --indexes: all of 0..3, or for the IO-bound comparison none against all
// three.
func sweepIndexes(p ibench.Preset) []int {
	if p.IOBound {
		return []int{0, 3}
	}
	return []int{0, 1, 2, 3}
}

// resolvePreset fills in what the preset decides for the flags not given
// (the interval and index counts in f; rows, churn rows and query seconds
// returned): what the sweep runs, and what its help lists.
func (f *sweepFlags) resolvePreset(fl *pflag.FlagSet, preset ibench.Preset) (rows, churn int64, qs float64, err error) {
	pick := func(name string, v, def int64) int64 {
		if fl.Changed(name) {
			return v
		}
		return def
	}
	rows = pick("rows", f.rows, preset.Rows)
	churn = pick("churn-rows", f.churnRows, preset.ChurnRows)
	qs = preset.QuerySeconds
	if fl.Changed("query-seconds") {
		qs = f.querySeconds
	}
	if !fl.Changed("interval") {
		f.interval = preset.RunInterval()
	} else if f.interval <= 0 {
		return 0, 0, 0, fmt.Errorf("--interval must be positive, got %s", f.interval)
	}
	if !fl.Changed("indexes") {
		f.indexes = sweepIndexes(preset)
	}
	return rows, churn, qs, nil
}

func runSweep(cmd *cobra.Command, f *sweepFlags) error {
	bad := func(err error) error { return &runner.BadInputError{Err: err} }
	if f.out == "" {
		return bad(fmt.Errorf("--out is required: the sweep's directory (a rerun resumes it)"))
	}
	if err := plan.CheckCooldown(f.cooldown); err != nil {
		return err
	}
	if err := plan.CheckRepeat(f.repeat); err != nil {
		return err
	}
	if err := checkKubeFlags(cmd.Flags(), &f.kube); err != nil {
		return err
	}
	if f.kube.file != "" && f.cell != "" {
		return bad(fmt.Errorf("--cell and --kubernetes: the manifest gives each pod its cell; leave --cell out"))
	}
	pads, err := sweep.ParsePadSizes(f.padSizes)
	if err != nil {
		return bad(err)
	}
	preset, err := ibench.LookupPreset(f.preset)
	if err != nil {
		return bad(err)
	}
	if !(f.ratePct > 0 && f.ratePct <= 100) {
		return bad(fmt.Errorf("--rate-percentile must be above 0 and at most 100, got %g", f.ratePct))
	}
	opts, err := plan.ParseEngineOpts(f.engineOpts)
	if err != nil {
		return bad(err)
	}
	fl := cmd.Flags()
	rows, churn, qs, err := f.resolvePreset(fl, preset)
	if err != nil {
		return bad(err)
	}
	var presetMemory map[string]int64
	engines := f.engines
	if f.mem.childEngine != "" {
		engines = []string{f.mem.childEngine}
	}
	var mp *workload.MemoryPreset
	if preset.IOBound {
		maxClients := 1
		for _, c := range f.clients {
			maxClients = max(maxClients, c)
		}
		mp = ibench.IOBoundMemory(rows, maxClients)
	}
	mem := plan.Memory{CacheSize: f.mem.cacheSize, CacheSizeGiven: fl.Changed("cache-size"), Limit: f.mem.limit, LimitGiven: fl.Changed("memory-limit")}
	budget, err := plan.ChooseBudget(mem, mp, f.preset, engines, opts)
	if err != nil {
		return bad(err)
	}
	if mp != nil {
		mplan := &plan.MemoryPlan{Budget: budget, Limit: f.mem.limit}
		presetMemory = plan.ApplyMemoryPreset(mp, engines, opts, mplan, mem.LimitGiven)
		f.mem.limit, f.mem.perEngine = mplan.Limit, mplan.PerEngine
	}
	setup := setupMemory
	if f.kube.file != "" {
		setup = podMemory // only a manifest is written: Kubernetes limits the pods
	}
	ms, err := setup(&f.mem)
	if err != nil {
		return bad(err)
	}
	spec := &sweep.Spec{
		Engines: f.engines, Indexes: f.indexes, PadSizes: pads, PadRandomPct: f.padRandomPct, Clients: f.clients, Steps: f.steps,
		Shared: map[string]any{"rows": rows, "churn_rows": churn, "query_seconds": qs, "rows_per_commit": f.rowsPerCommit,
			"interval_s": f.interval.Seconds(), "rate_percentile": f.ratePct, "seed": f.seed, "engine_opts": opts, "preset": f.preset,
			"cache_size": plan.CacheConfig(budget)},
	}
	if f.repeat > 1 {
		spec.Repeat = f.repeat
	}
	if ms.Limit > 0 {
		spec.Shared["memory_limit"] = ms.Limit
	}
	if presetMemory != nil {
		spec.Shared["preset_memory"] = presetMemory
	}
	if ms.Drop != nil {
		spec.Shared["drop_caches"] = true
	}
	if err := spec.Validate(); err != nil {
		return bad(err)
	}
	config := func(c sweep.Cell) ibench.Config {
		// One table per client, recorded in run.json as the run command does.
		return ibench.Config{Clients: c.Clients, Tables: c.Clients, Rows: rows, ChurnRows: churn, Indexes: c.Indexes, PadMin: c.Pad, PadMax: c.Pad,
			PadRandomPct: f.padRandomPct, RowsPerCommit: f.rowsPerCommit, QuerySeconds: qs, Seed: f.seed, Steps: f.steps}
	}
	// Every cell's configuration is checked before anything runs.
	for _, c := range spec.Cells() {
		cfg := config(c)
		if err := cfg.Validate(); err != nil {
			return bad(fmt.Errorf("cell %s: %w", c.Name(), err))
		}
	}
	if f.kube.file != "" {
		return writeSweepJob(cmd, &f.kube, f.out, len(spec.Cells()), ms.Limit)
	}
	cell := -1
	if f.cell != "" {
		if cell, err = launch.CompletionIndex("cell", f.cell, len(spec.Cells())); err != nil {
			return bad(err)
		}
	}
	stdout := cmd.OutOrStdout()
	options := func(c sweep.Cell, engine, dir string) runner.Options {
		cfg := config(c)
		live := io.Discard
		if f.verbose {
			live = stdout
		}
		conf := map[string]any{"workload": "ibench", "preset": f.preset, "ibench": cfg, "engines": []string{engine},
			"engine_opts": opts, "interval_s": f.interval.Seconds(), "rate_percentile": f.ratePct, "sweep_cell": c.Name()}
		if f.cooldown > 0 {
			conf["cooldown_s"] = f.cooldown.Seconds()
		}
		return runner.Options{
			Engines: []string{engine}, Out: dir, DataDir: f.mem.childData, EngineOpts: runner.OptionsFor(engine, opts), DSN: f.dsn, Database: cellDatabase(f.database, c),
			Interval: f.interval, Seed: f.seed, RatePercentile: f.ratePct, OpTimeout: runner.DefaultOpTimeout,
			Config: conf,
			Sizes: map[string]any{"clients": cfg.Clients, "rows": cfg.Rows, "churn_rows": cfg.ChurnRows, "indexes": cfg.Indexes,
				"pad_min": cfg.PadMin, "pad_max": cfg.PadMax},
			NewWorkload:  func() (workload.Workload, error) { return ibench.New(cfg) },
			Observers:    observers(),
			Live:         live,
			Log:          live,
			MemoryCgroup: ms.ChildStats(),
			DropCaches:   ms.Drop,
			Cache:        budget,
		}
	}
	probe := options(spec.Cells()[0], "", f.out)
	probe.Engines = f.engines
	if err := runner.CheckEngines(&probe); err != nil {
		return err
	}
	if !childMode {
		if err := checkRunHistory(cmd.Context(), &f.history); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if childMode {
		// One engine of one cell, in the parent's cgroup.
		for _, c := range spec.Cells() {
			if c.Name() == f.mem.childCell {
				_, err := runner.Run(ctx, options(c, f.mem.childEngine, filepath.Dir(spec.RunDir(f.out, c, f.mem.childEngine, f.childRep))))
				return err
			}
		}
		return bad(fmt.Errorf("--child-cell %s is not a cell of this sweep", f.mem.childCell))
	}
	var iso *launch.Isolator
	if ms.Ctl != nil {
		if err := launch.CheckLimitable(f.engines, func(string) bool { return false }); err != nil {
			return bad(err)
		}
		iso = newIsolator(ms, stdout, cmd.ErrOrStderr())
	}
	if f.compareTo != "" && !sweep.IsSweep(f.compareTo) {
		return bad(fmt.Errorf("--compare-to %s is not a sweep directory (it holds no %s)", f.compareTo, sweep.SpecFile))
	}
	ran := false
	runCell := func(ctx context.Context, c sweep.Cell, engine, dir string) error {
		if ran {
			if err := runner.Cooldown(ctx, f.cooldown, stdout); err != nil {
				return err
			}
		}
		ran = true
		// The runner writes Out/<engine>.
		o := options(c, engine, filepath.Dir(dir))
		if iso != nil {
			o.Isolate = func(ctx context.Context, engine, _ string) (bool, error) {
				args := []string{"--child-cell", c.Name()}
				if rep := filepath.Base(filepath.Dir(dir)); spec.Reps() > 1 {
					args = append(args, "--child-rep", strings.TrimPrefix(rep, report.RepPrefix))
				}
				return iso.Run(ctx, engine, dir, "", args...)
			}
		}
		_, err := runner.Run(ctx, o)
		return err
	}
	if cell >= 0 {
		c := spec.Cells()[cell]
		fmt.Fprintf(stdout, "rumbench sweep: cell %d of %d (%s) × %d engines, steps %v; results in %s\n", cell, len(spec.Cells()), c.Name(), len(f.engines), f.steps, f.out)
		err = sweep.RunCell(ctx, spec, f.out, cell, runCell, stdout)
		if ctx.Err() != nil {
			fmt.Fprintln(stdout, "sweep cell interrupted: rerun the same command to resume it")
			return runner.ErrInterrupted
		}
		if err == nil {
			fmt.Fprintf(stdout, "cell %d (%s) is finished; the matrices of the cells present: rumbench sweep collect %s\n", cell, c.Name(), f.out)
		}
		return recordRunHistory(f.history, []string{f.out}, err, stdout)
	}
	fmt.Fprintf(stdout, "rumbench sweep: %d cells × %d engines, steps %v; results in %s\n", len(spec.Cells()), len(f.engines), f.steps, f.out)
	if f.repeat > 1 {
		fmt.Fprintln(stdout, report.RepeatCaveat(f.repeat))
	}
	err = sweep.Run(ctx, spec, f.out, runCell, stdout)
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "sweep interrupted: rerun the same command to resume")
		return runner.ErrInterrupted
	}
	printSweepReport(stdout, f.out, spec, f.compareTo)
	// Every cell present, those of an earlier, resumed invocation too: a
	// cell recorded before is the same run again.
	return recordRunHistory(f.history, []string{f.out}, err, stdout)
}

// cellDatabase is the database of a cell on a server engine: its own, so
// cells running at once against one server (pods of a --kubernetes sweep)
// do not drop or fill each other's tables.
func cellDatabase(base string, c sweep.Cell) string {
	return base + "_" + strings.ReplaceAll(c.Name(), "-", "_")
}

// joinInts renders a comma list as the flag takes it.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
