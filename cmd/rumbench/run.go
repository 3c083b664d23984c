package main

import (
	"context"
	"fmt"
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

Sizes come from --preset; any size flag given explicitly overrides it.`,
		Example: `  rumbench run
  rumbench run --engine pebble --preset small --indexes 1
  rumbench run --engine sqlite --steps l.i0,l.x --rows 1000000 --data-dir /data/rb --engine-opt cache_size=1GB`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "JSON file of flag values ({\"engine\": \"pebble\", \"rows\": 1000000, ...}); flags given on the command line win")
	fl.StringVar(&f.workload, "workload", "ibench", "workload to run: ibench (the insert benchmark)")
	fl.StringSliceVar(&f.engines, "engine", []string{"pebble", "sqlite"}, "engines to run, in order (comma list; see `rumbench engines`)")
	fl.StringVar(&f.preset, "preset", "quick", "size preset: quick (seconds per step), small (minutes), reference (the published shape, hours)")
	fl.StringSliceVar(&f.steps, "steps", ibench.DefaultSteps, "steps to run, in order (comma list of "+strings.Join(ibench.StepOrder, ",")+")")
	fl.IntVar(&f.clients, "clients", 0, "clients, each with its own table pi1..piN (default: from the preset; quick: 2)")
	fl.Int64Var(&f.rows, "rows", 0, "rows per client loaded by l.i0 (default: from the preset; quick: 100000)")
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
	return cmd
}

func runRun(cmd *cobra.Command, f *runFlags) error {
	if f.config != "" {
		if err := cliconfig.Apply(cmd.Flags(), f.config); err != nil {
			return &runner.BadInputError{Err: err}
		}
	}
	if f.workload != "ibench" {
		return &runner.BadInputError{Err: fmt.Errorf("unknown --workload %q: choose ibench", f.workload)}
	}
	preset, err := ibench.LookupPreset(f.preset)
	if err != nil {
		return &runner.BadInputError{Err: err}
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
		return &runner.BadInputError{Err: fmt.Errorf("--rows-per-commit must be at least 1, got %d", f.rowsPerCommit)}
	}
	if f.interval <= 0 {
		return &runner.BadInputError{Err: fmt.Errorf("--interval must be positive, got %s", f.interval)}
	}
	if _, err := ibench.New(cfg); err != nil {
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
	fmt.Fprintf(stdout, "rumbench run: workload ibench, preset %s, engines %s, %d clients x %d rows, churn %d rows/client, %d indexes; results in %s\n",
		f.preset, strings.Join(f.engines, ","), cfg.Clients, cfg.Rows, cfg.ChurnRows, cfg.Indexes, out)
	res, runErr := runner.Run(ctx, runner.Options{
		Engines:    f.engines,
		Out:        out,
		DataDir:    f.dataDir,
		EngineOpts: opts,
		DSN:        f.dsn,
		Database:   f.database,
		Interval:   f.interval,
		Seed:       f.seed,
		Config: map[string]any{
			"workload": "ibench", "preset": f.preset, "ibench": cfg,
			"engines": f.engines, "engine_opts": opts, "interval_s": f.interval.Seconds(),
			"data_dir": f.dataDir, "database": f.database, "dsn_given": f.dsn != "",
		},
		NewWorkload: func() (workload.Workload, error) { return ibench.New(cfg) },
		Observers:   observers(),
		Live:        stdout,
		Log:         stdout,
	})
	var bundles []*results.Bundle
	for _, r := range res {
		b, err := results.Read(r.Dir)
		if err != nil {
			continue
		}
		report.StepSummary(stdout, b)
		bundles = append(bundles, b)
	}
	if len(bundles) > 0 {
		// The comparison report is a view of results already saved: failing
		// to draw it must not fail the run.
		if err := report.RunReport(stdout, bundles, filepath.Join(out, "report.html")); err != nil {
			fmt.Fprintf(stdout, "rumbench: could not write the report: %v\n", err)
		}
	}
	if len(res) > 0 {
		fmt.Fprintf(stdout, "\nresults: %s\n", out)
	}
	return runErr
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
