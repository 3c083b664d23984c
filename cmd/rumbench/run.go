package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"rumbench/internal/cliconfig"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sysmetrics"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

type runFlags struct {
	config        string
	workload      string
	engines       []string
	preset        string
	steps         []string
	clients       int
	rows          int64
	churnRows     int64
	indexes       int
	padMin        int
	padMax        int
	padRandomPct  int
	rowsPerCommit int
	querySeconds  float64
	interval      time.Duration
	seed          int64
	out           string
	dataDir       string
	engineOpts    []string
	dsn           string
	database      string
	hot           hotrowFlagValues
	managed       managedFlags
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a workload on one or more engines and write a results bundle",
		Long: `Run a workload (default: the insert benchmark, quick preset) on each engine
in turn. One line per interval is printed while it runs and a summary table
per engine at the end. Results go to --out/<engine>/ (run.json, steps/*.json,
intervals.jsonl). Ctrl-C ends the current step cleanly and keeps everything.

Sizes come from --preset; any size flag given explicitly overrides it.

--workload hotrow updates one hot row per table (counter = counter + 1 by PK,
autocommit) in a sweep of --tables x --concurrency cells after loading the
tables; it prints the updates/s matrix per engine and relative to the first.
Presets: quick 100k rows/table, 3 s cells, concurrency 1,2,4,16,64 (about
1-2 minutes per engine); small 1M rows, 10 s cells; reference 1M rows, 60 s
cells (both concurrency 1..64). Flags of one workload given to the other
are an error.`,
		Example: `  rumbench run
  rumbench run --engine pebble --preset small --indexes 1
  rumbench run --workload hotrow --engine pebble,sqlite,bbolt
  rumbench run --workload hotrow --tables 1,8 --concurrency 8,64 --distribution zipf:0.99
  rumbench run --engine sqlite --steps l.i0,l.x --rows 1000000 --data-dir /data/rb --engine-opt cache_size=1GB`,
		Args: func(cmd *cobra.Command, args []string) error { return runArgs(cmd, f, args) },
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "JSON file of flag values ({\"engine\": \"pebble\", \"rows\": 1000000, ...}); flags given on the command line win")
	fl.StringVar(&f.workload, "workload", "ibench", "workload to run: ibench (the insert benchmark) or hotrow (hot-row updates: the tables x concurrency updates/s matrix); flags of the other workload are rejected")
	fl.StringSliceVar(&f.engines, "engine", []string{"pebble", "sqlite"}, "engines to run, in order (comma list; see `rumbench engines`)")
	fl.StringVar(&f.preset, "preset", "quick", "size preset: quick (seconds per step), small (minutes), reference (the published shape, hours); hotrow sizes are listed above")
	fl.StringSliceVar(&f.steps, "steps", ibench.DefaultSteps, "steps to run, in order (comma list of "+strings.Join(ibench.StepOrder, ",")+")")
	fl.IntVar(&f.clients, "clients", 0, "clients, each with its own table pi1..piN (default: from the preset; quick: 2)")
	fl.Int64Var(&f.rows, "rows", 0, "ibench: rows per client loaded by l.i0; hotrow: rows per table (default: from the preset; quick: 100000)")
	fl.Int64Var(&f.churnRows, "churn-rows", 0, "rows per client inserted (and as many deleted) by l.i1+l.i2, split 4/5 and 1/5 (default: from the preset; quick: 50000)")
	fl.IntVar(&f.indexes, "indexes", 0, "secondary indexes built by l.x, 0..3: marketsegment, registersegment, pdc (default: from the preset; 3)")
	fl.IntVar(&f.padMin, "pad-min", 10, "minimum length of the data column, bytes")
	fl.IntVar(&f.padMax, "pad-max", 20, "maximum length of the data column, bytes")
	fl.IntVar(&f.padRandomPct, "pad-random-pct", 50, "percent of the data column that is random characters (the rest repeats one character)")
	fl.IntVar(&f.rowsPerCommit, "rows-per-commit", 0, "rows per transaction for every write step (default 0: the step's own: l.i0 100, l.i1 50, l.i2 5)")
	fl.Float64Var(&f.querySeconds, "query-seconds", 0, "length of each query step, seconds (default: from the preset; quick: 10)")
	fl.DurationVar(&f.interval, "interval", time.Second, "length of a measurement interval (one live line and one log record each)")
	fl.Int64Var(&f.seed, "seed", 1, "seed of the data generator: the same seed and sizes give the same rows")
	fl.StringVar(&f.out, "out", "", "results directory; each engine writes <out>/<engine>/ (default ./rumbench-results/<timestamp>)")
	fl.StringVar(&f.dataDir, "data-dir", "", "engine data directory, kept after the run (default: a temporary directory removed at exit); with several engines each uses <data-dir>/<engine>")
	fl.StringArrayVar(&f.engineOpts, "engine-opt", nil, "engine setting key=value, repeatable; engine.key=value for one engine only (see `rumbench engines -v` for keys and defaults)")
	fl.StringVar(&f.dsn, "dsn", "", "server address for server engines (default: the local server)")
	fl.StringVar(&f.database, "database", "rumbench", "database a server engine creates and drops")
	addHotrowFlags(fl, &f.hot)
	addManagedFlags(fl, &f.managed)
	return cmd
}

