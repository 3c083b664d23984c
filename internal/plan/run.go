package plan

import (
	"fmt"
	"time"

	"rumbench/internal/launch"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/steady"
	"rumbench/internal/workload"
)

// Engine is one entry of a request's engine list: a variant, an engine
// (Name) under a label; a bare engine is labelled by its name.
type Engine struct {
	Label string
	Name  string
}

// Engines makes entries of engine names, each labelled by its name.
func Engines(names ...string) []Engine {
	out := make([]Engine, len(names))
	for i, n := range names {
		out[i] = Engine{Label: n, Name: n}
	}
	return out
}

// label is e's label: its engine's name when it has none.
func (e Engine) label() string {
	if e.Label == "" {
		return e.Name
	}
	return e.Label
}

// names are the engines' names, in order.
func names(es []Engine) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

// Run is a request to run a workload on engines (`rumbench run`), free of
// flags: each field is a setting's value, Given says which were given.
type Run struct {
	Workload *workload.Definition
	// Configure validates the workload's own settings.
	Configure workload.Configurer
	// Given reports whether a setting was given explicitly (by its flag's
	// name, on the command line or in --config), so a preset yields to it.
	Given func(name string) bool

	Preset     string
	Engines    []Engine
	EngineOpts []string
	// ServerOpts are --server-opt's settings, checked here only for
	// variants that end up the same (PlanServers routes them).
	ServerOpts     []string
	Installs       []string
	Seed           int64
	Interval       time.Duration // used when Given("interval")
	RatePercentile float64
	Warmup         time.Duration
	Steady         string
	OpTimeout      time.Duration
	Cooldown       time.Duration
	// StepPause is --step-pause: a pause between two steps of a run.
	StepPause time.Duration
	Repeat    int
	DataDir   string
	DSN       string
	Database  string
	Memory    Memory
	// Child is set in an engine's child process (--memory-limit): it runs
	// that engine only, in the parent's temporary data dir if one is
	// given.
	Child *Child
}

// Child is an engine's child process: the engine (the variant's label) it
// runs and the temporary data dir its parent made ("" for --data-dir's).
type Child struct {
	Engine  string
	DataDir string
}

// RunPlan is a checked run: what the runner is given and run.json records.
type RunPlan struct {
	Request *Run
	// Engines are the engine of each variant, in order (an engine twice
	// under two labels).
	Engines []string
	// Variants are the variants the runner runs, every setting scoped
	// (resolveVariants): in a variant's child process (--memory-limit)
	// that variant alone.
	Variants []model.Variant
	Interval time.Duration
	Steady   *steady.Spec
	Workload *workload.Configured
	// EngineOpts are the settings of every engine (engine.key for one),
	// the budget's and a memory preset's included.
	EngineOpts map[string]string
	// runnerOpts are EngineOpts as the runner takes them: in a variant's
	// child process (--memory-limit) that variant's view (the other
	// labels are not its run's); nil for EngineOpts.
	runnerOpts map[string]string
	// DataDir is where engines keep their data; run.json records the
	// request's.
	DataDir string
	Memory  *MemoryPlan
}

// Check refuses the settings a run cannot start with that need nothing
// else: checked first, as the command reads its flags.
func (r *Run) Check() error {
	if r.Given("interval") && r.Interval <= 0 {
		return bad(fmt.Errorf("--interval must be positive, got %s", r.Interval))
	}
	if err := checkRatePercentile(r.RatePercentile); err != nil {
		return bad(err)
	}
	if err := CheckRepeat(r.Repeat); err != nil {
		return err
	}
	if err := CheckCooldown(r.Cooldown); err != nil {
		return err
	}
	return CheckStepPause(r.StepPause)
}

