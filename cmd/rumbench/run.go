package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rumbench/internal/cliconfig"
	"rumbench/internal/execute"
	"rumbench/internal/managed"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
	_ "rumbench/internal/workload/all"
)

// defaultWorkload is what `rumbench run` runs without a workload name.
const defaultWorkload = "ibench"

// commonFlags are the run settings every workload shares.
type commonFlags struct {
	config     string
	workload   string
	engines    []string
	preset     string
	interval   time.Duration
	seed       int64
	ratePct    float64
	warmup     time.Duration
	steady     string
	opTimeout  time.Duration
	out        string
	dataDir    string
	engineOpts []string
	dsn        string
	database   string
	managed    managedFlags
	mem        memFlags
	repeat     int
	cooldown   time.Duration
	stepPause  time.Duration
	profile    bool
	quiet      bool
	// replaceReport lets a run write over a report.html already in --out.
	replaceReport bool
	kube          kubeFlags
	shard         shardFlags
	history       string
}

// newRunCmd returns `rumbench run`: the default workload, with one
// subcommand per registered workload (`rumbench run hotrow`), each showing
// only its own flags.
func newRunCmd() *cobra.Command {
	common := &commonFlags{}
	def, err := workload.Lookup(defaultWorkload)
	if err != nil {
		panic(err) // the default workload is linked in by workload/all
	}
	run := newWorkloadCmd(def, common, "run")
	run.Short = "Run a workload on one or more engines and write a results bundle"
	run.Long = `Run a workload on each engine in turn: ` + "`rumbench run NAME`" + ` runs workload NAME
(see ` + "`rumbench workloads`" + `), ` + "`rumbench run`" + ` alone the insert benchmark. One line per
interval is printed while it runs (rates, the main operation's latency,
STALL markers, progress) and a summary per engine at the end. Results go to
--out/<engine>/ (run.json, steps/*.json, intervals.jsonl). Ctrl-C ends the
current step cleanly and keeps everything. Sizes come from --preset; any
size flag given explicitly overrides it. ` + "`rumbench run NAME --help`" + ` lists that
workload's own flags; --workload NAME is the same as ` + "`run NAME`" + `.

` + def.Long
	pf := run.PersistentFlags()
	pf.StringVar(&common.config, "config", "", "JSON file of flag values ({\"engine\": \"pebble\", \"rows\": 1000000, ...}); flags given on the command line win")
	pf.StringVar(&common.workload, "workload", "", "workload to run (same as \"rumbench run NAME\"): "+strings.Join(workload.Names(), ", "))
	pf.StringSliceVar(&common.engines, "engine", []string{"pebble", "sqlite"}, "engines to run, in order (comma list; see \"rumbench engines\"); LABEL=ENGINE runs a variant of an engine under a label of its own, so one engine can run twice with different settings (--engine none=pebble,zstd=pebble --engine-opt zstd.compression=zstd)")
	pf.StringVar(&common.preset, "preset", "quick", "size preset of the workload (see its --help): quick (seconds per step), small (minutes), reference (the published shape), iobound (ibench: indexes 5x the engine cache in a memory cgroup; root)")
	pf.DurationVar(&common.interval, "interval", 0, "length of a measurement interval (one live line and one log record each) "+workload.IntervalHelp())
	pf.Float64Var(&common.ratePct, "rate-percentile", runner.DefaultRatePercentile, "percentile of the per-interval rates each step reports beside the average: 99 gives IPS.99 (the rate 99% of intervals met); 95 with --interval 10s gives the published ipsP95 from 10-second samples")
	pf.StringVar(&common.steady, "steady-state", "", "warm each time-bounded step (query steps, l.i1/l.i2 with --churn-seconds, LinkBench requests, hot-row cells) up until its main rate is steady, then measure it for its own length: METRIC:dev=P%[,slope=P%],window=D[,ramp=D],max=D with METRIC rate (the main rate), wkb (KB written per operation), wamp (bytes written per logical byte inserted) or size (on-disk size; slope= bounds its growth), e.g. rate:dev=10%,window=60s,max=2h (docs/metrics.md, Steady state); run.json records per step whether and when it was reached")
	pf.DurationVar(&common.warmup, "warmup", 0, "run each time-bounded step (the insert benchmark's query steps) this long before measuring it: those intervals are logged with \"warmup\": true and left out of every figure")
	pf.DurationVar(&common.opTimeout, "op-timeout", runner.DefaultOpTimeout, "end a step as failed when no operation finished for this long (an engine or server that stopped answering); 0: wait forever. Index builds, full scans and maintenance are exempt")
	pf.Int64Var(&common.seed, "seed", 1, "seed of the data generator: the same seed and sizes give the same rows")
	pf.StringVar(&common.out, "out", "", "results directory; each engine writes <out>/<engine>/, a labelled variant <out>/<label>/ (default ./rumbench-results/<timestamp>)")
	pf.StringVar(&common.dataDir, "data-dir", "", "engine data directory, kept after the run (default: a temporary directory removed at exit); with several engines each uses <data-dir>/<engine>")
	pf.StringArrayVar(&common.engineOpts, "engine-opt", nil, "engine setting key=value, repeatable; engine.key=value for one engine only, label.key=value for one variant (--engine LABEL=ENGINE), which wins over engine.key (see \"rumbench engines -v\" for keys and defaults)")
	pf.StringVar(&common.dsn, "dsn", "", "server address for server engines (default: the local server)")
	pf.StringVar(&common.database, "database", "rumbench", "database a server engine works in: created when missing, kept after the run (rumbench verify reads it); --engine-opt drop_database=true drops it at the end")
	addManagedFlags(pf, &common.managed, false)
	addMemFlags(pf, &common.mem, false)
	addRepeatFlag(pf, &common.repeat)
	addCooldownFlag(pf, &common.cooldown)
	pf.BoolVar(&common.profile, "profile", false, "record where each step's CPU went: the client's Go CPU profile and perf's cpu-clock stacks of the measured processes (the server's, or this process for an embedded engine), as <out>/<label>/profiles/<step>.{client,server}.pb.gz for go tool pprof, drawn as flame graphs in report.html; perf runs outside the measured processes and its CPU is recorded apart (docs/metrics.md, Profiles)")
	pf.DurationVar(&common.stepPause, "step-pause", 0, "pause this long between two steps of a run, after a step's end-of-step flush and before the next step starts (outside its window), so tools that sample once a second (iostat, pidstat; scripts/audit.sh) can give whole samples to one step; recorded in run.json's config (step_pause_s)")
	pf.BoolVar(&common.quiet, "quiet", false, "print only the summary tables and the verdict at the end: no interval lines, no per-step tables (progress notes and warnings go to stderr; the bundles and report.html are written as always)")
	addKubeFlags(pf, &common.kube, "run")
	addShardFlags(pf, &common.shard)
	pf.BoolVar(&common.replaceReport, "replace-report", false, "let the run write its report.html over one already in --out (by default a run refuses an --out whose report.html it would replace)")
	pf.StringVar(&common.history, "history", "", "record the run in the results history when it ends: a SQLite file, postgres://... for a shared one, or \"default\" for "+defaultHistoryHelp+" (see: rumbench history --help)")
	for _, name := range workload.Names() {
		d, _ := workload.Lookup(name)
		sub := newWorkloadCmd(d, common, name)
		sub.Short = d.Description
		sub.Long = d.Long
		run.AddCommand(sub)
	}
	return run
}

