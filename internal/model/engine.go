package model

import (
	"context"
	"errors"
	"fmt"
)

// Family classifies an engine's storage structure (the R/U/M trade it makes).
type Family string

const (
	LSM       Family = "LSM"
	BTree     Family = "B-tree"
	CoWBTree  Family = "copy-on-write B-tree"
	HeapBTree Family = "heap + B-tree"
	NoFamily  Family = "none (client ceiling)"
)

// Kind says how an engine runs.
type Kind string

const (
	Embedded Kind = "embedded"
	Server   Kind = "server"
)

// Option is an engine setting accepted through --engine-opt key=value.
type Option struct {
	Key     string
	Default string
	Help    string
}

// Config is what an engine is opened with.
type Config struct {
	// DataDir is the engine's own directory (embedded engines, managed servers).
	DataDir string
	// DSN addresses a server (server engines).
	DSN string
	// Database is the database a server engine works in: created when
	// missing and kept after the run (dropped only with the engine's
	// drop_database=true).
	Database string
	// Options are --engine-opt settings, already checked against Driver.Options.
	Options map[string]string
	// ReadOnly opens existing data for reading (rumbench verify): the
	// engine creates nothing (no database, data dir, catalog or file) and
	// changes nothing it can avoid changing; data that is not there is
	// ErrNoData.
	ReadOnly bool
}

// ErrNoData is matched (errors.Is) by a ReadOnly Open that finds no
// rumbench data: no database, data dir or catalog (NoDataError).
var ErrNoData = errors.New("no rumbench data")

// NoDataError marks err as ErrNoData, keeping its message and its chain.
func NoDataError(err error) error {
	if err == nil {
		return nil
	}
	return &markedError{err, ErrNoData}
}

// ErrSetup is matched (errors.Is) by Open failures that the user's input
// causes and can fix: a server that cannot be reached, refused credentials,
// a missing privilege, a data dir that is not a writable directory. The CLI
// reports them as bad input (exit 2).
var ErrSetup = errors.New("engine set-up error")

// SetupError marks err as ErrSetup, keeping its message and its chain.
func SetupError(err error) error {
	if err == nil {
		return nil
	}
	return &markedError{err, ErrSetup}
}

// markedError reads as err and matches mark as well as err's chain.
type markedError struct{ err, mark error }

func (e *markedError) Error() string        { return e.err.Error() }
func (e *markedError) Unwrap() error        { return e.err }
func (e *markedError) Is(target error) bool { return target == e.mark }

// Driver describes an engine and opens it. Engines register a Driver with
// package engine, like database/sql drivers.
type Driver interface {
	Name() string
	Family() Family
	Kind() Kind
	// Description is one line for `rumbench engines`.
	Description() string
	// Options lists the accepted --engine-opt keys with defaults.
	Options() []Option
	// Available returns nil when the engine can run on this machine, or an
	// error saying why not and how to fix it.
	Available() error
	// Open opens (creating if needed) the engine.
	Open(ctx context.Context, cfg Config) (DB, error)
}

// ServerAddress is implemented by server engines: the address a DSN (""
// for the engine's default: its environment variable, else the local
// server) reaches, for a reachability probe (`rumbench engines`) and for
// messages. It connects to nothing and never returns a password.
type ServerAddress interface {
	ServerAddress(dsn string) (network, address string, err error)
}

// ConnectionRoom is implemented by server engines: how many more
// connections cfg's user may open on the server now (its limit less those
// in use), and the figures it comes from, for messages
// ("max_connections 100, 97 in use").
type ConnectionRoom interface {
	ConnectionRoom(ctx context.Context, cfg Config) (room int, figures string, err error)
}

// ConfigValidator is implemented by drivers that can check a configuration
// without opening anything: option values and, for server engines, the form
// of the DSN. cfg.Options holds the defaults overlaid with the user's
// settings (as engine.CheckOptions returns them); cfg.DSN is as given (empty
// means the driver's default). Callers run it before any engine starts, so a
// bad value is refused up front instead of when its engine's turn comes.
type ConfigValidator interface {
	ValidateConfig(cfg Config) error
}