// workloadRun is what the chosen workload contributes to a run: its
// validated configuration, a banner line, and how its results are printed.
type workloadRun struct {
	config      any
	banner      string
	newWorkload func() (workload.Workload, error)
	report      func(w io.Writer, bundles []*results.Bundle, out string)
}

func runRun(cmd *cobra.Command, f *runFlags) error {
	if f.config != "" {
		if err := cliconfig.Apply(cmd.Flags(), f.config); err != nil {
			return &runner.BadInputError{Err: err}
		}
	}
	var wr *workloadRun
	var err error
	switch f.workload {
	case "ibench":
		wr, err = ibenchRun(cmd, f)
	case "hotrow":
		wr, err = hotrowRun(cmd, f)
	default:
		return &runner.BadInputError{Err: fmt.Errorf("unknown --workload %q: choose ibench or hotrow", f.workload)}
	}
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	opts, err := parseEngineOpts(f.engineOpts)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	out := f.out
	if out == "" {
		out = filepath.Join("rumbench-results", time.Now().Format("20060102-150405"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()

	stdout := cmd.OutOrStdout()
	startServer, managedCfg, err := managedRun(cmd, f, stdout)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	ro := runner.Options{
		Engines:    f.engines,
		Out:        out,
		DataDir:    f.dataDir,
		EngineOpts: opts,
		DSN:        f.dsn,
		Database:   f.database,
		Interval:   f.interval,
		Seed:       f.seed,
		Config: map[string]any{
			"workload": f.workload, "preset": f.preset, f.workload: wr.config,
			"engines": f.engines, "engine_opts": opts, "interval_s": f.interval.Seconds(),
			"data_dir": f.dataDir, "database": f.database, "dsn_given": f.dsn != "",
			"managed": managedCfg,
		},
		StartServer: startServer,
		NewWorkload: wr.newWorkload,
		Observers:   observers(),
		Live:        stdout,
		Log:         stdout,
	}
	// Refuse bad input (engines, settings, --dsn, --out) before printing
	// anything; Run checks again.
	if err := runner.Check(&ro); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rumbench run: workload %s, preset %s, engines %s, %s; results in %s\n",
		f.workload, f.preset, strings.Join(f.engines, ","), wr.banner, out)
	res, runErr := runner.Run(ctx, ro)
	var bundles []*results.Bundle
	for _, r := range res {
		b, err := results.Read(r.Dir)
		if err != nil {
			continue
		}
		bundles = append(bundles, b)
	}
	wr.report(stdout, bundles, out)
	if len(bundles) > 0 {
		fmt.Fprintf(stdout, "\nresults: %s\n", out)
	}
	return runErr
}

// ibenchFlags are the flags only the insert benchmark reads.
var ibenchFlags = []string{"steps", "clients", "churn-rows", "indexes", "pad-min", "pad-max", "pad-random-pct", "rows-per-commit", "query-seconds"}

// rejectFlags refuses flags of another workload, so a run never silently
// ignores what the user asked for.
func rejectFlags(cmd *cobra.Command, names []string, owner, chosen string) error {
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			return fmt.Errorf("--%s applies to --workload %s only, not %s: remove it (or choose --workload %s)", n, owner, chosen, owner)
		}
	}
	return nil
}

