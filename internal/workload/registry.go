package workload

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/model"
	"rumbench/internal/results"
)

// Definition is a registered workload: everything the CLI needs to offer it
// (`rumbench run NAME`, `rumbench workloads`) without knowing it.
type Definition struct {
	Name string
	// Description is one line for `rumbench workloads` and help.
	Description string
	// Long and Example are the help text of `rumbench run NAME`.
	Long    string
	Example string
	// Presets lists the size presets; the first is the default.
	Presets []Preset
	// Flags adds the workload's own flags to fs and returns how to build a
	// run's configuration from them once parsed.
	Flags func(fs *pflag.FlagSet) Configurer
	// Report, when set, prints the workload's own view of the results at
	// the end of `rumbench run` instead of the generic step report.
	Report ReportFunc
	// Verify, when set, is what `rumbench verify --workload NAME` checks
	// besides the indexes: the workload's own invariants on db (e.g.
	// linkbench's counts). It prints what it checked to w and reports
	// whether everything held.
	Verify VerifyFunc
	// AdditiveDetails are the step Details keys whose numbers add up over
	// the shards of a sharded run (rows inserted, missed transactions);
	// `rumbench merge` sums them, keeps every other key whose value is the
	// same in all shards, and lists the keys that differ.
	AdditiveDetails []string
	// Table, when set, is the workload's own table that `rumbench report`
	// prints after the generic step tables (markdown), one row per run
	// named by labels[i].
	Table TableFunc
	// Sweeper, when set, lets `rumbench sweep NAME` run the workload over
	// a grid of cells (tables × clients × variants).
	Sweeper Sweeper
}

// TableFunc prints a workload's summary table of runs.
type TableFunc func(w io.Writer, labels []string, bundles []*results.Bundle) error

// VerifyFunc checks a workload's invariants on an opened engine.
type VerifyFunc func(ctx context.Context, db model.DB, w io.Writer) (ok bool, err error)

// Preset is a named run shape of a workload.
type Preset struct {
	Name        string
	Description string
	// Interval, when set, is the preset's measurement interval (used
	// when --interval is not given); 0: DefaultInterval.
	Interval time.Duration
	// StepIntervals are the steps the preset measures at an interval of
	// their own (without --interval), for help.
	StepIntervals map[string]time.Duration
}

// DefaultInterval is the measurement interval of a preset that sets none.
const DefaultInterval = time.Second

// RunInterval is the interval a run of the preset uses without --interval.
func (p Preset) RunInterval() time.Duration {
	if p.Interval > 0 {
		return p.Interval
	}
	return DefaultInterval
}

// Preset returns the workload's preset of that name.
func (d *Definition) Preset(name string) (Preset, bool) {
	for _, p := range d.Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// MemoryPreset is how a preset sizes engine memory: the engine's cache
// (cache_size, block_cache_size), its write buffers (memtable_size,
// write_buffer_size) and the memory limit of its cgroup (LimitFor).
type MemoryPreset struct {
	CacheBytes       int64
	WriteBufferBytes int64
	// RoomBytes is what the limit leaves every engine beyond its own
	// memory: page cache for the files it reads and writes, dirty pages in
	// flight. The same for every engine, so none gets more page cache to
	// make up for a small engine cache.
	RoomBytes int64
}

// LimitFor is the memory limit of an engine, the same rule for every one:
// its cache, two write buffers when it has them (one filling, one
// flushing), the memory the engine needs beside them (own:
// model.OwnMemory, measured per engine, Go runtime and client included),
// and the room.
func (m *MemoryPreset) LimitFor(hasWriteBuffers bool, own int64) int64 {
	n := m.CacheBytes + own + m.RoomBytes
	if hasWriteBuffers {
		n += 2 * m.WriteBufferBytes
	}
	return n
}

// Common are the settings every workload receives from the run command.
type Common struct {
	Preset   string
	Seed     int64
	Interval time.Duration
	// Warmup is how long time-bounded steps run before they are measured
	// (--warmup); workloads without time-bounded steps refuse it.
	Warmup time.Duration
	// Changed reports whether a flag was given explicitly (on the command
	// line or in --config), so a preset yields to it.
	Changed func(name string) bool
}

// Configurer validates the parsed flags and returns the run's
// configuration; its errors are the user's input (one line, exit 2).
type Configurer func(c Common) (*Configured, error)

// Configured is a validated workload configuration.
type Configured struct {
	// Config is recorded in run.json under the workload's name.
	Config any
	// Sizes are the settings that decide how much work a run does: reports
	// warn when runs compared differ in them.
	Sizes map[string]any
	// Banner is one line describing the run's shape.
	Banner string
	// New returns a fresh workload for each engine.
	New func() (Workload, error)
	// Memory, when set (the ibench iobound preset), sizes the engines'
	// caches and the memory limit; settings given explicitly win.
	Memory *MemoryPreset
}

// ReportFunc prints a workload's results of one run (bundles of its
// engines, in order; out is the run's results directory).
type ReportFunc func(w io.Writer, bundles []*results.Bundle, out string) error

var (
	regMu sync.RWMutex
	defs  = map[string]*Definition{}
)

// Register makes a workload available by name. It panics on a duplicate or
// incomplete definition, a programming error caught at start-up.
func Register(d *Definition) {
	regMu.Lock()
	defer regMu.Unlock()
	if d.Name == "" || d.Flags == nil || len(d.Presets) == 0 {
		panic("workload: Register needs a name, flags and at least one preset")
	}
	if _, dup := defs[d.Name]; dup {
		panic("workload: Register called twice for " + d.Name)
	}
	defs[d.Name] = d
}

// Lookup returns the named workload or an error listing the registered ones.
func Lookup(name string) (*Definition, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	if d, ok := defs[name]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("unknown workload %q: choose one of %s (see `rumbench workloads`)", name, strings.Join(namesLocked(), ", "))
}

// Names returns the registered workloads, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, 0, len(defs))
	for n := range defs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// PresetNames returns the workload's preset names, default first.
func (d *Definition) PresetNames() []string {
	out := make([]string, len(d.Presets))
	for i, p := range d.Presets {
		out[i] = p.Name
	}
	return out
}

// PresetHelpPrefix opens the help text's list of a preset-dependent flag's
// defaults (PresetDefaults); tests parse help by it.
const PresetHelpPrefix = "(default: from --preset: "

// PresetDefaults is the end of the help of a flag whose default comes from
// the preset: each preset's value, in the order of names, as the run would
// use it (value renders one preset's). Help generated from the presets
// cannot drift from what runs.
func PresetDefaults(names []string, value func(preset string) string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + value(n)
	}
	return PresetHelpPrefix + strings.Join(parts, ", ") + ")"
}
