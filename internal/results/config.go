package results

import (
	"encoding/json"
	"fmt"
)

// RunConfig is run.json's config: the settings a run was planned with
// (internal/plan fills it in). It is written by MarshalJSON alone, so every
// bundle records the same keys, in the same order, formatted alike.
type RunConfig struct {
	// Workload is the workload's name; WorkloadConfig, its own settings,
	// is recorded under that name.
	Workload       string
	WorkloadConfig any
	Preset         string
	Engines        []string
	EngineOpts     map[string]string
	IntervalS      float64
	RatePercentile float64
	// SteadyState is --steady-state as given; omitted when unset.
	SteadyState string
	// CooldownS is --cooldown; omitted when zero.
	CooldownS float64
	// StepPauseS is --step-pause; omitted when zero.
	StepPauseS float64
	// SweepCell names the sweep cell a run is; omitted outside a sweep.
	SweepCell string
	// Local is what a run of `rumbench run` records beside the above; a
	// sweep cell's run.json has none of it.
	Local *LocalConfig
}

// LocalConfig is the part of run.json's config only `rumbench run` records.
type LocalConfig struct {
	OpTimeoutS float64
	// DataDir is --data-dir as given ("" for a temporary one).
	DataDir  string
	Database string
	DSNGiven bool
	Managed  *ManagedConfig
	Memory   *MemoryConfig
	// PresetMemory are the settings a memory preset sized (engine.key →
	// bytes); nil without one.
	PresetMemory map[string]int64
	CacheSize    CacheConfig
}

// ManagedConfig records the private servers a run started (--managed).
type ManagedConfig struct {
	Engines    []string `json:"engines"`
	KeepData   bool     `json:"keep_data"`
	ServerOpts []string `json:"server_opts"`
}

// MemoryConfig records the memory limits and cache dropping of a run.
type MemoryConfig struct {
	DropCaches bool `json:"drop_caches,omitempty"`
	// LimitBytes is one limit (int64) or a limit per engine
	// (map[string]int64).
	LimitBytes any `json:"memory_limit_bytes,omitempty"`
	// LimitScope says what the limit applies to when not each engine.
	LimitScope string `json:"memory_limit_scope,omitempty"`
}

// CacheConfig records the run's cache budget (internal/membudget).
type CacheConfig struct {
	Bytes     int64             `json:"bytes"`
	From      string            `json:"from"`
	Overrides map[string]string `json:"overrides,omitempty"`
	// Fitted are the large buffers (engine.key -> bytes) --memory-limit
	// shrank so that the engine fits it.
	Fitted map[string]int64 `json:"fitted,omitempty"`
}

// MarshalJSON writes the config as one object with sorted keys, the shape
// run.json has always had.
func (c RunConfig) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"workload": c.Workload, "preset": c.Preset, "engines": c.Engines, "engine_opts": c.EngineOpts,
		"interval_s": c.IntervalS, "rate_percentile": c.RatePercentile,
	}
	if c.Workload != "" {
		m[c.Workload] = c.WorkloadConfig
	}
	if c.SteadyState != "" {
		m["steady_state"] = c.SteadyState
	}
	if c.CooldownS > 0 {
		m["cooldown_s"] = c.CooldownS
	}
	if c.StepPauseS > 0 {
		m["step_pause_s"] = c.StepPauseS
	}
	if c.SweepCell != "" {
		m["sweep_cell"] = c.SweepCell
	}
	if l := c.Local; l != nil {
		m["op_timeout_s"] = l.OpTimeoutS
		m["data_dir"] = l.DataDir
		m["database"] = l.Database
		m["dsn_given"] = l.DSNGiven
		m["managed"] = l.Managed
		m["memory"] = l.Memory
		m["preset_memory"] = l.PresetMemory
		m["cache_size"] = l.CacheSize
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a config MarshalJSON wrote; the workload's own
// settings stay raw JSON.
func (c *RunConfig) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	get := func(key string, v any) error {
		raw, ok := m[key]
		if !ok {
			return nil
		}
		delete(m, key)
		if err := json.Unmarshal(raw, v); err != nil {
			return fmt.Errorf("config.%s: %w", key, err)
		}
		return nil
	}
	*c = RunConfig{}
	var local LocalConfig
	_, isLocal := m["op_timeout_s"]
	for _, f := range []struct {
		key string
		v   any
	}{
		{"workload", &c.Workload}, {"preset", &c.Preset}, {"engines", &c.Engines}, {"engine_opts", &c.EngineOpts},
		{"interval_s", &c.IntervalS}, {"rate_percentile", &c.RatePercentile}, {"steady_state", &c.SteadyState},
		{"cooldown_s", &c.CooldownS}, {"step_pause_s", &c.StepPauseS}, {"sweep_cell", &c.SweepCell},
		{"op_timeout_s", &local.OpTimeoutS}, {"data_dir", &local.DataDir}, {"database", &local.Database},
		{"dsn_given", &local.DSNGiven}, {"managed", &local.Managed}, {"memory", &local.Memory},
		{"preset_memory", &local.PresetMemory}, {"cache_size", &local.CacheSize},
	} {
		if err := get(f.key, f.v); err != nil {
			return err
		}
	}
	if isLocal {
		c.Local = &local
	}
	if raw, ok := m[c.Workload]; ok && c.Workload != "" {
		c.WorkloadConfig = raw
		delete(m, c.Workload)
	}
	for k := range m {
		return fmt.Errorf("config: unknown key %q", k)
	}
	return nil
}