// PlanRun checks a run request and plans it: the interval (--interval, else
// the preset's), steady state, the workload's configuration, the engines'
// settings and the memory policy. Errors are the user's input.
func PlanRun(r *Run) (*RunPlan, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	if r.Warmup < 0 {
		return nil, bad(fmt.Errorf("--warmup must be 0 or more, got %s", r.Warmup))
	}
	p := &RunPlan{Request: r, DataDir: r.DataDir}
	if r.Steady != "" {
		sp, err := steady.Parse(r.Steady)
		if err != nil {
			return nil, bad(err)
		}
		p.Steady = &sp
	}
	p.Interval = r.Interval
	if !r.Given("interval") {
		p.Interval = PresetInterval(r.Workload, r.Preset)
	}
	if p.Steady != nil && p.Steady.Window < 2*p.Interval {
		return nil, bad(fmt.Errorf("--steady-state %q: the window must hold at least two intervals of %s: make it longer or --interval shorter", r.Steady, p.Interval))
	}
	if r.OpTimeout < 0 {
		return nil, bad(fmt.Errorf("--op-timeout must be 0 (no limit) or more, got %s", r.OpTimeout))
	}
	wr, err := r.Configure(workload.Common{
		Preset: r.Preset, Seed: r.Seed, Interval: p.Interval, Warmup: r.Warmup, Changed: r.Given,
	})
	if err != nil {
		return nil, bad(err)
	}
	p.Workload = wr
	if p.EngineOpts, err = ParseEngineOpts(r.EngineOpts); err != nil {
		return nil, bad(err)
	}
	if err := checkDistinct(r.Engines, p.EngineOpts, r.ServerOpts, r.Installs); err != nil {
		return nil, err
	}
	chosen := r.Engines
	var child []model.Variant
	labelledChild := false
	if r.Child != nil {
		chosen = []Engine{{Label: r.Child.Engine, Name: r.Child.Engine}}
		for _, e := range r.Engines {
			if e.label() == r.Child.Engine {
				chosen = []Engine{e}
				labelledChild = Labelled(r.Engines)
			}
		}
		if r.Child.DataDir != "" {
			// The parent's temporary dir: run.json keeps "" (temporary).
			p.DataDir = r.Child.DataDir
		}
	}
	p.Engines = names(chosen)
	if p.Memory, err = PlanMemory(r.Memory, wr.Memory, r.Preset, uniqueNames(chosen), p.EngineOpts); err != nil {
		return nil, bad(err)
	}
	if labelledChild {
		// Scoped after the memory plan added its settings (the cache
		// the budget gives the engine), as a bare child's are: the
		// variant's child runs with the same cache as its parent planned.
		p.runnerOpts = variantView(p.EngineOpts, chosen[0], labels(r.Engines))
		child = resolveVariants(chosen, p.EngineOpts, r.ServerOpts, labels(r.Engines))
	}
	p.Variants = child
	if p.Variants == nil {
		ls := labels(r.Engines)
		if r.Child != nil {
			ls = labels(chosen)
		}
		p.Variants = resolveVariants(chosen, p.EngineOpts, r.ServerOpts, ls)
	}
	return p, nil
}

// PresetInterval is the interval a run of workload d with the named preset
// uses without --interval (an unknown preset is refused later, by the
// workload).
func PresetInterval(d *workload.Definition, preset string) time.Duration {
	pr, _ := d.Preset(preset)
	return pr.RunInterval()
}

// CheckShards checks that the workload can split its clients over n
// shards and that each shard's part is valid (--kubernetes --shards).
func (p *RunPlan) CheckShards(n int) error {
	if n <= 1 {
		return nil
	}
	w, err := p.Workload.New()
	if err != nil {
		return bad(err)
	}
	sh, ok := w.(workload.Sharder)
	if !ok {
		return bad(fmt.Errorf("--shards: workload %s cannot split its clients over shards (the insert benchmark can)", p.Request.Workload.Name))
	}
	if err := sh.Shard(0, n); err != nil {
		return bad(fmt.Errorf("--shards: %w", err))
	}
	return nil
}

// Budget is the run's cache budget.
func (p *RunPlan) Budget() *membudget.Budget { return p.Memory.Budget }

// Options are the runner's options of the plan, without the command's
// wiring (output, observers, servers, child processes, shards), writing
// into out. ms is the memory setup (nil without one) and servers the
// managed servers, both recorded in run.json.
func (p *RunPlan) Options(out string, ms *launch.Memory, servers *results.ManagedConfig) runner.Options {
	r := p.Request
	return runner.Options{
		Variants:       p.Variants,
		Out:            out,
		DataDir:        p.DataDir,
		EngineOpts:     p.runnerEngineOpts(),
		DSN:            r.DSN,
		Database:       r.Database,
		Interval:       p.Interval,
		Seed:           r.Seed,
		RatePercentile: r.RatePercentile,
		OpTimeout:      r.OpTimeout,
		Steady:         p.Steady,
		Cooldown:       r.Cooldown,
		StepPause:      r.StepPause,
		Config:         p.Config(ms, servers),
		Cache:          p.Memory.Budget,
		MemoryCgroup:   ms.ChildStats(),
		DropCaches:     ms.Drop,
		Sizes:          p.Workload.Sizes,
		NewWorkload:    p.Workload.New,
	}
}

// runnerEngineOpts are the settings the runner is given (runnerOpts).
func (p *RunPlan) runnerEngineOpts() map[string]string {
	if p.runnerOpts != nil {
		return p.runnerOpts
	}
	return p.EngineOpts
}

// Config is run.json's config of the plan.
func (p *RunPlan) Config(ms *launch.Memory, servers *results.ManagedConfig) *results.RunConfig {
	r := p.Request
	return &results.RunConfig{
		Workload: r.Workload.Name, WorkloadConfig: p.Workload.Config, Preset: r.Preset,
		Engines: entries(p.Variants), EngineOpts: p.EngineOpts, IntervalS: p.Interval.Seconds(), RatePercentile: r.RatePercentile,
		SteadyState: r.Steady, CooldownS: r.Cooldown.Seconds(),
		StepPauseS: r.StepPause.Seconds(),
		Local: &results.LocalConfig{
			OpTimeoutS: r.OpTimeout.Seconds(), DataDir: r.DataDir, Database: r.Database, DSNGiven: r.DSN != "",
			Managed: servers, Memory: ms.Config(), PresetMemory: p.Memory.Preset, CacheSize: CacheConfig(p.Memory.Budget),
		},
	}
}