// newWorkloadCmd returns a command that runs workload d with its own flags.
func newWorkloadCmd(d *workload.Definition, common *commonFlags, use string) *cobra.Command {
	var configure workload.Configurer
	cmd := &cobra.Command{
		Use:     use,
		Example: d.Example,
		Args:    func(cmd *cobra.Command, args []string) error { return runArgs(cmd, common, args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorkload(cmd, d, configure, common)
		},
	}
	configure = d.Flags(cmd.Flags())
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if e := explainFlagError(err, d.Name); e != err {
			return &runner.BadInputError{Err: e}
		}
		return &runner.BadInputError{Err: suggestFlag(c, err)}
	})
	return cmd
}

// explainFlagError turns "unknown flag: --tables" for one workload into a
// line naming the workload the flag belongs to.
func explainFlagError(err error, chosen string) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	owners := workload.FlagOwners(name, chosen)
	if len(owners) == 0 {
		return err
	}
	return fmt.Errorf("--%s applies to workload %s only, not %s: remove it (or run `rumbench run %s`)", name, strings.Join(owners, ", "), chosen, owners[0])
}

// rewriteWorkloadFlag turns `run --workload X ...` into `run X ...`, so the
// flag and the subcommand are one way of choosing a workload.
func rewriteWorkloadFlag(args []string) ([]string, error) {
	if len(args) == 0 || args[0] != "run" {
		return args, nil
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		var name string
		switch {
		case a == "--workload" && i+1 < len(args):
			name = args[i+1]
			args = append(args[:i:i], args[i+2:]...)
		case strings.HasPrefix(a, "--workload="):
			name = strings.TrimPrefix(a, "--workload=")
			args = append(args[:i:i], args[i+1:]...)
		default:
			continue
		}
		if _, err := workload.Lookup(name); err != nil {
			return nil, fmt.Errorf("unknown --workload %q: choose one of %s (see `rumbench workloads`)", name, strings.Join(workload.Names(), ", "))
		}
		if len(args) > 1 && isWorkload(args[1]) && args[1] != name {
			return nil, fmt.Errorf("--workload %s contradicts `run %s`: give the workload once", name, args[1])
		}
		if len(args) > 1 && args[1] == name {
			return args, nil
		}
		return append([]string{"run", name}, args[1:]...), nil
	}
	return args, nil
}