// Info describes an opened engine for run.json.
type Info struct {
	Name     string            `json:"name"`
	Family   Family            `json:"family"`
	Kind     Kind              `json:"kind"`
	Version  string            `json:"version"`
	Settings map[string]string `json:"settings"`
	// ConfigDiff is what the engine runs with that differs from its
	// defaults, read back from the engine (ConfigDiffer; the plumbing every
	// run sets, such as ports and paths, left out); nil when the engine
	// cannot say or the bundle predates it.
	ConfigDiff *ConfigDiff `json:"config_diff,omitempty"`
	// Note flags results that need a caveat (the null engine's "client ceiling").
	Note string `json:"note,omitempty"`
	// UpdateCaveat flags results of concurrent row updates (hot rows) that
	// rumbench, not the engine, isolates: Pebble has no transactions, so
	// the kv layer's lock table serialises updates of a row.
	UpdateCaveat string `json:"update_caveat,omitempty"`
	// Memory is the engine's effective memory configuration, read back
	// from the engine after it opened (MemoryReporter).
	Memory *Memory `json:"memory,omitempty"`
}

// Memory is what an engine says it runs with: its main cache and its write
// buffers, each with where the figure came from. The budget fields say what
// the run asked for (--cache-size) and whether the engine got it.
type Memory struct {
	// CacheBytes is the main cache: block cache, buffer pool,
	// shared_buffers, WiredTiger cache, SQLite's page cache summed over its
	// connections; -1 when the engine has no cache of its own.
	CacheBytes  int64  `json:"cache_bytes"`
	CacheSource string `json:"cache_source"`
	// WriteBufferBytes is the memory for writes beside the cache
	// (memtables, write buffers, log buffers); 0 with no source when the
	// engine has none that is sized apart.
	WriteBufferBytes  int64  `json:"write_buffer_bytes,omitempty"`
	WriteBufferSource string `json:"write_buffer_source,omitempty"`
	// BudgetBytes is the cache the run asked for; BudgetFrom says how it
	// was chosen ("--cache-size", "default", "--memory-limit", a preset).
	BudgetBytes int64  `json:"budget_bytes,omitempty"`
	BudgetFrom  string `json:"budget_from,omitempty"`
	// Override names the --engine-opt or --server-opt that set this
	// engine's cache instead of the budget.
	Override string `json:"override,omitempty"`
	// Caveat says why the cache differs from the budget, for reports.
	Caveat string `json:"caveat,omitempty"`
}

// DefaultCacheSize is every engine's main cache when neither --cache-size
// nor an engine's own option sets it: MongoDB's smallest WiredTiger cache
// (docs/design.md, "One memory budget"). DefaultCacheBytes is the same.
const (
	DefaultCacheSize  = "256MB"
	DefaultCacheBytes = 256 << 20
)

// MemoryReporter is implemented by engines that can read back their
// effective cache and write-buffer sizes (from the engine, not the options
// they were given).
type MemoryReporter interface {
	Memory(ctx context.Context) (Memory, error)
}

// CacheOption is implemented by embedded engines' drivers: the
// --engine-opt key that sizes the engine's main cache, in bytes for the
// whole engine (over all its connections). --cache-size sets it.
type CacheOption interface {
	CacheOption() string
}

// OwnMemory is implemented by embedded engines' drivers: the memory the
// engine's process needs beside its cache and its write buffers (the
// engine's own structures, allocator slack, the Go runtime and rumbench's
// client), measured as the peak anonymous memory of its cgroup at the
// iobound preset less cache and write buffers (docs/design.md). Memory
// limits a preset sizes hold it, so every engine gets the same room for
// the page cache beyond its own needs.
type OwnMemory interface {
	OwnMemoryBytes() int64
}

// Durability is implemented by drivers of engines that `rumbench
// crashtest` can crash: CrashOptions returns the engine options under which
// each commit is durable before it returns (flushed to stable storage),
// or, with durable false, those of the engine's defaults under which it is
// not; ok is false when the engine has no such options (a server engine
// that is durable only by its server's settings has none for false). An
// engine without it keeps no data or has no managed server to kill.
type Durability interface {
	CrashOptions(durable bool) (opts map[string]string, ok bool)
}

// Buffer is one kind of large buffer an embedded engine allocates beside
// its main cache: Count of them at once, each sized by the engine option
// Option (in bytes; its default and smallest size are the option's), for
// What (as messages name it: "memtables", "index build sort").
type Buffer struct {
	Option string
	Count  int
	What   string
	// Min is the smallest size the option takes.
	Min int64
}

// LargeBuffers is implemented by embedded engines' drivers with large
// buffers beside the main cache (CacheOption) and their own memory
// (OwnMemory): a memory limit holds them too (internal/membudget). An
// engine whose cache is the whole of its memory (WiredTiger's holds its
// dirty pages; SQLite's page cache holds its sorter) declares only what
// lies outside it.
type LargeBuffers interface {
	LargeBuffers() []Buffer
}

