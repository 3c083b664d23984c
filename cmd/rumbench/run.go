package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"rumbench/internal/cli/runcli"
	"rumbench/internal/launch"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
	_ "rumbench/internal/workload/all"
)

// defaultWorkload is what `rumbench run` runs without a workload name.
const defaultWorkload = "ibench"

// newRunCmd returns `rumbench run`: the default workload, with one
// subcommand per registered workload (`rumbench run hotrow`), each showing
// only its own flags.
func newRunCmd() *cobra.Command {
	common := &runcli.Common{}
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
	pf.StringVar(&common.Config, "config", "", "JSON file of flag values ({\"engine\": \"pebble\", \"rows\": 1000000, ...}); flags given on the command line win")
	pf.StringVar(&common.Workload, "workload", "", "workload to run (same as \"rumbench run NAME\"): "+strings.Join(workload.Names(), ", "))
	pf.StringSliceVar(&common.Engines, "engine", []string{"pebble", "sqlite"}, "engines to run, in order (comma list; see \"rumbench engines\"); LABEL=ENGINE runs a variant of an engine under a label of its own, so one engine can run twice with different settings (--engine none=pebble,zstd=pebble --engine-opt zstd.compression=zstd)")
	pf.StringVar(&common.Preset, "preset", "quick", "size preset of the workload (see its --help): quick (seconds per step), small (minutes), reference (the published shape), iobound (ibench: indexes 5x the engine cache in a memory cgroup; root)")
	pf.DurationVar(&common.Interval, "interval", 0, "length of a measurement interval (one live line and one log record each) "+workload.IntervalHelp())
	pf.Float64Var(&common.RatePercentile, "rate-percentile", runner.DefaultRatePercentile, "percentile of the per-interval rates each step reports beside the average: 99 gives IPS.99 (the rate 99% of intervals met); 95 with --interval 10s gives the published ipsP95 from 10-second samples")
	pf.StringVar(&common.Steady, "steady-state", "", "warm each time-bounded step (query steps, l.i1/l.i2 with --churn-seconds, LinkBench requests, hot-row cells) up until its main rate is steady, then measure it for its own length: METRIC:dev=P%[,slope=P%],window=D[,ramp=D],max=D with METRIC rate (the main rate), wkb (KB written per operation), wamp (bytes written per logical byte inserted) or size (on-disk size; slope= bounds its growth), e.g. rate:dev=10%,window=60s,max=2h (docs/metrics.md, Steady state); run.json records per step whether and when it was reached")
	pf.DurationVar(&common.Warmup, "warmup", 0, "run each time-bounded step (the insert benchmark's query steps) this long before measuring it: those intervals are logged with \"warmup\": true and left out of every figure")
	pf.DurationVar(&common.OpTimeout, "op-timeout", runner.DefaultOpTimeout, "end a step as failed when no operation finished for this long (an engine or server that stopped answering); 0: wait forever. Index builds, full scans and maintenance are exempt")
	pf.Int64Var(&common.Seed, "seed", 1, "seed of the data generator: the same seed and sizes give the same rows")
	pf.StringVar(&common.Out, "out", "", "results directory; each engine writes <out>/<engine>/, a labelled variant <out>/<label>/ (default ./rumbench-results/<timestamp>)")
	pf.StringVar(&common.DataDir, "data-dir", "", "engine data directory, kept after the run (default: a temporary directory removed at exit); with several engines each uses <data-dir>/<engine>")
	pf.StringArrayVar(&common.EngineOpts, "engine-opt", nil, "engine setting key=value, repeatable; engine.key=value for one engine only, label.key=value for one variant (--engine LABEL=ENGINE), which wins over engine.key (see \"rumbench engines -v\" for keys and defaults)")
	pf.StringVar(&common.DSN, "dsn", "", "server address for server engines (default: the local server)")
	pf.StringVar(&common.Database, "database", "rumbench", "database a server engine works in: created when missing, kept after the run (rumbench verify reads it); --engine-opt drop_database=true drops it at the end")
	addManagedFlags(pf, &common.Managed, false)
	addMemFlags(pf, &common.Memory, false)
	addRepeatFlag(pf, &common.Repeat)
	addCooldownFlag(pf, &common.Cooldown)
	pf.BoolVar(&common.Profile, "profile", false, "record where each step's CPU went: the client's Go CPU profile and perf's cpu-clock stacks of the measured processes (the server's, or this process for an embedded engine), as <out>/<label>/profiles/<step>.{client,server}.pb.gz for go tool pprof, drawn as flame graphs in report.html; perf runs outside the measured processes and its CPU is recorded apart (docs/metrics.md, Profiles)")
	pf.DurationVar(&common.StepPause, "step-pause", 0, "pause this long between two steps of a run, after a step's end-of-step flush and before the next step starts (outside its window), so tools that sample once a second (iostat, pidstat; scripts/audit.sh) can give whole samples to one step; recorded in run.json's config (step_pause_s)")
	pf.BoolVar(&common.Quiet, "quiet", false, "print only the summary tables and the verdict at the end: no interval lines, no per-step tables (progress notes and warnings go to stderr; the bundles and report.html are written as always)")
	addKubeFlags(pf, &common.Kube, "run")
	addShardFlags(pf, &common.Shard)
	pf.BoolVar(&common.ReplaceReport, "replace-report", false, "let the run write its report.html over one already in --out (by default a run refuses an --out whose report.html it would replace)")
	pf.StringVar(&common.History, "history", "", "record the run in the results history when it ends: a SQLite file, postgres://... for a shared one, or \"default\" for "+defaultHistoryHelp+" (see: rumbench history --help)")
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
func newWorkloadCmd(d *workload.Definition, common *runcli.Common, use string) *cobra.Command {
	var configure workload.Configurer
	cmd := &cobra.Command{
		Use:     use,
		Example: d.Example,
		Args:    func(cmd *cobra.Command, args []string) error { return runArgs(cmd, common, args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			return runcli.Run(env(cmd), d, configure, common)
		},
	}
	configure = d.Flags(cmd.Flags())
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if e := runcli.ExplainFlagError(err, d.Name); e != err {
			return &runner.BadInputError{Err: e}
		}
		return &runner.BadInputError{Err: suggestFlag(c, err)}
	})
	return cmd
}

// env is the invocation cmd runs in.
func env(cmd *cobra.Command) *runcli.Env {
	return &runcli.Env{Flags: cmd.Flags(), Path: cmd.CommandPath(), Invocation: invocation, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
		BadInputExit: exitBadInput, Context: cmd.Context()}
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

// invocation is the command line rumbench was started with (after the
// --workload rewrite): an engine's child process is started with it.
var invocation []string

// newCgroupExecCmd is the hidden `rumbench cgroup-exec CGROUP PROG ARGV0
// ARGS...`: join CGROUP, then become PROG.
func newCgroupExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "cgroup-exec",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return launch.CgroupExec(args) },
	}
}
