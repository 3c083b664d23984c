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
	"github.com/spf13/pflag"

	"rumbench/internal/cliconfig"
	"rumbench/internal/launch"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/steady"
	"rumbench/internal/sysmetrics"
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
	quiet      bool
	kube       kubeFlags
	shard      shardFlags
	history    string
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
	pf.StringSliceVar(&common.engines, "engine", []string{"pebble", "sqlite"}, "engines to run, in order (comma list; see \"rumbench engines\")")
	pf.StringVar(&common.preset, "preset", "quick", "size preset of the workload (see its --help): quick (seconds per step), small (minutes), reference (the published shape), iobound (ibench: indexes 5x the engine cache in a memory cgroup; root)")
	pf.DurationVar(&common.interval, "interval", 0, "length of a measurement interval (one live line and one log record each) "+intervalHelp())
	pf.Float64Var(&common.ratePct, "rate-percentile", runner.DefaultRatePercentile, "percentile of the per-interval rates each step reports beside the average: 99 gives IPS.99 (the rate 99% of intervals met); 95 with --interval 10s gives the published ipsP95 from 10-second samples")
	pf.StringVar(&common.steady, "steady-state", "", "warm each time-bounded step (query steps, l.i1/l.i2 with --churn-seconds, LinkBench requests, hot-row cells) up until its main rate is steady, then measure it for its own length: METRIC:dev=P%[,slope=P%],window=D[,ramp=D],max=D with METRIC rate (the main rate), wkb (KB written per operation), wamp (bytes written per logical byte inserted) or size (on-disk size; slope= bounds its growth), e.g. rate:dev=10%,window=60s,max=2h (docs/metrics.md, Steady state); run.json records per step whether and when it was reached")
	pf.DurationVar(&common.warmup, "warmup", 0, "run each time-bounded step (the insert benchmark's query steps) this long before measuring it: those intervals are logged with \"warmup\": true and left out of every figure")
	pf.DurationVar(&common.opTimeout, "op-timeout", runner.DefaultOpTimeout, "end a step as failed when no operation finished for this long (an engine or server that stopped answering); 0: wait forever. Index builds, full scans and maintenance are exempt")
	pf.Int64Var(&common.seed, "seed", 1, "seed of the data generator: the same seed and sizes give the same rows")
	pf.StringVar(&common.out, "out", "", "results directory; each engine writes <out>/<engine>/ (default ./rumbench-results/<timestamp>)")
	pf.StringVar(&common.dataDir, "data-dir", "", "engine data directory, kept after the run (default: a temporary directory removed at exit); with several engines each uses <data-dir>/<engine>")
	pf.StringArrayVar(&common.engineOpts, "engine-opt", nil, "engine setting key=value, repeatable; engine.key=value for one engine only (see \"rumbench engines -v\" for keys and defaults)")
	pf.StringVar(&common.dsn, "dsn", "", "server address for server engines (default: the local server)")
	pf.StringVar(&common.database, "database", "rumbench", "database a server engine creates and drops")
	addManagedFlags(pf, &common.managed)
	addMemFlags(pf, &common.mem, false)
	addRepeatFlag(pf, &common.repeat)
	addCooldownFlag(pf, &common.cooldown)
	pf.BoolVar(&common.quiet, "quiet", false, "print only the summary tables and the verdict at the end: no interval lines, no per-step tables (progress notes and warnings go to stderr; the bundles and report.html are written as always)")
	addKubeFlags(pf, &common.kube, "run")
	addShardFlags(pf, &common.shard)
	pf.StringVar(&common.history, "history", "", "record the run in the results history when it ends: a SQLite file, postgres://... for a shared one, or \"default\" for "+defaultHistoryHelp+" (see `rumbench history`)")
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
		return &runner.BadInputError{Err: explainFlagError(err, d.Name)}
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
	var owners []string
	for _, w := range workload.Names() {
		if w == chosen {
			continue
		}
		d, _ := workload.Lookup(w)
		fs := pflag.NewFlagSet(w, pflag.ContinueOnError)
		d.Flags(fs)
		if fs.Lookup(name) != nil {
			owners = append(owners, w)
		}
	}
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
	if cmd.Flags().Changed("interval") && f.interval <= 0 {
		return &runner.BadInputError{Err: fmt.Errorf("--interval must be positive, got %s", f.interval)}
	}
	if !(f.ratePct > 0 && f.ratePct <= 100) {
		return &runner.BadInputError{Err: fmt.Errorf("--rate-percentile must be above 0 and at most 100, got %g", f.ratePct)}
	}
	if err := checkRepeat(f.repeat); err != nil {
		return err
	}
	if err := checkCooldown(f.cooldown); err != nil {
		return err
	}
	if err := checkKubeFlags(cmd.Flags(), &f.kube); err != nil {
		return err
	}
	if f.warmup < 0 {
		return &runner.BadInputError{Err: fmt.Errorf("--warmup must be 0 or more, got %s", f.warmup)}
	}
	var steadySpec *steady.Spec
	if f.steady != "" {
		sp, err := steady.Parse(f.steady)
		if err != nil {
			return &runner.BadInputError{Err: err}
		}
		steadySpec = &sp
	}
	if !cmd.Flags().Changed("interval") {
		f.interval = presetInterval(d, f.preset)
	}
	if steadySpec != nil && steadySpec.Window < 2*f.interval {
		return &runner.BadInputError{Err: fmt.Errorf("--steady-state %q: the window must hold at least two intervals of %s: make it longer or --interval shorter", f.steady, f.interval)}
	}
	if f.opTimeout < 0 {
		return &runner.BadInputError{Err: fmt.Errorf("--op-timeout must be 0 (no limit) or more, got %s", f.opTimeout)}
	}
	wr, err := configure(workload.Common{
		Preset: f.preset, Seed: f.seed, Interval: f.interval, Warmup: f.warmup,
		Changed: func(name string) bool { return cmd.Flags().Changed(name) },
	})
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	opts, err := parseEngineOpts(f.engineOpts)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	recordedDataDir := f.dataDir
	if f.mem.childEngine != "" {
		f.engines = []string{f.mem.childEngine}
		if f.mem.childData != "" {
			// The parent's temporary dir: run.json keeps "" (temporary).
			f.dataDir = f.mem.childData
		}
	}
	budget, err := chooseBudget(cmd.Flags(), &f.mem, f.mem.cacheSize, wr.Memory, f.preset, f.engines, opts)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	f.mem.budget = budget
	presetMemory := applyMemoryPreset(wr.Memory, f.engines, opts, &f.mem, cmd.Flags().Changed("memory-limit"))
	if f.kube.file != "" {
		if f.kube.shards > 1 {
			// The pods would refuse it: check the workload can be split and
			// each shard's part is valid, before writing a manifest.
			w, err := wr.New()
			if err != nil {
				return &runner.BadInputError{Err: err}
			}
			sh, ok := w.(workload.Sharder)
			if !ok {
				return &runner.BadInputError{Err: fmt.Errorf("--shards: workload %s cannot split its clients over shards (the insert benchmark can)", d.Name)}
			}
			if err := sh.Shard(0, f.kube.shards); err != nil {
				return &runner.BadInputError{Err: fmt.Errorf("--shards: %w", err)}
			}
		}
		return writeRunJob(cmd, &f.kube, f.engines, f.out, &f.mem)
	}
	if !childMode {
		if err := checkRunHistory(cmd.Context(), &f.history); err != nil {
			return err
		}
	}
	ms, err := setupMemory(&f.mem)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	out := f.out
	if out == "" {
		out = filepath.Join("rumbench-results", time.Now().Format("20060102-150405"))
	}
	if childMode {
		f.repeat = 1 // the parent runs the repetitions; --out is this one's
	}
	// Where the run (or the current repetition) writes its bundles.
	runOut := out
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()

	stdout := cmd.OutOrStdout()
	var startServer runner.ServerStarter
	var managedCfg map[string]any
	if !childMode {
		startServer, managedCfg, err = managedRun(cmd, f, ms, stdout)
		if err != nil {
			return &runner.BadInputError{Err: err}
		}
	}
	var isolate func(ctx context.Context, engine, dataDir string) (bool, error)
	if ms.Ctl != nil {
		managedList, _ := managedCfg["engines"].([]string)
		if err := launch.CheckLimitable(f.engines, func(e string) bool { return contains(managedList, e) }); err != nil {
			return &runner.BadInputError{Err: err}
		}
		iso := newIsolator(ms, stdout, cmd.ErrOrStderr())
		isolate = func(ctx context.Context, engine, dataDir string) (bool, error) {
			extra := []string{"--out", runOut}
			if dataDir != "" {
				extra = append(extra, "--data-dir", dataDir)
			}
			return iso.Run(ctx, engine, filepath.Join(runOut, engine), dataDir, extra...)
		}
	}
	ro := runner.Options{
		Engines:        f.engines,
		Out:            out,
		DataDir:        f.dataDir,
		EngineOpts:     opts,
		DSN:            f.dsn,
		Database:       f.database,
		Interval:       f.interval,
		Seed:           f.seed,
		RatePercentile: f.ratePct,
		OpTimeout:      f.opTimeout,
		Steady:         steadySpec,
		Cooldown:       f.cooldown,
		Config: map[string]any{
			"workload": d.Name, "preset": f.preset, d.Name: wr.Config,
			"engines": f.engines, "engine_opts": opts, "interval_s": f.interval.Seconds(), "rate_percentile": f.ratePct,
			"op_timeout_s": f.opTimeout.Seconds(),
			"data_dir":     recordedDataDir, "database": f.database, "dsn_given": f.dsn != "",
			"managed": managedCfg, "memory": ms.Config(), "preset_memory": presetMemory, "cache_size": budgetConfig(budget),
		},
		Cache:        budget,
		StartServer:  startServer,
		Isolate:      isolate,
		MemoryCgroup: ms.ChildStats(),
		DropCaches:   ms.Drop,
		Sizes:        wr.Sizes,
		NewWorkload:  wr.New,
		Observers:    observers(),
		Live:         stdout,
		Log:          stdout,
	}
	if f.steady != "" {
		ro.Config.(map[string]any)["steady_state"] = f.steady
	}
	if f.cooldown > 0 {
		ro.Config.(map[string]any)["cooldown_s"] = f.cooldown.Seconds()
	}
	if f.quiet {
		ro.Live, ro.Log = io.Discard, cmd.ErrOrStderr()
	}
	if ro.Shard, err = f.shard.options(cmd, d.Name); err != nil {
		return err
	}
	// Refuse bad input (engines, settings, --dsn, --out) before printing
	// anything; Run checks again.
	for _, dir := range repeatDirs(out, f.repeat) {
		ro.Out = dir
		if err := runner.Check(&ro); err != nil {
			return err
		}
	}
	if childMode {
		// The parent prints the banner and the report.
		_, err := runner.Run(ctx, ro)
		return err
	}
	banner := stdout
	if f.quiet {
		banner = cmd.ErrOrStderr()
	}
	fmt.Fprintf(banner, "rumbench run: workload %s, preset %s, engines %s, %s; results in %s\n",
		d.Name, f.preset, strings.Join(f.engines, ","), wr.Banner, out)
	if f.repeat > 1 {
		// What this many repetitions can show, before they run.
		fmt.Fprintln(banner, report.RepeatCaveat(f.repeat))
		runErr := runRepeated(ctx, &ro, f.repeat, out, &runOut, stdout, func() (*report.Report, error) {
			return report.RepeatReport(stdout, out, f.quiet)
		})
		return recordRunHistory(f.history, report.RepDirs(out), runErr, stdout)
	}
	res, runErr := runner.Run(ctx, ro)
	var bundles []*results.Bundle
	for _, r := range res {
		b, err := results.Read(r.Dir)
		if err != nil {
			continue
		}
		bundles = append(bundles, b)
	}
	if len(bundles) > 0 {
		// The report is a view of results already saved: failing to draw
		// it must not fail the run.
		rep, err := printRunReport(stdout, d, bundles, out, f.quiet)
		if err != nil {
			fmt.Fprintf(stdout, "rumbench: could not write the report: %v\n", err)
		}
		fmt.Fprintf(stdout, "\nresults: %s\n", out)
		if rep != nil {
			// The verdict last: what a reader acts on.
			fmt.Fprintln(stdout)
			rep.WriteVerdict(stdout)
		}
	}
	var dirs []string
	for _, r := range res {
		dirs = append(dirs, r.Dir)
	}
	return recordRunHistory(f.history, dirs, runErr, stdout)
}

