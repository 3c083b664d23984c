package plan

import (
	"strconv"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/managed"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/workload"
)

// Memory is what a run asks of memory: --cache-size, --memory-limit and
// whether each was given.
type Memory struct {
	CacheSize      string
	CacheSizeGiven bool
	Limit          string
	LimitGiven     bool
}

// MemoryPlan is the memory policy of a run: the cache budget every engine
// gets and the limits a memory preset sized.
type MemoryPlan struct {
	Budget *membudget.Budget
	// Limit is --memory-limit, or the largest engine limit a preset sized
	// when it was not given.
	Limit string
	// PerEngine are the limits a preset sized per embedded engine
	// (--memory-limit not given).
	PerEngine map[string]int64
	// Preset are the settings a memory preset sized, for run.json (nil
	// without a preset).
	Preset map[string]int64
}

// writeBufferKeys are the engine settings a memory preset sizes beside the
// cache (which the run's budget sets), in order of preference.
var writeBufferKeys = []string{"write_buffer_size", "memtable_size"}

// ChooseBudget picks the run's one cache size (--cache-size, else the
// preset's, else what --memory-limit leaves, else the default) and sets
// every embedded engine's cache option in opts to it, unless an
// --engine-opt set that engine's cache.
func ChooseBudget(m Memory, mp *workload.MemoryPreset, preset string, engines []string, opts map[string]string) (*membudget.Budget, error) {
	c := membudget.Choice{Flag: m.CacheSize, Given: m.CacheSizeGiven, PresetName: preset, ProcessBytes: membudget.ProcessBytes}
	if mp != nil {
		c.PresetCache = mp.CacheBytes
	}
	if m.Limit != "" {
		// 0 is no limit; one under 16MB is refused where the limit is set
		// up (launch.SetupMemory).
		if n, err := engineopt.ParseSize("memory-limit", m.Limit); err == nil && n >= 16<<20 {
			c.Limit, c.LimitText = n, m.Limit
		}
	}
	b, err := membudget.Choose(c)
	if err != nil {
		return nil, err
	}
	if mp != nil {
		// The preset's memory limits hold the cache the run gives.
		mp.CacheBytes = b.Bytes
	}
	b.ApplyEngineOpts(engines, opts)
	return b, nil
}

// PlanMemory chooses the budget (ChooseBudget), applies the memory preset
// mp, when there is one (ApplyMemoryPreset), and fits every embedded
// engine's large buffers into --memory-limit when it was given
// (membudget.FitLimit), or refuses it.
func PlanMemory(m Memory, mp *workload.MemoryPreset, preset string, engines []string, opts map[string]string) (*MemoryPlan, error) {
	b, err := ChooseBudget(m, mp, preset, engines, opts)
	if err != nil {
		return nil, err
	}
	p := &MemoryPlan{Budget: b, Limit: m.Limit}
	p.Preset = ApplyMemoryPreset(mp, engines, opts, p, m.LimitGiven)
	if m.LimitGiven {
		// Every large buffer of every engine fits the limit, or the run is
		// refused before it starts.
		// 0 is no limit; one under 16MB is refused where the limit is set
		// up (launch.SetupMemory).
		if n, err := engineopt.ParseSize("memory-limit", m.Limit); err == nil && n >= 16<<20 {
			if err := b.FitLimit(n, m.Limit, engines, opts); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// ApplyMemoryPreset sizes each engine's write buffers from a preset
// (engine.key settings, unless that key was given) and each engine's memory
// limit (unless --memory-limit was given, into p). It returns what it set,
// for run.json. The cache is the run's budget (ChooseBudget).
func ApplyMemoryPreset(mp *workload.MemoryPreset, engines []string, opts map[string]string, p *MemoryPlan, limitGiven bool) map[string]int64 {
	if mp == nil {
		return nil
	}
	set := map[string]int64{}
	var most int64
	for _, e := range engines {
		d, err := engine.Lookup(e)
		if err != nil {
			continue
		}
		has := map[string]bool{}
		for _, o := range d.Options() {
			has[o.Key] = true
		}
		wb := false
		for _, k := range writeBufferKeys {
			if !has[k] {
				continue
			}
			wb = true
			if _, given := engineopt.Scoped(opts).Given(e, k); !given {
				opts[engineopt.Join(e, k)] = strconv.FormatInt(mp.WriteBufferBytes, 10)
				set[engineopt.Join(e, k)] = mp.WriteBufferBytes
			}
			break
		}
		if co, ok := d.(model.CacheOption); ok {
			set[engineopt.Join(e, co.CacheOption())] = mp.CacheBytes
		}
		// The kv engines' index build sorts in memory of its own: as
		// much as the cache (SQLite's sorter lives in its page cache),
		// so the build stays inside the limit.
		if has["index_build_memory"] {
			if _, given := engineopt.Scoped(opts).Given(e, "index_build_memory"); !given {
				v := max(mp.CacheBytes, 64<<10)
				opts[engineopt.Join(e, "index_build_memory")] = strconv.FormatInt(v, 10)
				set[engineopt.Join(e, "index_build_memory")] = v
			}
		}
		if !limitGiven && d.Kind() == model.Embedded {
			if p.PerEngine == nil {
				p.PerEngine = map[string]int64{}
			}
			var own int64
			if o, ok := d.(model.OwnMemory); ok {
				own = o.OwnMemoryBytes()
			}
			n := mp.LimitFor(wb, own)
			p.PerEngine[e] = n
			set[e+".memory_limit"] = n
			most = max(most, n)
		}
	}
	if !limitGiven && most > 0 {
		p.Limit = strconv.FormatInt(most, 10)
	}
	return set
}

// CacheConfig is what run.json's config records about the budget.
func CacheConfig(b *membudget.Budget) results.CacheConfig {
	return results.CacheConfig{Bytes: b.Bytes, From: b.From, Overrides: b.Overrides, Fitted: b.Fitted}
}

// BudgetServers gives each managed server the run's cache (its own
// setting, managed.CacheSetting), unless a --server-opt set it, which
// is recorded as the engine's override.
func BudgetServers(b *membudget.Budget, list []string, settings map[string][]managed.Setting) {
	for _, e := range list {
		key := managed.CacheSetting(e)
		if key == "" {
			continue
		}
		given := false
		for _, s := range settings[e] {
			if s.Key == key {
				given = true
				if b.Overrides == nil {
					b.Overrides = map[string]string{}
				}
				b.Overrides[e] = "--server-opt " + key + "=" + s.Value
			}
		}
		if !given {
			settings[e] = append(settings[e], managed.Setting{Key: key, Value: managed.CacheValue(e, b.Bytes)})
		}
	}
}
