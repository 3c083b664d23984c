// Package pebble is the "pebble" engine: CockroachDB's Pebble LSM tree
// (pure Go, embedded) under the kv table layer.
package pebble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	pdb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

const modulePath = "github.com/cockroachdb/pebble/v2"

func init() { engine.Register(Driver{}) }

// Driver is the pebble model.Driver.
type Driver struct{}

// Name implements model.Driver.
func (Driver) Name() string { return "pebble" }

// Family implements model.Driver.
func (Driver) Family() model.Family { return model.LSM }

// Kind implements model.Driver.
func (Driver) Kind() model.Kind { return model.Embedded }

// Description implements model.Driver.
func (Driver) Description() string {
	return "Pebble LSM key-value store (CockroachDB's, pure Go), embedded. " + updateCaveat
}

// updateCaveat says who isolates concurrent updates of a row on pebble.
const updateCaveat = "Pebble has no transactions: concurrent updates of a row, in transactions or not, are serialised by rumbench's own row locks (kv layer), not by the engine"

// Options implements model.Driver.
func (Driver) Options() []model.Option { return optionTable(&settings{}).Options() }

// Available implements model.Driver: pebble is compiled in.
func (Driver) Available() error { return nil }

type settings struct {
	kv                      kv.Config // the kv layer's own options (unique_check)
	cacheSize, memtableSize int64
	sync                    bool
	compression             string
	l0Threshold, maxComp    int
	bloomBits               int
	transactions            string
}

// optionTable declares pebble's options, parsed into s.
func optionTable(s *settings) engineopt.Table {
	return append(engineopt.Table{
		engineopt.Size(&s.cacheSize, "cache_size", model.DefaultCacheSize, "block cache size in bytes (plain bytes or with a unit: 64MB, 1GiB; units are 1024-based); --cache-size sets it"),
		engineopt.SizeIn(&s.memtableSize, "memtable_size", "64MB", "size of one memtable (writes stall when 2 are full and flushing); below 4GB", 64<<10, 4<<30-1, "a size from 64KB to below 4GB"),
		engineopt.Bool(&s.sync, "sync", "false", "fsync the WAL at every commit (true: durable against power loss and process crashes); with the default false a commit returns before Pebble has written its WAL record to the OS, so a process crash can lose the last commits (rumbench crashtest --durable=false measured 100-200 of ~50000 rows)"),
		engineopt.Choice(&s.compression, "compression", "snappy", "sstable block compression: none, snappy or zstd", "none", "snappy", "zstd"),
		engineopt.Int(&s.l0Threshold, "l0_compaction_threshold", "4", "L0 read amplification (sublevels) that triggers an L0 compaction", 1, 1000),
		engineopt.Int(&s.bloomBits, "bloom_bits_per_key", "10", "bits per key of the sstable bloom filters, on every level (0: none, Pebble's own default); like RocksDB's, they spare a Get of an absent key (the insert's unique check) a block read per level", 0, 64),
		engineopt.Int(&s.maxComp, "max_concurrent_compactions", "2", "compactions that may run at once (Pebble's own default is 1)", 1, 64),
		engineopt.Choice(&s.transactions, "transactions", "row_locks", "how transactions (LinkBench's, hot rows' with --rows-per-tx) are isolated, by the kv layer, Pebble having none: row_locks runs them at once, each locking the rows it writes until it ends (waiting up to "+kv.RowLockWait.String()+", a cycle of waits failing at once as a deadlock) and reading the latest commits, as RocksDB's TransactionDB does; serial runs one at a time (the only mode before this option; a run.json without it ran serial)", "row_locks", "serial"),
	}, kv.OptionTable(&s.kv)...)
}

func parseOptions(opts map[string]string) (settings, error) {
	var s settings
	err := optionTable(&s).Parse(opts)
	return s, err
}

// quietLogger drops Pebble's informational lines (they would interleave with
// rumbench's output) and keeps errors.
type quietLogger struct{}