// presetInterval is the interval a run of workload d with the named preset
// uses without --interval (an unknown preset is refused later, by the
// workload).
func presetInterval(d *workload.Definition, preset string) time.Duration {
	p, _ := d.Preset(preset)
	return p.RunInterval()
}

// intervalHelp lists --interval's default per workload and preset, from the
// presets themselves: the presets that set their own, and the rest's.
func intervalHelp() string {
	var own []string
	for _, n := range workload.Names() {
		d, _ := workload.Lookup(n)
		for _, p := range d.Presets {
			if p.RunInterval() != workload.DefaultInterval {
				own = append(own, fmt.Sprintf("%s %s %s", n, p.Name, p.RunInterval()))
			}
		}
	}
	h := fmt.Sprintf("(default %s", workload.DefaultInterval)
	if len(own) > 0 {
		h += "; from --preset: " + strings.Join(own, ", ")
	}
	return h + ")"
}

// printRunReport prints the end-of-run view: the workload's own when it has
// one, else a summary per engine and the comparison report (with HTML);
// with quiet only the summary tables. It returns the report whose verdict
// ends the output.
func printRunReport(w io.Writer, d *workload.Definition, bundles []*results.Bundle, out string, quiet bool) (*report.Report, error) {
	if d.Report != nil {
		if err := d.Report(w, bundles, out); err != nil {
			return nil, err
		}
		return report.BundlesReport(bundles)
	}
	if !quiet {
		for _, b := range bundles {
			report.StepSummary(w, b)
		}
	}
	return report.RunReport(w, bundles, filepath.Join(out, "report.html"), quiet)
}

