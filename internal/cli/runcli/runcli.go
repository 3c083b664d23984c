// Package runcli carries out `rumbench run` and `rumbench sweep` from
// their flags' values: it makes the plan's request of them (package plan),
// checks what only the command knows (the Kubernetes manifest's flags,
// --cell, --shard), writes a manifest instead of running when asked
// (package kube), sets up memory and hands the plan to the executor
// (package execute) with the history to record in. The command declares
// the flags; this package decides what they mean together.
package runcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/cli/historycli"
	"rumbench/internal/cliconfig"
	"rumbench/internal/execute"
	"rumbench/internal/launch"
	"rumbench/internal/launch/kube"
	"rumbench/internal/managed"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
	"rumbench/internal/shard"
	"rumbench/internal/workload"
)

// Env is the invocation a command runs in.
type Env struct {
	// Flags are the command's parsed flags; Path is the command as Cobra
	// names it ("rumbench run ibench"), which a manifest's pods run.
	Flags *pflag.FlagSet
	Path  string
	// Invocation is the command line rumbench was started with (an
	// engine's child process is started with it).
	Invocation     []string
	Stdout, Stderr io.Writer
	// BadInputExit is the exit code of input refused.
	BadInputExit int
	Context      context.Context
}

// executor is the executor of this invocation: an engine's child's with
// --child-engine; history is --history ("": none).
func (e *Env) executor(m *Memory, history string) *execute.Executor {
	var h execute.History
	if history != "" {
		h = &historycli.RunRecorder{Target: history}
	}
	return execute.New(m.Child.Engine != "", e.Invocation, e.Stdout, e.Stderr, e.BadInputExit, h)
}

// Memory are the memory flags: --memory-limit, --drop-caches, the hidden
// flags of an engine's child and of a manifest's pod, and --cache-size.
type Memory struct {
	launch.MemoryRequest
	CacheSize string
}

// plan is the plan's memory request of the flags.
func (m *Memory) plan(fs *pflag.FlagSet) plan.Memory {
	return plan.Memory{CacheSize: m.CacheSize, CacheSizeGiven: fs.Changed("cache-size"), Limit: m.Limit, LimitGiven: fs.Changed("memory-limit")}
}

// Common are the flags of `rumbench run` every workload shares.
type Common struct {
	Config, Workload string
	Engines          []string
	Preset           string
	Interval         time.Duration
	Seed             int64
	RatePercentile   float64
	Warmup           time.Duration
	Steady           string
	OpTimeout        time.Duration
	Out, DataDir     string
	EngineOpts       []string
	DSN, Database    string
	// Managed is --managed, --server-opt, --install and --keep-data.
	Managed             managed.Request
	Memory              Memory
	Repeat              int
	Cooldown, StepPause time.Duration
	Profile, Quiet      bool
	ReplaceReport       bool
	Kube                kube.Flags
	Shard               Shard
	History             string
}

// Shard are --shard, --shard-timeout and --shard-run.
type Shard struct {
	Spec    string
	Timeout time.Duration
	RunID   string
}