func (quietLogger) Infof(string, ...interface{}) {}
func (quietLogger) Errorf(format string, args ...interface{}) {
	pdb.DefaultLogger.Errorf(format, args...)
}
func (quietLogger) Fatalf(format string, args ...interface{}) {
	pdb.DefaultLogger.Fatalf(format, args...)
}

// stallClock counts write stalls and their total duration.
type stallClock struct {
	mu     sync.Mutex
	count  int64
	total  time.Duration
	since  time.Time
	inside bool
}

func (c *stallClock) begin(pdb.WriteStallBeginInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count++
	if !c.inside {
		c.inside, c.since = true, time.Now()
	}
}

func (c *stallClock) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inside {
		c.total += time.Since(c.since)
		c.inside = false
	}
}

func (c *stallClock) read() (int64, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := c.total
	if c.inside {
		total += time.Since(c.since)
	}
	return c.count, total
}

// ValidateConfig checks the option values without opening anything.
func (Driver) ValidateConfig(cfg model.Config) error {
	_, err := parseOptions(cfg.Options)
	return err
}

var _ model.ConfigValidator = Driver{}

// Open implements model.Driver. cfg.Options have been merged with the
// defaults by engine.Open; missing keys take the defaults here too.
func (Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	s, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.DataDir == "" {
		return nil, errors.New("pebble needs a data dir")
	}
	st, err := openStore(filepath.Join(cfg.DataDir, "pebble"), s, cfg.ReadOnly)
	if err != nil {
		return nil, err
	}
	info := model.Info{
		Name:    "pebble",
		Family:  model.LSM,
		Kind:    model.Embedded,
		Version: kv.ModuleVersion(modulePath, "v2"),
		// Updates take the kv layer's row locks (the store is not a
		// kv.ConcurrentStore).
		UpdateCaveat: updateCaveat,
		Settings: map[string]string{
			"cache_size":                 strconv.FormatInt(s.cacheSize, 10),
			"memtable_size":              strconv.FormatInt(s.memtableSize, 10),
			"sync":                       strconv.FormatBool(s.sync),
			"compression":                s.compression,
			"l0_compaction_threshold":    strconv.Itoa(s.l0Threshold),
			"max_concurrent_compactions": strconv.Itoa(s.maxComp),
			"bloom_bits_per_key":         strconv.Itoa(s.bloomBits),
			"transactions":               s.transactions,
		},
	}
	s.kv.RowLockedTx = s.transactions == "row_locks"
	if s.kv.RowLockedTx {
		info.Settings["lock_timeout_ms"] = strconv.Itoa(int(kv.RowLockWait / time.Millisecond))
		info.Settings["deadlock_detect"] = "true"
	}
	s.kv.Record(info.Settings)
	d, err := kv.Open(kv.WrapStore(ctx, st), info, s.kv)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("pebble: %w", err)
	}
	return &DB{DB: d, st: st}, nil
}

