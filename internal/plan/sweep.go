package plan

import (
	"errors"
	"io"
	"strings"
	"time"

	"rumbench/internal/launch"
	"rumbench/internal/managed"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
)

// Sweep is a request to run a workload over a grid of cells (`rumbench
// sweep`), free of flags: Given says which settings were given explicitly
// (by flag name), so the preset yields to them.
type Sweep struct {
	Given func(name string) bool

	// Workload is the workload swept through its workload.Sweeper: Axes
	// are the values of its axes given, by axis name, as the flags took
	// them (an axis not given takes its default), and Cell its configurer
	// (the Sweeper's SweepFlags).
	Workload string
	Axes     map[string][]string
	Cell     workload.CellConfigurer

	Out            string
	Engines        []Engine
	Preset         string
	Interval       time.Duration
	RatePercentile float64
	Seed           int64
	EngineOpts     []string
	// Vary are --vary's KEY=V1,V2,... settings: each engine they apply
	// to runs as the cartesian product of their values (ExpandVary);
	// VaryServer are --vary-server's, of the managed servers.
	Vary       []string
	VaryServer []string
	// Managed is --managed with --server-opt and --install: each variant
	// of a managed engine runs on a server of its own, started once for
	// all its cells (ServerPool). KeepData is not a sweep's.
	Managed  managed.Request
	DSN      string
	Database string
	Memory   Memory
	Repeat   int
	Cooldown time.Duration
	// Child is set in an engine's child process (--memory-limit).
	Child *Child
}

// SweepPlan is a checked sweep: its grid and what each cell's run is given.
type SweepPlan struct {
	Request *Sweep
	// Engines are the engine of each variant, in order; Variants the
	// variants (--vary's expanded), every setting scoped
	// (resolveVariants).
	Engines  []string
	Variants []model.Variant
	Interval time.Duration
	// EngineOpts are every engine's settings, the budget's and a memory
	// preset's included.
	EngineOpts map[string]string
	// ServerOpts and Installs are --server-opt's and --install's
	// settings, with --vary-server's values and the varied entries' own
	// settings scoped to the variants' labels.
	ServerOpts []string
	Installs   []string
	Memory     *MemoryPlan
	// servers are the managed servers' engines and the settings scoped to
	// no label; nil without --managed.
	servers *managed.Plan
	// The workload's Sweeper, its axes and their values, the cells it
	// skips, and each cell's configuration by cell name (first: the first
	// cell's, which the probe and sweep.json take).
	sweeper workload.Sweeper
	axes    []sweep.Axis
	skip    []string
	cells   map[string]*workload.Configured
	first   *workload.Configured
}

// Check refuses the settings a sweep cannot start with that need nothing
// else: checked first, as the command reads its flags.
func (r *Sweep) Check() error {
	if r.Out == "" {
		return bad(errors.New("--out is required: the sweep's directory (a rerun resumes it)"))
	}
	if err := CheckCooldown(r.Cooldown); err != nil {
		return err
	}
	return CheckRepeat(r.Repeat)
}

// planVariants checks the settings of every sweep's variants and expands
// them (--vary, --vary-server): the engines' settings, the managed
// servers, the variants' engines.
func (p *SweepPlan) planVariants() ([]Engine, error) {
	r := p.Request
	var err error
	if err := checkRatePercentile(r.RatePercentile); err != nil {
		return nil, bad(err)
	}
	if p.EngineOpts, err = ParseEngineOpts(r.EngineOpts); err != nil {
		return nil, bad(err)
	}
	if r.Managed.KeepData {
		return nil, bad(errors.New("--keep-data: a sweep removes its managed servers at the end (each served many runs, in a database per cell); keep one with `rumbench run --managed --data-dir D --keep-data`"))
	}
	if p.servers, err = managedPlan(r.Managed, r.Engines, "", r.DSN); err != nil {
		return nil, err
	}
	vs := &VarySettings{EngineOpts: p.EngineOpts, ServerOpts: append([]string(nil), r.Managed.ServerOpts...),
		Installs: append([]string(nil), r.Managed.Installs...), Servers: p.servers}
	es, err := ExpandVary(r.Engines, Vary{Engine: r.Vary, Server: r.VaryServer}, vs)
	if err != nil {
		return nil, err
	}
	p.ServerOpts, p.Installs = vs.ServerOpts, vs.Installs
	if err := checkDistinct(es, p.EngineOpts, p.ServerOpts, p.Installs); err != nil {
		return nil, err
	}
	p.Engines = names(es)
	return es, nil
}