// NoCache is implemented by drivers of engines without a cache of their
// own; it says where their reads are cached instead.
type NoCache interface {
	NoCache() string
}

// DB is an opened engine. Its methods are safe for concurrent use; per-worker
// work goes through a Conn.
type DB interface {
	Info() Info
	// CreateTable creates t with its primary key only (no secondary indexes),
	// replacing any table of the same name. The schema is recorded so that
	// Tables can return it later.
	CreateTable(ctx context.Context, t *Table) error
	// DropTable removes t and its indexes.
	DropTable(ctx context.Context, t *Table) error
	// CreateIndexes builds t.Indexes over the rows already in t.
	CreateIndexes(ctx context.Context, t *Table) error
	// Tables returns the schemas of the tables rumbench created, with the
	// secondary indexes that have been built.
	Tables(ctx context.Context) ([]*Table, error)
	// Conn opens a connection (session) for one worker.
	Conn(ctx context.Context) (Conn, error)
	// Size is the engine's own idea of its size in bytes (-1 when unknown).
	Size(ctx context.Context) (int64, error)
	Close() error
}

// ScanSpec describes an ordered index read.
type ScanSpec struct {
	// Index is the position in Table.Indexes, or -1 for the primary key.
	Index int
	// Lower, when non-empty, is a prefix of the index's columns (values in
	// index column order): the scan starts at the first entry >= Lower when
	// ascending, or the last entry whose prefix <= Lower when descending.
	Lower Row
	// Limit bounds the entries read; 0 means all.
	Limit int
	// Desc scans in descending order.
	Desc bool
	// Upper, when set, bounds the scan on both ends: Lower and Upper have
	// the same length n and equal values in their first n-1 columns (an
	// equality prefix), and the scan reads the entries with that prefix
	// whose n-th column lies in [Lower[n-1], Upper[n-1]] (both inclusive),
	// ascending from the low end or, with Desc, descending from the high
	// end (LinkBench's get_link_list: id1, link_type and visibility equal,
	// time in a range, newest first).
	Upper Row
	// Cols, when not nil, lists the positions in the projection
	// (t.IndexColumns(Index)) that fn reads; an engine may then leave the
	// projection's other positions unset (their values are unspecified) and
	// skip decoding them. nil means fn reads every column; an empty, non-nil
	// slice (NoCols) that it reads none (it counts the entries). It changes
	// neither which entries are read nor their order.
	Cols []int
}

// NoCols is ScanSpec.Cols for a scan whose callback reads no column.
var NoCols = []int{}

// CheckRange checks a bounded range (spec.Upper set) against an index of
// ncols columns (len(t.IndexColumns(spec.Index))) and returns an error
// naming what is wrong. Engines call it so that every one refuses the same
// specs.
func CheckRange(t *Table, ncols int, spec ScanSpec) error {
	if spec.Upper == nil {
		return nil
	}
	n := len(spec.Upper)
	if n == 0 || len(spec.Lower) != n {
		return fmt.Errorf("scan %s: a bounded range needs Lower and Upper of the same non-zero length (got %d and %d)", t.Name, len(spec.Lower), n)
	}
	if n > ncols {
		return fmt.Errorf("scan %s: bound has %d values, the index %d columns", t.Name, n, ncols)
	}
	for i := 0; i < n-1; i++ {
		a, b := spec.Lower[i], spec.Upper[i]
		if a.Int != b.Int || string(a.Bytes) != string(b.Bytes) {
			return fmt.Errorf("scan %s: Lower and Upper differ in bound column %d of %d (only the last may be a range)", t.Name, i+1, n)
		}
	}
	return nil
}

// ChangeOp says how a Change applies.
type ChangeOp int

const (
	// Set replaces the column's value.
	Set ChangeOp = iota
	// Add adds Value.Int to an Int column.
	Add
)

// Change is one column change of an Update.
type Change struct {
	Col   int
	Op    ChangeOp
	Value Value
}