// openStore opens (creating if needed) the store in dir; readOnly opens an
// existing one in Pebble's read-only mode: no flush of the replayed WAL, no
// compaction, no format upgrade.
func openStore(dir string, s settings, readOnly bool) (*store, error) {
	st := &store{wo: pdb.NoSync, fail: &failure{}}
	if s.sync {
		st.wo = pdb.Sync
	}
	cache := pdb.NewCache(s.cacheSize)
	defer cache.Unref() // the DB holds its own reference
	st.cache = cache
	opts := &pdb.Options{
		Cache:                 cache,
		MemTableSize:          uint64(s.memtableSize),
		L0CompactionThreshold: s.l0Threshold,
		FormatMajorVersion:    pdb.FormatNewest,
		Logger:                quietLogger{},
		EventListener: &pdb.EventListener{
			WriteStallBegin: st.stalls.begin,
			WriteStallEnd:   st.stalls.end,
		},
	}
	maxComp := s.maxComp
	opts.CompactionConcurrencyRange = func() (int, int) { return 1, maxComp }
	if s.l0Threshold > 12 {
		// Pebble requires the stop threshold (default 12) >= the trigger.
		opts.L0StopWritesThreshold = s.l0Threshold
	}
	var profile *sstable.CompressionProfile
	switch s.compression {
	case "none":
		profile = sstable.NoCompression
	case "zstd":
		profile = sstable.ZstdCompression
	default:
		profile = sstable.SnappyCompression
	}
	for i := range opts.Levels {
		opts.Levels[i].Compression = func() *sstable.CompressionProfile { return profile }
		if s.bloomBits > 0 {
			opts.Levels[i].FilterPolicy = bloom.FilterPolicy(s.bloomBits)
		}
	}
	// The defaults Open would fill in, filled here so Memory can read them.
	opts.EnsureDefaults()
	opts.ReadOnly = readOnly
	if readOnly {
		// Pebble names its manifest in marker.manifest.* (CURRENT in
		// older formats); neither: nothing was ever written here.
		m, _ := filepath.Glob(filepath.Join(dir, "marker.manifest.*"))
		if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err != nil && len(m) == 0 {
			return nil, model.NoDataError(fmt.Errorf("pebble: %s holds no pebble store: give the data dir of a pebble run", filepath.Dir(dir)))
		}
	}
	db, err := pdb.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open pebble in %s: %w", dir, err)
	}
	st.db = db
	st.view = &view{db: db}
	st.memtable, st.memtables = opts.MemTableSize, opts.MemTableStopWritesThreshold
	st.opts, st.dir = opts, dir // for the bulk path's SSTs (bulk.go)
	return st, nil
}

// DB is the pebble engine: the kv table layer plus Pebble's statistics and
// manual compaction.
type DB struct {
	*kv.DB
	st *store
}

var (
	_ model.StatsReporter  = (*DB)(nil)
	_ model.Maintainer     = (*DB)(nil)
	_ model.Quiescer       = (*DB)(nil)
	_ model.MemoryReporter = (*DB)(nil)
	_ model.CacheOption    = Driver{}
)

// CacheOption implements model.CacheOption.
func (Driver) CacheOption() string { return "cache_size" }

// OwnMemoryBytes implements model.OwnMemory: 37 MB peak anonymous memory
// at the iobound preset (pad 256, 3 indexes) less 5.6 MB cache and two
// 8 MB memtables is 15.4 MB; rounded up with room for growth.
func (Driver) OwnMemoryBytes() int64 { return 20 << 20 }

// Memory implements model.MemoryReporter: the capacity of the block cache
// Pebble was opened with, and its memtables (writes stall when
// MemTableStopWritesThreshold of them are full).
func (d *DB) Memory(context.Context) (model.Memory, error) {
	return model.Memory{
		CacheBytes:        d.st.cache.MaxSize(),
		CacheSource:       "pebble Cache.MaxSize() of the DB's block cache",
		WriteBufferBytes:  int64(d.st.memtable) * int64(d.st.memtables),
		WriteBufferSource: fmt.Sprintf("pebble Options.MemTableSize %d x MemTableStopWritesThreshold %d", d.st.memtable, d.st.memtables),
	}, nil
}

