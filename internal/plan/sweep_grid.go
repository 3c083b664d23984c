package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"rumbench/internal/launch"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
)

// PlanSweep checks a sweep request and plans it through the workload's
// workload.Sweeper: its axes (each given, else the preset's or its
// default), each cell's configuration (the cells it does not run are
// skipped), the variants, the preset's interval and the memory policy
// (a memory preset is the cells' largest). Errors are the user's input.
func PlanSweep(r *Sweep) (*SweepPlan, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	d, err := workload.Lookup(r.Workload)
	if err != nil {
		return nil, bad(err)
	}
	sw, err := workload.SweeperOf(r.Workload)
	if err != nil {
		return nil, bad(err)
	}
	if r.Cell == nil {
		return nil, bad(errors.New("the sweep's cell configurer is missing"))
	}
	preset, ok := d.Preset(r.Preset)
	if !ok {
		// Worded as every workload's run words it.
		names := d.PresetNames()
		sort.Strings(names)
		return nil, bad(fmt.Errorf("unknown --preset %q: choose one of %s", r.Preset, strings.Join(names, ", ")))
	}
	p := &SweepPlan{Request: r, sweeper: sw, cells: map[string]*workload.Configured{}}
	es, err := p.planVariants()
	if err != nil {
		return nil, err
	}
	p.Interval = preset.RunInterval()
	if r.Given("interval") {
		if r.Interval <= 0 {
			return nil, bad(fmt.Errorf("--interval must be positive, got %s", r.Interval))
		}
		p.Interval = r.Interval
	}
	for _, a := range sw.SweepAxes() {
		given, isGiven := r.Axes[a.Name]
		values, err := a.Values(given, isGiven, r.Preset)
		if err != nil {
			return nil, bad(err)
		}
		if err := a.CheckAxis(values); err != nil {
			return nil, bad(err)
		}
		p.axes = append(p.axes, sweep.Axis{Name: a.Name, Prefix: a.Prefix, Values: values})
	}
	grid := &sweep.Spec{Workload: r.Workload, Axes: p.axes, Engines: []string{"-"}}
	common := workload.Common{Preset: r.Preset, Seed: r.Seed, Interval: p.Interval, Changed: r.Given}
	var memory *workload.MemoryPreset
	for _, c := range grid.Cells() {
		cfg, err := r.Cell(common, grid.At(c))
		if err != nil {
			return nil, bad(fmt.Errorf("cell %s: %w", c.Name(), err))
		}
		if cfg == nil {
			p.skip = append(p.skip, c.Name())
			continue
		}
		p.cells[c.Name()] = cfg
		if p.first == nil {
			p.first = cfg
		}
		if cfg.Memory != nil && (memory == nil || cfg.Memory.CacheBytes > memory.CacheBytes) {
			memory = cfg.Memory
		}
	}
	if p.first == nil {
		return nil, bad(fmt.Errorf("no cell to run: the %s sweep skips every cell of this grid (%v)", r.Workload, p.skip))
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
	if p.Memory, err = PlanMemory(r.Memory, memory, r.Preset, engines, p.EngineOpts); err != nil {
		return nil, bad(err)
	}
	p.Variants = resolveVariants(es, p.EngineOpts, p.ServerOpts, labels(es))
	return p, nil
}

// Spec is sweep.json of the sweep, with the memory setup ms: the
// variants, the workload's axes and skipped cells, and the settings every
// cell shares (the workload's: its SweepShared, else the first cell's
// configuration), so a rerun with other settings is refused rather than
// mixed in.
func (p *SweepPlan) Spec(ms *launch.Memory) (*sweep.Spec, error) {
	r := p.Request
	spec := &sweep.Spec{
		Engines: variantLabels(p.Variants), Workload: r.Workload, Axes: p.axes, Skip: p.skip,
		Shared: map[string]any{"interval_s": p.Interval.Seconds(), "rate_percentile": r.RatePercentile, "seed": r.Seed,
			"engine_opts": p.EngineOpts, "preset": r.Preset, "cache_size": CacheConfig(p.Memory.Budget)},
	}
	if rec, ok := p.sweeper.(workload.SweepRecorder); ok {
		for k, v := range rec.SweepShared(p.first) {
			spec.Shared[k] = v
		}
	} else {
		// As sweep.json reads back (a struct's fields in order, a map's
		// sorted), so a rerun compares alike.
		first, err := json.Marshal(p.first.Config)
		if err != nil {
			return nil, err
		}
		var cell any
		if err := json.Unmarshal(first, &cell); err != nil {
			return nil, err
		}
		spec.Shared["first_cell"] = cell
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
	return spec, nil
}
