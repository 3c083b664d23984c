package plan

import (
	"errors"
	"fmt"
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
	"rumbench/internal/workload/ibench"
)

// Sweep is a request to run a workload over a grid of cells (`rumbench
// sweep`), free of flags: Given says which settings were given explicitly
// (by flag name), so the preset yields to them.
type Sweep struct {
	Given func(name string) bool

	// Workload is the workload swept: "" is the insert benchmark, whose
	// grid is Indexes × PadSizes × Clients and settings IBench, as
	// sweep.json has always described it. Another is swept through its
	// workload.Sweeper (PlanWorkloadSweep): Axes are the values of its
	// axes given, by axis name (an axis not given takes its default), and
	// Cell its configurer (workload.Sweeper's SweepFlags).
	Workload string
	Axes     map[string][]int
	Cell     workload.CellConfigurer

	Out      string
	Engines  []Engine
	Indexes  []int
	PadSizes []string
	Clients  []int
	// IBench are the insert benchmark's settings of every run.
	IBench         ibench.SweepValues
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
	Pads     []int
	Indexes  []int
	Rows     int64
	Churn    int64
	QS       float64
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
	// Of a workload's sweep (Request.Workload): its axes and their values,
	// the cells it skips, and each cell's configuration by cell name
	// (first: the first cell's, which the probe and sweep.json take).
	axes  []sweep.Axis
	skip  []string
	cells map[string]*workload.Configured
	first *workload.Configured
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

// PlanSweep checks a sweep request and plans it: the preset's sizes,
// interval and index counts for what was not given, the engines' settings
// and the memory policy. Errors are the user's input.
func PlanSweep(r *Sweep) (*SweepPlan, error) {
	if r.Workload != "" {
		return planWorkloadSweep(r)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	p := &SweepPlan{Request: r}
	var err error
	if p.Pads, err = sweep.ParsePadSizes(r.PadSizes); err != nil {
		return nil, bad(err)
	}
	preset, err := ibench.LookupPreset(r.Preset)
	if err != nil {
		return nil, bad(err)
	}
	es, err := p.planVariants()
	if err != nil {
		return nil, err
	}
	if err := p.resolvePreset(preset); err != nil {
		return nil, bad(err)
	}
	engines := uniqueNames(es)
	if r.Child != nil && r.Child.Engine != "" {
		engines = []string{r.Child.Engine}
		for _, e := range es {
			if e.label() == r.Child.Engine {
				engines = []string{e.Name}
			}
		}
	}
	var mp *workload.MemoryPreset
	if preset.IOBound {
		maxClients := 1
		for _, c := range r.Clients {
			maxClients = max(maxClients, c)
		}
		mp = ibench.IOBoundMemory(p.Rows, maxClients)
	}
	if p.Memory, err = PlanMemory(r.Memory, mp, r.Preset, engines, p.EngineOpts); err != nil {
		return nil, bad(err)
	}
	// Scoped once the memory plan has added its settings: what every
	// cell's run is given.
	p.Variants = resolveVariants(es, p.EngineOpts, p.ServerOpts, labels(es))
	return p, nil
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

// resolvePreset fills in what the preset decides for the settings not
// given: rows, churn rows, query seconds, the interval and index counts.
func (p *SweepPlan) resolvePreset(preset ibench.Preset) error {
	r := p.Request
	p.Rows, p.Churn, p.QS = preset.Sizes(r.Given, r.IBench.Rows, r.IBench.ChurnRows, r.IBench.QuerySeconds)
	p.Interval = preset.RunInterval()
	if r.Given("interval") {
		if r.Interval <= 0 {
			return fmt.Errorf("--interval must be positive, got %s", r.Interval)
		}
		p.Interval = r.Interval
	}
	p.Indexes = r.Indexes
	if !r.Given("indexes") {
		p.Indexes = SweepIndexes(preset)
	}
	return nil
}

// SweepIndexes are the index counts a sweep of preset p runs without
// --indexes: all of 0..3, or for the IO-bound comparison none against all
// three.
func SweepIndexes(p ibench.Preset) []int {
	if p.IOBound {
		return []int{0, 3}
	}
	return []int{0, 1, 2, 3}
}

// Spec is the sweep's grid and shared settings (sweep.json), with the
// memory setup ms; every cell's configuration is checked before anything
// runs.
func (p *SweepPlan) Spec(ms *launch.Memory) (*sweep.Spec, error) {
	r := p.Request
	if r.Workload != "" {
		return p.workloadSpec(ms)
	}
	spec := &sweep.Spec{
		Engines: variantLabels(p.Variants), Indexes: p.Indexes, PadSizes: p.Pads, PadRandomPct: r.IBench.PadRandomPct, Clients: r.Clients, Steps: r.IBench.Steps,
		Shared: map[string]any{"rows": p.Rows, "churn_rows": p.Churn, "query_seconds": p.QS, "rows_per_commit": r.IBench.RowsPerCommit,
			"interval_s": p.Interval.Seconds(), "rate_percentile": r.RatePercentile, "seed": r.Seed, "engine_opts": p.EngineOpts, "preset": r.Preset,
			"cache_size": CacheConfig(p.Memory.Budget)},
	}
	if r.Repeat > 1 {
		spec.Repeat = r.Repeat
	}
	if labelled(p.Variants) {
		spec.Variants = map[string]string{}
		for _, v := range p.Variants {
			spec.Variants[v.Label] = v.Engine
		}
	}
	if p.servers != nil {
		// A rerun resumes only the same servers.
		m := map[string]any{"engines": p.servers.Engines, "server_opts": p.ServerOpts}
		if len(p.Installs) > 0 {
			m["installs"] = p.Installs
		}
		spec.Shared["managed"] = m
	}
	if ms.Limit > 0 {
		spec.Shared["memory_limit"] = ms.Limit
	}
	if p.Memory.Preset != nil {
		spec.Shared["preset_memory"] = p.Memory.Preset
	}
	if ms.Drop != nil {
		spec.Shared["drop_caches"] = true
	}
	if err := spec.Validate(); err != nil {
		return nil, bad(err)
	}
	for _, c := range spec.Cells() {
		cfg := p.CellConfig(c)
		if err := cfg.Validate(); err != nil {
			return nil, bad(fmt.Errorf("cell %s: %w", c.Name(), err))
		}
	}
	return spec, nil
}

// CellConfig is the insert benchmark's configuration of a cell: one table
// per client, recorded in run.json as the run command does.
func (p *SweepPlan) CellConfig(c sweep.Cell) ibench.Config {
	return p.cell(c).Config.(ibench.Config)
}

// cell is the workload's configuration of cell c's run, made by its
// workload.Sweeper: of the insert benchmark, at c's index count, pad size
// and clients.
func (p *SweepPlan) cell(c sweep.Cell) *workload.Configured {
	r := p.Request
	if r.Workload != "" {
		if cfg := p.cells[c.Name()]; cfg != nil {
			return cfg
		}
		return p.first // the probe's
	}
	at := workload.Point{ibench.AxisIndexes: c.Indexes, ibench.AxisPadSizes: c.Pad, ibench.AxisClients: c.Clients}
	// The insert benchmark's configurer fails only on an unknown preset,
	// which PlanSweep refused.
	cfg, err := r.IBench.Configurer()(workload.Common{Preset: r.Preset, Seed: r.Seed, Changed: r.Given}, at)
	if err != nil {
		panic(err)
	}
	return cfg
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
		Config: &results.RunConfig{Workload: p.workloadName(), Preset: r.Preset, WorkloadConfig: cfg.Config, Engines: entries([]model.Variant{v}),
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