// Stats implements model.StatsReporter with Pebble's own counters
// (cumulative since open).
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	m := d.st.db.Metrics()
	total := m.Total()
	stalls, stallTime := d.st.stalls.read()
	levels := make([]map[string]any, 0, len(m.Levels))
	for i := range m.Levels {
		l := &m.Levels[i]
		if l.TablesCount == 0 && l.TableBytesIn == 0 && l.TableBytesCompacted == 0 {
			continue
		}
		levels = append(levels, map[string]any{
			"level":            i,
			"files":            l.TablesCount,
			"bytes":            l.TablesSize,
			"score":            l.Score,
			"bytes_in":         l.TableBytesIn,
			"bytes_flushed":    l.TableBytesFlushed,
			"bytes_compacted":  l.TableBytesCompacted,
			"bytes_read":       l.TableBytesRead,
			"tables_compacted": l.TablesCompacted,
		})
	}
	return map[string]any{
		"compactions":              m.Compact.Count,
		"compaction_seconds":       m.Compact.Duration.Seconds(),
		"compaction_debt_bytes":    m.Compact.EstimatedDebt,
		"compactions_in_progress":  m.Compact.NumInProgress,
		"compaction_bytes_read":    total.TableBytesRead,
		"compaction_bytes_written": total.TableBytesCompacted,
		"flushes":                  m.Flush.Count,
		"flush_bytes_written":      total.TableBytesFlushed,
		"write_amp":                total.WriteAmp(),
		"read_amp":                 m.ReadAmp(),
		"l0_files":                 m.Levels[0].TablesCount,
		"l0_sublevels":             m.Levels[0].Sublevels,
		"memtable_bytes":           m.MemTable.Size,
		"memtables":                m.MemTable.Count,
		"wal_bytes_in":             m.WAL.BytesIn,
		"wal_bytes_written":        m.WAL.BytesWritten,
		"write_stalls":             stalls,
		"write_stall_seconds":      stallTime.Seconds(),
		"block_cache_bytes":        m.BlockCache.Size,
		"block_cache_hits":         m.BlockCache.Hits,
		"block_cache_misses":       m.BlockCache.Misses,
		"disk_usage_bytes":         m.DiskSpaceUsage(),
		"levels":                   levels,
	}, nil
}

// Maintain implements model.Maintainer: flush the memtable, as MyRocks'
// maintenance does, so the query steps start from SST files. It does not
// force a full compaction: that would erase the shape the churn steps built
// and is not what the reference does between its write and query steps.
func (d *DB) Maintain(ctx context.Context) error {
	if d.Closed() {
		return errors.New("engine is closed")
	}
	if err := d.st.db.Flush(); err != nil {
		return fmt.Errorf("pebble flush: %w", err)
	}
	return nil
}

// Quiesce implements model.Quiescer: it waits until Pebble runs no flush
// and no compaction, read from its metrics twice in a row (a compaction
// that ends schedules the next one before it returns, so one reading of
// zero is already the end; two guard against reading between them). The
// compaction debt is recorded, not waited for: Pebble starts no compaction
// while its levels are within their targets.
func (d *DB) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	zeros := 0
	w, err := model.WaitIdle(ctx, "pebble flushes and compactions in progress (Metrics().Flush/Compact.NumInProgress)",
		"none running at two readings in a row", func(context.Context) (bool, string, error) {
			m := d.st.db.Metrics()
			running := m.Flush.NumInProgress + m.Compact.NumInProgress
			if running == 0 {
				zeros++
			} else {
				zeros = 0
			}
			return zeros >= 2, fmt.Sprintf("%d flushes, %d compactions running, compaction debt %d bytes",
				m.Flush.NumInProgress, m.Compact.NumInProgress, m.Compact.EstimatedDebt), nil
		})
	return []model.QuiesceWait{w}, err
}

// ---- kv.Store on Pebble ----

type store struct {
	db     *pdb.DB
	wo     *pdb.WriteOptions
	fail   *failure
	view   *view
	stalls stallClock
	// cache is the block cache the DB was opened with; memtable and
	// memtables are the options after Open filled in Pebble's defaults.
	cache     *pdb.Cache
	memtable  uint64
	memtables int
	opts      *pdb.Options
	dir       string
}

func (s *store) NewView() (kv.View, error) { return s.view, nil }

func (s *store) NewBatch() kv.Batch { return &batch{b: s.db.NewBatch(), wo: s.wo, fail: s.fail} }

// txnPool recycles txn wrappers (one per read-modify-write operation).
var txnPool = sync.Pool{New: func() any { return new(txn) }}

func (s *store) Begin(readOwnWrites bool) (kv.Txn, error) {
	t := txnPool.Get().(*txn)
	*t = txn{db: s.db, wo: s.wo, fail: s.fail, indexed: readOwnWrites}
	if readOwnWrites {
		t.b = s.db.NewIndexedBatch()
	} else {
		t.b = s.db.NewBatch()
	}
	return t, nil
}

