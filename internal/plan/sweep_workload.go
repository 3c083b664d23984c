package plan

import (
	"encoding/json"
	"errors"
	"fmt"

	"rumbench/internal/launch"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
)

// workloadName is the workload the sweep runs, as run.json names it.
func (p *SweepPlan) workloadName() string {
	if p.Request.Workload == "" {
		return "ibench"
	}
	return p.Request.Workload
}

// planWorkloadSweep plans the sweep of a workload other than the insert
// benchmark through its workload.Sweeper: its axes (each given, else its
// default), each cell's configuration (the cells it does not run are
// skipped), the variants, the preset's interval and the cache budget.
func planWorkloadSweep(r *Sweep) (*SweepPlan, error) {
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
		return nil, bad(fmt.Errorf("unknown --preset %q of %s: choose one of %v", r.Preset, r.Workload, d.PresetNames()))
	}
	p := &SweepPlan{Request: r, cells: map[string]*workload.Configured{}}
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
		values, given := r.Axes[a.Name]
		if !given {
			values = a.Default
		}
		if err := a.CheckAxis(values); err != nil {
			return nil, bad(err)
		}
		p.axes = append(p.axes, sweep.Axis{Name: a.Name, Prefix: a.Prefix, Values: values})
	}
	grid := &sweep.Spec{Workload: r.Workload, Axes: p.axes, Engines: []string{"-"}}
	common := workload.Common{Preset: r.Preset, Seed: r.Seed, Interval: p.Interval, Changed: r.Given}
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
	if p.Memory, err = PlanMemory(r.Memory, nil, r.Preset, engines, p.EngineOpts); err != nil {
		return nil, bad(err)
	}
	p.Variants = resolveVariants(es, p.EngineOpts, p.ServerOpts, labels(es))
	return p, nil
}

// workloadSpec is sweep.json of a workload's sweep: the variants, the
// workload's axes and skipped cells, and the settings every cell shares
// (the first cell's configuration records the workload's), so a rerun
// with other settings is refused rather than mixed in.
func (p *SweepPlan) workloadSpec(ms *launch.Memory) (*sweep.Spec, error) {
	r := p.Request
	spec := &sweep.Spec{
		Engines: variantLabels(p.Variants), Workload: r.Workload, Axes: p.axes, Skip: p.skip,
		Shared: map[string]any{"interval_s": p.Interval.Seconds(), "rate_percentile": r.RatePercentile, "seed": r.Seed,
			"engine_opts": p.EngineOpts, "preset": r.Preset, "cache_size": CacheConfig(p.Memory.Budget)},
	}
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
	if ms.Drop != nil {
		spec.Shared["drop_caches"] = true
	}
	if err := spec.Validate(); err != nil {
		return nil, bad(err)
	}
	return spec, nil
}