// CellConfig is the workload's configuration of cell c's run (Config of
// workload.Configured: ibench.Config for the insert benchmark).
func (p *SweepPlan) CellConfig(c sweep.Cell) any { return p.cell(c).Config }

// AxisValues are the values the sweep runs of the axis named.
func (p *SweepPlan) AxisValues(name string) []int {
	for _, a := range p.axes {
		if a.Name == name {
			return a.Values
		}
	}
	return nil
}

// cell is the workload's configuration of cell c's run, made by its
// workload.Sweeper (the first cell's for a cell not in the grid: the
// probe's).
func (p *SweepPlan) cell(c sweep.Cell) *workload.Configured {
	if cfg := p.cells[c.Name()]; cfg != nil {
		return cfg
	}
	return p.first
}

// Budget is the sweep's cache budget.
func (p *SweepPlan) Budget() *membudget.Budget { return p.Memory.Budget }

// variant is the variant labelled label (an engine of that name when no
// variant has the label: a bare engine's label is its name).
func (p *SweepPlan) variant(label string) model.Variant {
	for _, v := range p.Variants {
		if v.Label == label {
			return v
		}
	}
	return resolveVariants(Engines(label), p.EngineOpts, nil, variantLabels(p.Variants))[0]
}

// Probe are the runner's options that check every variant and its settings
// before the sweep starts (runner.CheckEngines, and with the servers'
// starter runner.CheckDistinctSettings, in a database of its own).
func (p *SweepPlan) Probe(out string) runner.Options {
	o := p.CellOptions(sweep.Cell{}, "", out)
	o.Variants, o.EngineOpts = p.Variants, p.EngineOpts
	o.Database = p.Request.Database + "_readback"
	return o
}

// Servers are the sweep's managed servers (nil without --managed): each
// variant's own, with its settings and installation; ServerPool keeps one
// per variant for all its cells. log receives their start and stop lines.
func (p *SweepPlan) Servers(ms *launch.Memory, log io.Writer) (*Servers, error) {
	req := p.Request.Managed
	req.ServerOpts, req.Installs = p.ServerOpts, p.Installs
	return PlanServers(req, p.Variants, "", p.Request.DSN, p.Budget(), ms, log)
}

// CellOptions are the runner's options of one variant's run of cell c into
// dir (label is the variant's label, its engine's name for a bare one),
// without the command's wiring (output, observers, child processes) and
// memory cgroups.
func (p *SweepPlan) CellOptions(c sweep.Cell, label, dir string) runner.Options {
	r := p.Request
	cfg := p.cell(c)
	// The runner sees one variant, not the others' labels.
	v := p.variant(label)
	o := runner.Options{
		Variants: []model.Variant{v}, Out: dir, EngineOpts: v.Options, DSN: r.DSN, Database: CellDatabase(r.Database, c),
		Interval: p.Interval, Seed: r.Seed, RatePercentile: r.RatePercentile, OpTimeout: runner.DefaultOpTimeout,
		Config: &results.RunConfig{Workload: r.Workload, Preset: r.Preset, WorkloadConfig: cfg.Config, Engines: entries([]model.Variant{v}),
			EngineOpts: p.EngineOpts, IntervalS: p.Interval.Seconds(), RatePercentile: r.RatePercentile, SweepCell: c.Name(),
			CooldownS: r.Cooldown.Seconds()},
		Sizes:       cfg.Sizes,
		NewWorkload: cfg.New,
		Cache:       p.Memory.Budget,
	}
	if r.Child != nil {
		o.DataDir = r.Child.DataDir
	}
	return o
}

// CellDatabase is the database of a cell on a server engine: its own, so
// cells running at once against one server (pods of a --kubernetes sweep)
// do not drop or fill each other's tables.
func CellDatabase(base string, c sweep.Cell) string {
	return base + "_" + strings.ReplaceAll(c.Name(), "-", "_")
}