// Ops are the per-table operations of design §3. Each call is one transaction
// unless made on a Tx.
type Ops interface {
	// Insert inserts rows (full rows, PK included) in one transaction. A
	// row whose primary key is already in the table, or twice in rows, is
	// an error wrapping ErrDuplicateKey, and nothing is inserted (engines
	// may offer an option to skip the check; see each engine's options).
	Insert(ctx context.Context, t *Table, rows []Row) error
	// DeleteOldest deletes the n rows with the smallest primary keys at or
	// above from, with their index entries, and returns how many it
	// deleted: DELETE ... WHERE pk >= from ORDER BY pk LIMIT n. from holds
	// a prefix of the PK columns in PK order (like ScanSpec.Lower); empty
	// means the table's start. The caller tracks the bound (the workload
	// knows which rows it deleted), so every engine does the same bounded
	// delete and none keeps hidden state about where the last one stopped.
	DeleteOldest(ctx context.Context, t *Table, from Row, n int) (int, error)
	// Get fetches rows by primary key (each key holds the PK columns in PK
	// order) and calls fn with each full row found. It returns the number found.
	Get(ctx context.Context, t *Table, keys []Row, fn func(Row)) (int, error)
	// Scan reads entries of an index in order and calls fn with the covering
	// projection (columns t.IndexColumns(spec.Index), in that order) until fn
	// returns false or the limit is reached. It returns the entries read.
	Scan(ctx context.Context, t *Table, spec ScanSpec, fn func(Row) bool) (int, error)
	// Update applies changes to the row with primary key pk, keeping indexes
	// consistent, and reports whether the row existed.
	Update(ctx context.Context, t *Table, pk Row, changes []Change) (bool, error)
	// Delete deletes the row with primary key pk (PK columns in PK order),
	// with its index entries, and reports whether it existed.
	Delete(ctx context.Context, t *Table, pk Row) (bool, error)
	// Upsert inserts row (a full row) or, when a row with its primary key
	// exists, applies changes to that row instead, atomically: INSERT ...
	// ON CONFLICT DO UPDATE. Changes must not touch PK columns.
	Upsert(ctx context.Context, t *Table, row Row, changes []Change) error
}

// Conn is one worker's connection. It is not safe for concurrent use.
type Conn interface {
	Ops
	Close() error
}

// KernelWaiter is implemented by connections that can wait for the
// server's replies blocked in a system call, holding their thread, rather
// than parked in Go's netpoller (internal/engine/sql/blockconn).
// BlocksInKernel reports whether this one does now: a worker that owns it
// then waits for other workers in the kernel too (internal/handoff), so
// its goroutine never parks between statements.
type KernelWaiter interface {
	BlocksInKernel() bool
}

// BlocksInKernel reports whether c waits for replies blocked in a system
// call (see KernelWaiter).
func BlocksInKernel(c Conn) bool {
	k, ok := c.(KernelWaiter)
	return ok && k.BlocksInKernel()
}

// Tx is a multi-operation transaction (optional capability, see Transactor).
type Tx interface {
	Ops
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Transactor is implemented by connections that run several operations in
// one transaction (LinkBench, hot rows).
type Transactor interface {
	Begin(ctx context.Context) (Tx, error)
}

// StatsReporter is implemented by engines that expose their own statistics
// (compaction, cache, stalls), captured at each step end.
type StatsReporter interface {
	Stats(ctx context.Context) (map[string]any, error)
}

// RetryReporter is implemented by engines that run a write again themselves
// when the engine rolled it back to make progress (WiredTiger's WT_ROLLBACK
// under cache pressure or a write conflict, RocksDB's Busy, TryAgain or lock
// TimedOut): the retried unit is one a retry cannot get wrong (a blind
// batch, or a transaction re-run whole from its reads), so the caller never
// sees the error. Retries counts them since the engine was opened; each
// step reports its share (results.DetailEngineRetries).
type RetryReporter interface {
	Retries() int64
}

// Maintainer is implemented by engines with a maintenance action worth timing
// between steps (vacuum, flush, compaction).
type Maintainer interface {
	Maintain(ctx context.Context) error
}

// ProcessOwner is implemented by server engines: the server's main pid and
// data directory, for the system metrics sampler. Pid 0 means unknown.
type ProcessOwner interface {
	ServerProcess(ctx context.Context) (pid int, dataDir string, err error)
}

// DatabaseDirOwner is implemented by server engines that can name the
// directory of rumbench's database's own files inside the server's data dir
// (PostgreSQL base/<oid>, MariaDB <datadir>/<name>): the on-disk footprint
// the sampler can measure on a server rumbench does not manage, whose data
// dir also holds other databases. "" when the engine keeps no such dir.
type DatabaseDirOwner interface {
	DatabaseDir(ctx context.Context) (string, error)
}

// ErrDuplicateKey is wrapped by the error of an Insert that would create a
// second row with the same primary key, or with the same values of a unique
// secondary index. errors.Is recognises it on every engine.
var ErrDuplicateKey = errors.New("duplicate key")

// ErrNotSupported is returned by optional operations an engine lacks.
var ErrNotSupported = errors.New("operation not supported by this engine")