func (s *store) DeleteRange(start, end []byte) error { return s.db.DeleteRange(start, end, s.wo) }

// Size is Pebble's live size: its live tables and blob files, plus the
// live data of its WAL files, which is where the memtables' rows are
// stored until a flush writes them to tables. Obsolete and zombie files,
// recycled or preallocated WAL space and the MANIFEST are not counted
// (DiskSpaceUsage, in the statistics, counts them).
func (s *store) Size() (int64, error) {
	m := s.db.Metrics()
	return int64(m.Table.Local.LiveSize + m.BlobFiles.Local.LiveSize + m.WAL.Size), nil
}

func (s *store) Close() error {
	if err := s.fail.get(); err != nil {
		// Pebble's commit pipeline is stuck after the panic: closing
		// would wait on it forever. The process releases the files.
		return err
	}
	return s.db.Close()
}

// pebbleReader is what *pdb.DB and an indexed *pdb.Batch both offer.
type pebbleReader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pdb.IterOptions) (*pdb.Iterator, error)
}

func get(r pebbleReader, key, dst []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pdb.ErrNotFound) {
		return dst[:0], false, nil
	}
	if err != nil {
		return dst[:0], false, err
	}
	dst = append(dst[:0], v...)
	return dst, true, closer.Close()
}

// iterOptsPool saves an allocation per iterator: Pebble copies the options
// (the bounds stay the caller's).
var iterOptsPool = sync.Pool{New: func() any { return new(pdb.IterOptions) }}

func newIter(r pebbleReader, lower, upper []byte) (kv.Iter, error) {
	o := iterOptsPool.Get().(*pdb.IterOptions)
	o.LowerBound, o.UpperBound = lower, upper
	it, err := r.NewIter(o)
	*o = pdb.IterOptions{}
	iterOptsPool.Put(o)
	if err != nil {
		return nil, err
	}
	return it, nil
}

// view reads the DB directly: every Get and iterator sees the latest state.
type view struct{ db *pdb.DB }

func (v *view) Get(key, dst []byte) ([]byte, bool, error)    { return get(v.db, key, dst) }
func (v *view) NewIter(lower, upper []byte) (kv.Iter, error) { return newIter(v.db, lower, upper) }
func (v *view) Close() error                                 { return nil }

type batch struct {
	b    *pdb.Batch
	wo   *pdb.WriteOptions
	fail *failure
}

func (b *batch) Set(key, value []byte) error { return b.b.Set(key, value, nil) }
func (b *batch) Delete(key []byte) error     { return b.b.Delete(key, nil) }
func (b *batch) Len() int                    { return int(b.b.Count()) }
func (b *batch) Reset()                      { b.b.Reset() }
func (b *batch) Close() error                { return b.b.Close() }
func (b *batch) Commit() error {
	err := b.fail.commit(b.b, b.wo)
	b.b.Reset()
	return err
}

// txn is a batch; indexed when it must read its own writes.
type txn struct {
	db      *pdb.DB
	b       *pdb.Batch
	wo      *pdb.WriteOptions
	fail    *failure
	indexed bool
}

func (t *txn) reader() pebbleReader {
	if t.indexed {
		return t.b
	}
	return t.db
}

func (t *txn) Get(key, dst []byte) ([]byte, bool, error)    { return get(t.reader(), key, dst) }
func (t *txn) NewIter(lower, upper []byte) (kv.Iter, error) { return newIter(t.reader(), lower, upper) }
func (t *txn) Set(key, value []byte) error                  { return t.b.Set(key, value, nil) }
func (t *txn) Delete(key []byte) error                      { return t.b.Delete(key, nil) }
func (t *txn) Rollback() error {
	err := t.b.Close()
	t.release()
	return err
}

func (t *txn) Commit() error {
	err := t.fail.commit(t.b, t.wo)
	if cerr := t.b.Close(); err == nil {
		err = cerr
	}
	t.release()
	return err
}

// release returns t to the pool; the kv layer never touches a finished Txn.
func (t *txn) release() {
	*t = txn{}
	txnPool.Put(t)
}
