package model

import "context"

// The concepts that mean the same on every engine, as names of
// Internals.Common (docs/metrics.md "The engine's own counters" says which
// counter of each engine feeds which name). Every one is cumulative.
const (
	// InternalCacheMiss: pages or blocks the engine read from outside its
	// own cache (they may still come from the OS page cache).
	InternalCacheMiss = "cache_miss"
	// InternalLogKB: KB appended to the engine's WAL, redo log or journal.
	InternalLogKB = "log_kb"
	// InternalBgWriteKB: KB the engine wrote in the background: compaction
	// and flush output of an LSM, checkpoint and page-cleaner writes of a
	// B-tree.
	InternalBgWriteKB = "bg_write_kb"
	// InternalFPI: full-page images written to the log (PostgreSQL).
	InternalFPI = "fpi"
	// InternalStallS: seconds writes were stalled or delayed by the engine
	// itself (write stalls of an LSM).
	InternalStallS = "stall_s"
)

// InternalNames are the common names in the order reports show them.
var InternalNames = []string{InternalCacheMiss, InternalLogKB, InternalBgWriteKB, InternalFPI, InternalStallS}

// Internals are an engine's own cumulative counters at one instant: Raw by
// the engine's own names (pg_stat_wal.wal_fpi, innodb_buffer_pool_reads,
// block_cache_misses), Common by the names above. A counter the engine does
// not have is absent, never zero. Scope says what they count when it is
// more than rumbench's own tables ("server": every database of the server).
type Internals struct {
	Raw    map[string]float64
	Common map[string]float64
	Scope  string
}

// InternalsReporter is implemented by engines whose own counters explain
// the device's figures; the runner reads them just before a step's clock
// starts and just after its end-of-step flush, and divides the difference
// by the step's main operations.
type InternalsReporter interface {
	Internals(ctx context.Context) (Internals, error)
}

// IntervalInternalsReporter is implemented by server engines whose counters
// can be read at every interval of a step: one round trip, no waiting for
// the server to flush them (so they may lag the server by up to its own
// reporting delay). An embedded engine's InternalsReporter is read per
// interval as it is: its counters are in the process.
type IntervalInternalsReporter interface {
	IntervalInternals(ctx context.Context) (Internals, error)
}