func isWorkload(name string) bool {
	_, err := workload.Lookup(name)
	return err == nil
}

func runWorkload(cmd *cobra.Command, d *workload.Definition, configure workload.Configurer, f *commonFlags) error {
	if f.config != "" {
		if err := cliconfig.Apply(cmd.Flags(), f.config); err != nil {
			return &runner.BadInputError{Err: err}
		}
	}
	if f.workload != "" && f.workload != d.Name {
		return &runner.BadInputError{Err: fmt.Errorf("--workload %s (from --config) contradicts the command's workload %s: run `rumbench run %s`", f.workload, d.Name, f.workload)}
	}
	fl := cmd.Flags()
	variants, err := plan.ParseEngines(f.engines)
	if err != nil {
		return err
	}
	req := &plan.Run{
		Workload: d, Configure: configure, Given: fl.Changed,
		Preset: f.preset, Engines: variants, EngineOpts: f.engineOpts, ServerOpts: f.managed.serverOpts, Installs: f.managed.installs, Seed: f.seed,
		Interval: f.interval, RatePercentile: f.ratePct, Warmup: f.warmup, Steady: f.steady, OpTimeout: f.opTimeout,
		Cooldown: f.cooldown, StepPause: f.stepPause, Repeat: f.repeat, DataDir: f.dataDir, DSN: f.dsn, Database: f.database,
		Memory: plan.Memory{CacheSize: f.mem.cacheSize, CacheSizeGiven: fl.Changed("cache-size"), Limit: f.mem.limit, LimitGiven: fl.Changed("memory-limit")},
	}
	if f.mem.childEngine != "" {
		req.Child = &plan.Child{Engine: f.mem.childEngine, DataDir: f.mem.childData}
	}
	if err := req.Check(); err != nil {
		return err
	}
	if err := checkKubeFlags(fl, &f.kube); err != nil {
		return err
	}
	p, err := plan.PlanRun(req)
	if err != nil {
		return err
	}
	f.mem.limit, f.mem.perEngine = p.Memory.Limit, p.Memory.PerEngine
	if f.kube.file != "" {
		if err := p.CheckShards(f.kube.shards); err != nil {
			return err
		}
		return writeRunJob(cmd, &f.kube, p.Engines, f.out, &f.mem)
	}
	ex := newExecutor(cmd, &f.mem, f.history)
	ex.Profile = f.profile
	if err := ex.CheckHistory(cmd.Context()); err != nil {
		return err
	}
	ms, err := setupMemory(&f.mem)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	return ex.Run(execute.RunJob{
		Workload: d, Plan: p, Memory: ms, DSN: f.dsn, Engines: f.engines, Preset: f.preset, Out: f.out, Repeat: f.repeat,
		Managed: managed.Request{
			Given: fl.Changed("managed"), Engines: f.managed.engines, ServerOpts: f.managed.serverOpts, Installs: f.managed.installs, KeepData: f.managed.keepData,
		},
		Quiet: f.quiet, ReplaceReport: f.replaceReport,
		Shard: func() (*runner.ShardOptions, error) { return f.shard.options(cmd, d.Name) },
	})
}

// newWorkloadsCmd returns `rumbench workloads`: the registered workloads.
func newWorkloadsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "workloads",
		Short: "List the workloads `rumbench run NAME` can run, with their presets",
		Args:  argsNone,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			workload.List(w, defaultWorkload)
			fmt.Fprintln(w, "\n`rumbench run NAME --help` lists a workload's own flags.")
			return nil
		},
	}
}
