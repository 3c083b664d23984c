package runcli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/execute"
	"rumbench/internal/launch"
	"rumbench/internal/launch/kube"
	"rumbench/internal/managed"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// Sweep are the flags of `rumbench sweep` and `rumbench sweep NAME` but
// --out.
type Sweep struct {
	Engines        []string
	Preset         string
	Interval       time.Duration
	RatePercentile float64
	Seed           int64
	EngineOpts     []string
	Vary           []string
	VaryServer     []string
	// Managed is --managed, --server-opt and --install.
	Managed   managed.Request
	DSN       string
	Database  string
	Verbose   bool
	Memory    Memory
	CompareTo string
	Repeat    int
	Cooldown  time.Duration
	// ChildRep is the repetition an engine's child process runs.
	ChildRep int
	Cell     string
	Kube     kube.Flags
	History  string
	// The workload swept (its Sweeper), the names of its axes' flags and
	// its cells' configurer.
	Workload string
	Axes     []string
	CellOf   workload.CellConfigurer
}

// Request is the plan's request of the sweep the flags ask for, into out.
func (f *Sweep) Request(fs *pflag.FlagSet, out string) (*plan.Sweep, error) {
	variants, err := plan.ParseEngines(f.Engines)
	if err != nil {
		return nil, err
	}
	m := f.Managed
	m.Given = fs.Changed("managed")
	req := &plan.Sweep{
		Given: fs.Changed, Out: out, Engines: variants, Workload: f.Workload, Cell: f.CellOf, Axes: map[string][]string{}, Preset: f.Preset,
		Interval: f.Interval, RatePercentile: f.RatePercentile, Seed: f.Seed,
		EngineOpts: f.EngineOpts, Vary: f.Vary, VaryServer: f.VaryServer, DSN: f.DSN, Database: f.Database, Repeat: f.Repeat, Cooldown: f.Cooldown,
		Managed: m, Memory: f.Memory.plan(fs),
	}
	for _, name := range f.Axes {
		if fs.Changed(name) {
			req.Axes[name] = fs.Lookup(name).Value.(pflag.SliceValue).GetSlice()
		}
	}
	if c := f.Memory.Child; c.Engine != "" || c.DataDir != "" {
		req.Child = &plan.Child{Engine: c.Engine, DataDir: c.DataDir}
	}
	return req, nil
}

// RunSweep plans the sweep the flags ask for into out, and writes its
// manifest (--kubernetes) or runs it (every cell, or --cell's).
func RunSweep(e *Env, f *Sweep, out string) error {
	bad := func(err error) error { return &runner.BadInputError{Err: err} }
	fs := e.Flags
	req, err := f.Request(fs, out)
	if err != nil {
		return err
	}
	if err := req.Check(); err != nil {
		return err
	}
	if err := f.Kube.Check(fs); err != nil {
		return err
	}
	if f.Kube.File != "" && f.Cell != "" {
		return bad(fmt.Errorf("--cell and --kubernetes: the manifest gives each pod its cell; leave --cell out"))
	}
	p, err := plan.PlanSweep(req)
	if err != nil {
		return err
	}
	f.Memory.Limit, f.Memory.PerEngine = p.Memory.Limit, p.Memory.PerEngine
	setup := launch.SetupMemory
	if f.Kube.File != "" {
		setup = launch.PodMemory // only a manifest is written: Kubernetes limits the pods
	}
	ms, err := setup(f.Memory.MemoryRequest)
	if err != nil {
		return bad(err)
	}
	spec, err := p.Spec(ms)
	if err != nil {
		return err
	}
	if f.Kube.File != "" {
		return f.Kube.WriteSweepJob(e.Path, fs, e.Stdout, out, len(spec.Cells()), ms.Limit)
	}
	cell := -1
	if f.Cell != "" {
		if cell, err = launch.CompletionIndex("cell", f.Cell, len(spec.Cells())); err != nil {
			return bad(err)
		}
	}
	return e.executor(&f.Memory, f.History).Sweep(execute.SweepJob{
		Plan: p, Spec: spec, Memory: ms, Out: out, Cell: cell, Verbose: f.Verbose,
		CompareTo: f.CompareTo, Cooldown: f.Cooldown, Repeat: f.Repeat,
		ChildCell: f.Memory.Child.Cell, ChildEngine: f.Memory.Child.Engine, ChildRep: f.ChildRep,
	})
}
