// Package membudget gives every engine of a run the same main cache
// (--cache-size): it sets each embedded engine's cache option (a managed
// server's cache setting is its flavor's, internal/managed), and judges what the engines read back
// against the budget. Nothing here opens an engine.
package membudget

import (
	"fmt"
	"strconv"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
	"rumbench/internal/units"
)

// Sizes --cache-size accepts: WiredTiger refuses a cache under 1 MB, and
// no engine here can use more than 1 TB.
const (
	MinBytes = 1 << 20
	MaxBytes = 1 << 40
)

// Budget is the run's one cache size.
type Budget struct {
	Bytes int64
	// From says how it was chosen: "--cache-size", "default", or what
	// sized it ("--memory-limit 512MB", "preset iobound").
	From string
	// Overrides are the engines whose cache the user set apart
	// (--engine-opt or --server-opt), with the setting as given.
	Overrides map[string]string
	// Fitted are the large buffers a memory limit shrank (FitLimit):
	// engine.key -> bytes.
	Fitted map[string]int64
}

// Parse reads a --cache-size value.
func Parse(s string) (int64, error) {
	n, err := engineopt.ParseSize("cache-size", s)
	if err != nil || n < MinBytes || n > MaxBytes {
		return 0, fmt.Errorf("--cache-size %q: want a size from 1MB to 1TB, such as 256MB or 2GB", s)
	}
	return n, nil
}

// FromLimit is the cache a memory limit leaves for every engine: half of
// what remains after the process allowance, as MongoDB sizes WiredTiger's
// cache (50% of RAM less 1 GB) and InnoDB's guidance leaves room for
// memory outside the buffer pool. The other half covers write buffers, the
// engine's own memory beside its cache and the page cache of the files it
// writes.
func FromLimit(limit, process int64) int64 {
	return max((limit-process)/2, MinBytes)
}

// ApplyEngineOpts sets, for each embedded engine with a cache option, the
// option "engine.key" to the budget, unless the user set "key" or
// "engine.key" (recorded in b.Overrides).
func (b *Budget) ApplyEngineOpts(engines []string, opts map[string]string) {
	for _, e := range engines {
		d, err := engine.Lookup(e)
		if err != nil {
			continue
		}
		co, ok := d.(model.CacheOption)
		if !ok {
			continue
		}
		key := co.CacheOption()
		if written, given := engineopt.Scoped(opts).Given(e, key); given {
			b.override(e, "--engine-opt "+written)
			continue
		}
		opts[engineopt.Join(e, key)] = strconv.FormatInt(b.Bytes, 10)
	}
}

func (b *Budget) override(engine, how string) {
	if b.Overrides == nil {
		b.Overrides = map[string]string{}
	}
	b.Overrides[engine] = how
}

// Judge fills m's budget fields for an engine and returns a warning line
// when an engine rumbench does not manage runs with another cache than the
// budget (nothing is changed on such a server; the report carries the
// caveat). managed says whether rumbench set the engine's cache (an
// embedded engine, or a managed server).
func (b *Budget) Judge(name string, m *model.Memory, managed bool) (warning string) {
	m.BudgetBytes, m.BudgetFrom = b.Bytes, b.From
	if how, ok := b.Overrides[name]; ok {
		m.Override = how
		if m.CacheBytes != b.Bytes {
			m.Caveat = fmt.Sprintf("%s runs with a %s cache set by %s, not the run's %s (%s)", name, Size(m.CacheBytes), how, Size(b.Bytes), b.From)
		}
		return ""
	}
	switch {
	case m.CacheBytes < 0:
		m.Caveat = m.CacheSource
		return ""
	case m.CacheBytes == b.Bytes:
		return ""
	case !managed:
		m.Caveat = fmt.Sprintf("%s's server runs with a %s cache (%s), not the run's %s: rumbench does not change a server it does not manage", name, Size(m.CacheBytes), m.CacheSource, Size(b.Bytes))
		return fmt.Sprintf("WARNING: %s: the server's cache is %s (%s), --cache-size is %s: results are not comparable with engines given %s; run it with --managed, or set the server's cache to %s", name, Size(m.CacheBytes), settingName(m.CacheSource), Size(b.Bytes), Size(b.Bytes), Size(b.Bytes))
	default:
		// The engine rounded what it was given (InnoDB to its chunk
		// size); say so rather than hide it.
		m.Caveat = fmt.Sprintf("%s rounded its cache to %s (asked %s)", name, Size(m.CacheBytes), Size(b.Bytes))
		return ""
	}
}

// settingName is the last word of a cache source ("postgres pg_settings
// shared_buffers" -> "shared_buffers").
func settingName(source string) string {
	f := strings.Fields(source)
	if len(f) == 0 {
		return source
	}
	return strings.TrimPrefix(f[len(f)-1], "@@")
}

// Size writes bytes as the flag takes them (units.Bytes).
func Size(n int64) string { return units.Bytes(n) }

// Choice is what a run's flags say about memory.
type Choice struct {
	// Flag is --cache-size as given; Given says it was given.
	Flag  string
	Given bool
	// PresetCache is the cache a preset sizes (0: none), PresetName the
	// preset.
	PresetCache int64
	PresetName  string
	// Limit is --memory-limit in bytes (0: none), LimitText as given;
	// ProcessBytes is the allowance for the process beside the engine.
	Limit        int64
	LimitText    string
	ProcessBytes int64
}

// Choose picks the run's budget: --cache-size when given, else the cache a
// preset sizes, else the one --memory-limit leaves (FromLimit), else the
// default. The same for every engine.
func Choose(c Choice) (*Budget, error) {
	switch {
	case c.Given:
		n, err := Parse(c.Flag)
		if err != nil {
			return nil, err
		}
		return &Budget{Bytes: n, From: "--cache-size"}, nil
	case c.PresetCache > 0:
		return &Budget{Bytes: c.PresetCache, From: "preset " + c.PresetName}, nil
	case c.Limit > 0:
		return &Budget{Bytes: FromLimit(c.Limit, c.ProcessBytes), From: "--memory-limit " + c.LimitText}, nil
	}
	return &Budget{Bytes: model.DefaultCacheBytes, From: "default"}, nil
}

// ProcessBytes is what a memory limit allows beside an engine's cache and
// write buffers for the process itself (Go runtime, client buffers, dirty
// pages in flight).
const ProcessBytes = 24 << 20