// Run runs workload d (configure: its flags' configurer) as the flags f
// ask: --config applied, the plan made, then a manifest written or the
// run executed.
func Run(e *Env, d *workload.Definition, configure workload.Configurer, f *Common) error {
	fs := e.Flags
	if f.Config != "" {
		if err := cliconfig.Apply(fs, f.Config); err != nil {
			return &runner.BadInputError{Err: err}
		}
	}
	if f.Workload != "" && f.Workload != d.Name {
		return &runner.BadInputError{Err: fmt.Errorf("--workload %s (from --config) contradicts the command's workload %s: run `rumbench run %s`", f.Workload, d.Name, f.Workload)}
	}
	variants, err := plan.ParseEngines(f.Engines)
	if err != nil {
		return err
	}
	req := &plan.Run{
		Workload: d, Configure: configure, Given: fs.Changed,
		Preset: f.Preset, Engines: variants, EngineOpts: f.EngineOpts, ServerOpts: f.Managed.ServerOpts, Installs: f.Managed.Installs, Seed: f.Seed,
		Interval: f.Interval, RatePercentile: f.RatePercentile, Warmup: f.Warmup, Steady: f.Steady, OpTimeout: f.OpTimeout,
		Cooldown: f.Cooldown, StepPause: f.StepPause, Repeat: f.Repeat, DataDir: f.DataDir, DSN: f.DSN, Database: f.Database,
		Memory: f.Memory.plan(fs),
	}
	if f.Memory.Child.Engine != "" {
		req.Child = &plan.Child{Engine: f.Memory.Child.Engine, DataDir: f.Memory.Child.DataDir}
	}
	if err := req.Check(); err != nil {
		return err
	}
	if err := f.Kube.Check(fs); err != nil {
		return err
	}
	p, err := plan.PlanRun(req)
	if err != nil {
		return err
	}
	f.Memory.Limit, f.Memory.PerEngine = p.Memory.Limit, p.Memory.PerEngine
	if f.Kube.File != "" {
		if err := p.CheckShards(f.Kube.Shards); err != nil {
			return err
		}
		// The shards' pods run what --shard accepts: server engines only,
		// no flag it refuses (nor a managed server's settings).
		checkShards := func() error {
			if err := checkShardable(fs, "server-opt", "install"); err != nil {
				return err
			}
			return plan.CheckShardedEngines(p.Engines)
		}
		return f.Kube.WriteRunJob(e.Path, fs, e.Stdout, f.Out, f.Memory.MemoryRequest, checkShards)
	}
	ex := e.executor(&f.Memory, f.History)
	ex.Profile = f.Profile
	if err := ex.CheckHistory(e.Context); err != nil {
		return err
	}
	ms, err := launch.SetupMemory(f.Memory.MemoryRequest)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	m := f.Managed
	m.Given = fs.Changed("managed")
	return ex.Run(execute.RunJob{
		Workload: d, Plan: p, Memory: ms, DSN: f.DSN, Engines: f.Engines, Preset: f.Preset, Out: f.Out, Repeat: f.Repeat,
		Managed: m, Quiet: f.Quiet, ReplaceReport: f.ReplaceReport,
		Shard: func() (*runner.ShardOptions, error) { return f.Shard.options(fs, d.Name) },
	})
}

// options turns the shard flags into the runner's shard options (nil
// without --shard).
func (s *Shard) options(fs *pflag.FlagSet, workloadName string) (*runner.ShardOptions, error) {
	return plan.PlanShard(plan.Shard{
		Given: fs.Changed, Spec: s.Spec, Timeout: s.Timeout, RunID: s.RunID, EngineOpts: engineOpts(fs), Getenv: os.Getenv,
		DefaultRunID: func(count int) string { return defaultRunID(fs, workloadName, count) },
	})
}

// checkShardable refuses the flags a shard cannot run with
// (plan.CheckShardable).
func checkShardable(fs *pflag.FlagSet, also ...string) error {
	return plan.CheckShardable(fs.Changed, engineOpts(fs), also...)
}

// engineOpts are the --engine-opt values given.
func engineOpts(fs *pflag.FlagSet) []string {
	v, _ := fs.GetStringArray("engine-opt")
	return v
}

// defaultRunID hashes what all shards of a run are given alike.
func defaultRunID(fs *pflag.FlagSet, workloadName string, count int) string {
	skip := map[string]bool{"shard": true, "out": true, "data-dir": true, "dsn": true, "shard-timeout": true}
	parts := []string{workloadName, fmt.Sprint(count)}
	fs.Visit(func(f *pflag.Flag) {
		if !skip[f.Name] {
			parts = append(parts, f.Name+"="+f.Value.String())
		}
	})
	sort.Strings(parts[2:])
	return shard.RunID(parts...)
}
