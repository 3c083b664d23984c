package ibench

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"rumbench/internal/workload"
)

// Preset is a named set of sizes. Flags given explicitly override it.
type Preset struct {
	Name         string
	Description  string
	Clients      int
	Rows         int64
	ChurnRows    int64
	Indexes      int
	QuerySeconds float64
	// ChurnSeconds, when positive, runs l.i1 and l.i2 for that long each
	// instead of for ChurnRows.
	ChurnSeconds float64
	// Interval is the preset's measurement interval (0: --interval's
	// default, 1 s).
	Interval time.Duration
	// StepIntervals are shorter intervals for steps too short to span
	// enough of Interval on the fastest engine, chosen for the preset's
	// sizes and the same for every engine of a run; --interval replaces
	// them all (docs/design.md, The quick preset).
	StepIntervals map[string]time.Duration
	// IOBound sizes the engine cache and the memory limit from the rows
	// (IOBoundMemory), and a sweep runs 0 and 3 indexes by default.
	IOBound bool
}

// PresetOrder lists the presets as help and `rumbench workloads` show them,
// the default first.
var PresetOrder = []string{"quick", "small", "reference", "iobound"}

// Steps are the steps a run of the preset does when --steps is not given.
func (p Preset) Steps() []string {
	var out []string
	for _, s := range DefaultSteps {
		// A first look: the query steps at 100 and 1000 rows/s show what
		// the writers' rate does to the queries; the 500 rows/s pair in
		// between repeats them and would cost 20 s per engine.
		if p.Name == "quick" && (s == StepQR500 || s == StepQP500) {
			continue
		}
		out = append(out, s)
	}
	if p.Name == "small" || p.Name == "reference" {
		// The longer presets end with the full index scans, as the
		// published runs do.
		out = append(out, StepScan)
	}
	return out
}

// Presets are the named run shapes.
var Presets = map[string]Preset{
	"quick": {
		// 1M rows per client, 100k churn rows per client, measured at
		// 200 ms, the three short write steps at less (l.i0 100 ms,
		// l.i1 125 ms, l.i2 50 ms), so that every
		// step spans at least 5 intervals on the fastest engine and an
		// interval holds at least 8 of the slowest engine's transactions
		// (docs/design.md, The quick preset; presets_test.go holds the
		// measured rates). The query steps' paced writers are judged
		// over their batch period.
		Name: "quick", Description: "seconds per step: a first look and CI (query steps at 100 and 1000 rows/s only, unless --steps says otherwise)",
		Clients: 2, Rows: 1_000_000, ChurnRows: 100_000, Indexes: 3, QuerySeconds: 10,
		Interval:      200 * time.Millisecond,
		StepIntervals: map[string]time.Duration{StepLoad: 100 * time.Millisecond, StepChurnBig: 125 * time.Millisecond, StepChurnSmall: 50 * time.Millisecond},
	},
	"iobound": {
		Name: "iobound", Description: "minutes: 1 client, 400k rows, the 3 secondary indexes ~5x the engine cache (5.6 MB), each engine in a memory cgroup of its cache, write buffers and own memory + 16 MB (needs root); see docs/design.md#the-iobound-preset-the-scaling-rule",
		Clients: 1, Rows: 400_000, ChurnRows: 100_000, Indexes: 3, QuerySeconds: 20, IOBound: true,
	},
	"small": {
		Name: "small", Description: "minutes: a data set that still fits in memory",
		Clients: 2, Rows: 2_000_000, ChurnRows: 1_000_000, Indexes: 3, QuerySeconds: 120,
	},
	"reference": {
		Name: "reference", Description: "hours: the published shape (8 clients, tens of millions of rows each, 1800 s query steps)",
		Clients: 8, Rows: 20_000_000, ChurnRows: 40_000_000, Indexes: 3, QuerySeconds: 1800,
	},
}

// LookupPreset returns the named preset or a one-line error listing them.
func LookupPreset(name string) (Preset, error) {
	p, ok := Presets[name]
	if !ok {
		var names []string
		for n := range Presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return Preset{}, fmt.Errorf("unknown --preset %q: choose one of %s", name, strings.Join(names, ", "))
	}
	return p, nil
}

// IndexBytesPerRow is about what the three secondary indexes of one row
// take on disk (SQLite: ~70 B; the LSMs compress to less): the iobound
// preset's sizing unit (docs/design.md).
const IndexBytesPerRow = 70

// IOBoundFactor is how many times the engine cache the three secondary
// indexes are in the iobound preset.
const IOBoundFactor = 5

// IOBoundMemory sizes the engine for an IO-bound load of rows rows per
// client: the cache holds 1/5 of the three indexes; the write buffers
// (memtables) are half the cache but at least 8 MB (smaller ones turn an
// LSM's load into a stream of tiny flushes and L0 compactions, which is not
// the IO-bound case); each engine's cgroup limit is its cache, two write
// buffers if it has them, the memory it needs beside them, and 16 MB of
// room (workload.MemoryPreset.LimitFor), so the page cache cannot hold the
// index pages the engine cache does not.
func IOBoundMemory(rows int64, clients int) *workload.MemoryPreset {
	cache := max(rows*int64(clients)*IndexBytesPerRow/IOBoundFactor, 1<<20)
	return &workload.MemoryPreset{CacheBytes: cache, WriteBufferBytes: max(cache/2, 8<<20), RoomBytes: IOBoundRoom}
}

// IOBoundRoom is the iobound limit's room beyond each engine's own memory.
const IOBoundRoom = 16 << 20

// StepIntervalsNote says, for help, which steps of which presets have an
// interval of their own unless --interval is given.
func StepIntervalsNote() string {
	var parts []string
	for _, n := range PresetOrder {
		if m := Presets[n].StepIntervals; len(m) > 0 {
			parts = append(parts, n+" "+workload.StepIntervalsHelp(m))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "(steps with an interval of their own unless --interval is given: " + strings.Join(parts, "; ") + ") "
}

// StepInterval is step's measurement interval in a run of the preset
// without --interval.
func (p Preset) StepInterval(step string) time.Duration {
	if d, ok := p.StepIntervals[step]; ok {
		return d
	}
	return p.RunInterval()
}

// RunInterval is the measurement interval of a run of the preset without
// --interval.
func (p Preset) RunInterval() time.Duration {
	return workload.Preset{Interval: p.Interval}.RunInterval()
}