// parseEngineOpts turns repeated key=value flags into a map.
func parseEngineOpts(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--engine-opt %q is not key=value (e.g. --engine-opt cache_size=1GB)", kv)
		}
		// The same key for the same scope (all engines, or engine.key)
		// twice: the last would silently win.
		if prev, dup := out[k]; dup {
			return nil, fmt.Errorf("--engine-opt %s is given twice (%s=%s and %s): give it once", k, k, prev, kv)
		}
		out[k] = v
	}
	return out, nil
}

// metricsLog says each system-metrics message once per run: every engine
// and sweep cell of this process shares it, and engines' child processes
// write their stderr through its filter (childStderr).
var metricsLog = sysmetrics.NewOnceLog(os.Stderr)

// observers returns the step observers every run uses (system metrics).
// Unavailable counters and warnings (the output on the data dir's device)
// are explained once per run on stderr and in each step's
// metrics.null_reasons.
func observers() []runner.ObserverFactory {
	return []runner.ObserverFactory{sysmetrics.FactoryLog(metricsLog)}
}

// childStderr is where engines' child processes write their stderr: the
// metrics lines this run said already are left out.
func childStderr(w io.Writer) io.Writer { return metricsLog.Filter(w) }

// newWorkloadsCmd returns `rumbench workloads`: the registered workloads.
func newWorkloadsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "workloads",
		Short: "List the workloads `rumbench run NAME` can run, with their presets",
		Args:  argsNone,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, n := range workload.Names() {
				d, _ := workload.Lookup(n)
				def := ""
				if n == defaultWorkload {
					def = " (default)"
				}
				fmt.Fprintf(w, "%s%s: %s\n", n, def, d.Description)
				for _, p := range d.Presets {
					fmt.Fprintf(w, "    --preset %-10s %s\n", p.Name, p.Description)
				}
			}
			fmt.Fprintln(w, "\n`rumbench run NAME --help` lists a workload's own flags.")
			return nil
		},
	}
}