// ibenchRun builds the insert benchmark's configuration from the flags.
func ibenchRun(cmd *cobra.Command, f *runFlags) (*workloadRun, error) {
	if err := rejectFlags(cmd, hotrowFlags, "hotrow", "ibench"); err != nil {
		return nil, err
	}
	preset, err := ibench.LookupPreset(f.preset)
	if err != nil {
		return nil, err
	}
	fl := cmd.Flags()
	pick := func(name string, explicit, def int64) int64 {
		if fl.Changed(name) {
			return explicit
		}
		return def
	}
	cfg := ibench.Config{
		Clients:       int(pick("clients", int64(f.clients), int64(preset.Clients))),
		Rows:          pick("rows", f.rows, preset.Rows),
		ChurnRows:     pick("churn-rows", f.churnRows, preset.ChurnRows),
		Indexes:       int(pick("indexes", int64(f.indexes), int64(preset.Indexes))),
		PadMin:        f.padMin,
		PadMax:        f.padMax,
		PadRandomPct:  f.padRandomPct,
		RowsPerCommit: f.rowsPerCommit,
		QuerySeconds:  preset.QuerySeconds,
		Seed:          f.seed,
		Steps:         f.steps,
	}
	if fl.Changed("query-seconds") {
		cfg.QuerySeconds = f.querySeconds
	}
	if fl.Changed("rows-per-commit") && f.rowsPerCommit < 1 {
		return nil, fmt.Errorf("--rows-per-commit must be at least 1, got %d", f.rowsPerCommit)
	}
	if err := checkInterval(f); err != nil {
		return nil, err
	}
	if _, err := ibench.New(cfg); err != nil {
		return nil, err
	}
	return &workloadRun{
		config: cfg,
		banner: fmt.Sprintf("%d clients x %d rows, churn %d rows/client, %d indexes",
			cfg.Clients, cfg.Rows, cfg.ChurnRows, cfg.Indexes),
		newWorkload: func() (workload.Workload, error) { return ibench.New(cfg) },
		report: func(w io.Writer, bundles []*results.Bundle, out string) {
			for _, b := range bundles {
				report.StepSummary(w, b)
			}
			if len(bundles) > 0 {
				// The comparison report is a view of results already saved:
				// failing to draw it must not fail the run.
				if err := report.RunReport(w, bundles, filepath.Join(out, "report.html")); err != nil {
					fmt.Fprintf(w, "rumbench: could not write the report: %v\n", err)
				}
			}
		},
	}, nil
}

func checkInterval(f *runFlags) error {
	if f.interval <= 0 {
		return fmt.Errorf("--interval must be positive, got %s", f.interval)
	}
	return nil
}

// parseEngineOpts turns repeated key=value flags into a map.
func parseEngineOpts(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--engine-opt %q is not key=value (e.g. --engine-opt cache_size=1GB)", kv)
		}
		out[k] = v
	}
	return out, nil
}

// observers returns the step observers every run uses (system metrics).
// Unavailable counters are explained once on stderr and in each step's
// metrics.null_reasons.
func observers() []runner.ObserverFactory {
	return []runner.ObserverFactory{sysmetrics.Factory(os.Stderr)}
}
