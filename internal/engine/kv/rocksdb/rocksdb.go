//go:build rocksdb

package rocksdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/linxGnu/grocksdb"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

const modulePath = "github.com/linxGnu/grocksdb"

func init() { engine.Register(Driver{}) }

// Driver is the rocksdb model.Driver.
type Driver struct{}

// Name implements model.Driver.
func (Driver) Name() string { return "rocksdb" }

// Family implements model.Driver.
func (Driver) Family() model.Family { return model.LSM }

// Kind implements model.Driver.
func (Driver) Kind() model.Kind { return model.Embedded }

// Description implements model.Driver.
func (Driver) Description() string {
	return "RocksDB LSM key-value store (librocksdb through cgo), embedded"
}

var compressions = []string{"none", "snappy", "lz4", "zstd"}

// Options implements model.Driver.
func (Driver) Options() []model.Option { return optionTable(&settings{}).Options() }

// lockTimeoutMS is how long a pessimistic transaction waits for a row lock
// (TransactionDB's default, and MyRocks' rocksdb_lock_wait_timeout).
const (
	lockTimeoutMS   = 1000
	lockTimeoutText = "1 s"
)

// Available implements model.Driver: librocksdb is linked in.
func (Driver) Available() error { return nil }

type settings struct {
	kv                              kv.Config // the kv layer's own options (unique_check)
	cacheSize, writeBuffer          int64
	compression, bottommost         string
	sync, disableWAL, directReads   bool
	backgroundJobs, bloomBitsPerKey int
	optimistic, cfPerIndex          bool
}

// optionTable declares rocksdb's options, parsed into s.
func optionTable(s *settings) engineopt.Table {
	return append(engineopt.Table{
		engineopt.Size(&s.cacheSize, "block_cache_size", model.DefaultCacheSize, "LRU block cache size in bytes (plain bytes or with a unit: 64MB, 1GiB; units are 1024-based); --cache-size sets it"),
		engineopt.SizeIn(&s.writeBuffer, "write_buffer_size", "64MB", "size of one memtable", 64<<10, math.MaxInt64, "at least 64KB"),
		engineopt.Choice(&s.compression, "compression", "snappy", "SST block compression: none, snappy, lz4 or zstd", compressions...),
		engineopt.Choice(&s.bottommost, "bottommost_compression", "same", "compression of the bottommost level: same (as compression), none, snappy, lz4 or zstd", append([]string{"same"}, compressions...)...),
		engineopt.Bool(&s.sync, "sync", "false", "fsync the WAL at every commit (true: durable against power loss); the default false writes the WAL to the OS at every commit, durable against a process crash"),
		engineopt.Bool(&s.disableWAL, "disable_wal", "false", "write no WAL (unflushed memtables are lost on any crash)"),
		engineopt.Bool(&s.directReads, "use_direct_reads", "false", "read SST files with O_DIRECT, bypassing the OS page cache"),
		engineopt.Int(&s.backgroundJobs, "max_background_jobs", "2", "flushes and compactions that may run at once", 1, 256),
		engineopt.Int(&s.bloomBitsPerKey, "bloom_bits_per_key", "10", "bits per key of the SST bloom filters (0: none)", 0, 100),
		engineopt.Bool(&s.cfPerIndex, "column_family_per_index", "false", "false: every table and index in the default column family, as MyRocks does by default; true: a column family per table (primary key) and per secondary index, each with its own memtable and SSTs (fixed when the data dir is created)"),
		engineopt.Func("transactions", "pessimistic", "concurrency control of row updates, by RocksDB: pessimistic (TransactionDB: an update locks its row, waiting up to "+lockTimeoutText+", as MyRocks) or optimistic (OptimisticTransactionDB: a commit fails if its row changed since it was read, and is retried)", func(raw string) error {
			mode, err := engineopt.ParseChoice("transactions", raw, "pessimistic", "optimistic")
			s.optimistic = mode == "optimistic"
			return err
		}),
	}, kv.OptionTable(&s.kv)...)
}

func parseOptions(opts map[string]string) (settings, error) {
	var s settings
	if err := optionTable(&s).Parse(opts); err != nil {
		return s, err
	}
	if s.sync && s.disableWAL {
		return s, errors.New("engine options sync=true and disable_wal=true conflict: sync applies to the WAL")
	}
	return s, nil
}

func compressionType(name string) grocksdb.CompressionType {
	switch name {
	case "none":
		return grocksdb.NoCompression
	case "lz4":
		return grocksdb.LZ4Compression
	case "zstd":
		return grocksdb.ZSTDCompression
	}
	return grocksdb.SnappyCompression
}

// ValidateConfig checks the option values without opening anything.
func (Driver) ValidateConfig(cfg model.Config) error {
	_, err := parseOptions(cfg.Options)
	return err
}

var _ model.ConfigValidator = Driver{}

// Open implements model.Driver.
func (Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	s, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.DataDir == "" {
		return nil, errors.New("rocksdb needs a data dir")
	}
	st, err := openStore(filepath.Join(cfg.DataDir, "rocksdb"), s, cfg.ReadOnly)
	if err != nil {
		return nil, err
	}
	bottom := s.bottommost
	if bottom == "same" {
		bottom = s.compression
	}
	info := model.Info{
		Name:    "rocksdb",
		Family:  model.LSM,
		Kind:    model.Embedded,
		Version: rocksdbVersion() + " (grocksdb " + kv.ModuleVersion(modulePath, "v1.7.15") + ")",
		Settings: map[string]string{
			"block_cache_size":        strconv.FormatInt(s.cacheSize, 10),
			"write_buffer_size":       strconv.FormatInt(s.writeBuffer, 10),
			"compression":             s.compression,
			"bottommost_compression":  bottom,
			"sync":                    strconv.FormatBool(s.sync),
			"disable_wal":             strconv.FormatBool(s.disableWAL),
			"use_direct_reads":        strconv.FormatBool(s.directReads),
			"max_background_jobs":     strconv.Itoa(s.backgroundJobs),
			"bloom_bits_per_key":      strconv.Itoa(s.bloomBitsPerKey),
			"transactions":            "pessimistic",
			"column_family_per_index": strconv.FormatBool(st.perIndex),
			"lock_timeout_ms":         strconv.Itoa(lockTimeoutMS),
			"deadlock_detect":         "true",
		},
	}
	if s.optimistic {
		info.Settings["transactions"] = "optimistic"
		delete(info.Settings, "lock_timeout_ms")
		delete(info.Settings, "deadlock_detect")
	}
	s.kv.Record(info.Settings)
	var kst kv.Store = st
	if st.perIndex {
		kst = (*cfStore)(st)
	}
	d, err := kv.Open(kv.WrapStore(ctx, kst), info, s.kv)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("rocksdb: %w", err)
	}
	return &DB{DB: d, st: st}, nil
}

// openStore opens (creating if needed) the store in dir as a TransactionDB;
// readOnly opens an existing one with RocksDB's read-only open (a plain DB:
// reads only, no flush, compaction or new MANIFEST).
func openStore(dir string, s settings, readOnly bool) (*store, error) {
	st := &store{dir: dir}
	st.cache = grocksdb.NewLRUCache(uint64(s.cacheSize))
	st.bbto = grocksdb.NewDefaultBlockBasedTableOptions()
	st.bbto.SetBlockCache(st.cache)
	if s.bloomBitsPerKey > 0 {
		st.bbto.SetFilterPolicy(grocksdb.NewBloomFilter(float64(s.bloomBitsPerKey)))
	}
	o := grocksdb.NewDefaultOptions()
	st.opts = o
	o.SetCreateIfMissing(!readOnly)
	o.SetBlockBasedTableFactory(st.bbto)
	o.SetWriteBufferSize(uint64(s.writeBuffer))
	o.SetCompression(compressionType(s.compression))
	if s.bottommost != "same" {
		o.SetBottommostCompression(compressionType(s.bottommost))
	}
	o.SetUseDirectReads(s.directReads)
	o.SetMaxBackgroundJobs(s.backgroundJobs)
	// The info LOG would otherwise grow by a stats dump every 10 minutes
	// and a line per flush and compaction; Stats reads the same numbers.
	o.SetInfoLogLevel(grocksdb.WarnInfoLogLevel)
	o.SetKeepLogFileNum(2)
	// Tickers (stall time, bytes per path) for Stats.
	o.EnableStatistics()
	st.wo = grocksdb.NewDefaultWriteOptions()
	st.wo.SetSync(s.sync)
	st.wo.DisableWAL(s.disableWAL)
	st.ro = grocksdb.NewDefaultReadOptions()
	// Row updates are isolated by RocksDB's transactions (kv.ConcurrentStore):
	// txnOpts begin the Begin transactions, from a snapshot so that a
	// write to a key changed since then fails (Busy); updOpts begin
	// BeginUpdate's, which read the latest value under the key's lock
	// (pessimistic) or check it at commit (optimistic).
	// Every column family of the data dir is opened; keyspace ones exist
	// only if column_family_per_index was true when it was created.
	names, err := grocksdb.ListColumnFamilies(o, dir)
	if readOnly && (err != nil || len(names) == 0) {
		st.destroyOptions()
		return nil, model.NoDataError(fmt.Errorf("rocksdb: %s holds no rocksdb store: give the data dir of a rocksdb run", filepath.Dir(dir)))
	}
	if err != nil || len(names) == 0 {
		names = []string{"default"} // a new data dir
	}
	cfOpts := make([]*grocksdb.Options, len(names))
	for i := range cfOpts {
		cfOpts[i] = o
	}
	var handles []*grocksdb.ColumnFamilyHandle
	switch {
	case readOnly:
		db, hs, err := grocksdb.OpenDbForReadOnlyColumnFamilies(o, dir, names, cfOpts, false)
		if err != nil {
			st.destroyOptions()
			return nil, fmt.Errorf("open rocksdb in %s read-only: %w", dir, err)
		}
		st.db, handles = db, hs
	case s.optimistic:
		st.oTxnOpts = grocksdb.NewDefaultOptimisticTransactionOptions()
		st.oTxnOpts.SetSetSnapshot(true)
		st.oUpdOpts = grocksdb.NewDefaultOptimisticTransactionOptions()
		odb, hs, err := grocksdb.OpenOptimisticTransactionDbColumnFamilies(o, dir, names, cfOpts)
		if err != nil {
			st.destroyOptions()
			return nil, fmt.Errorf("open rocksdb in %s: %w", dir, err)
		}
		st.odb, st.db, handles = odb, odb.GetBaseDB(), hs
	default:
		st.tdbOpts = grocksdb.NewDefaultTransactionDBOptions()
		st.tdbOpts.SetTransactionLockTimeout(lockTimeoutMS)
		// Deadlock detection: a lock cycle between transactions (which
		// the kv layer's Txs can form, as InnoDB's do) fails one at once
		// with Busy ("Deadlock"), not after the lock timeout.
		st.txnOpts = grocksdb.NewDefaultTransactionOptions()
		st.txnOpts.SetSetSnapshot(true)
		st.txnOpts.SetDeadlockDetect(true)
		st.updOpts = grocksdb.NewDefaultTransactionOptions()
		st.updOpts.SetDeadlockDetect(true)
		tdb, hs, err := grocksdb.OpenTransactionDbColumnFamilies(o, st.tdbOpts, dir, names, cfOpts)
		if err != nil {
			st.destroyOptions()
			return nil, fmt.Errorf("open rocksdb in %s: %w", dir, err)
		}
		st.tdb, st.db, handles = tdb, baseDB(tdb), hs
	}
	st.cdb, st.cro = handle(st.db), handle(st.ro)
	spaces := map[uint64]*grocksdb.ColumnFamilyHandle{}
	for i, name := range names {
		if name == "default" {
			st.def = handles[i]
			st.cdef = handle(handles[i])
		} else if ks, ok := parseCFName(name); ok {
			spaces[ks] = handles[i]
		} else {
			st.others = append(st.others, handles[i])
		}
	}
	st.perIndex = s.cfPerIndex || len(spaces) > 0
	st.spaces.Store(&spaces)
	return st, nil
}

// cfPrefix starts the name of a keyspace's column family:
// rumbench-<table id>-<index id>-<table>.<index>.
const cfPrefix = "rumbench-"

func cfName(ks uint64, name string) string { return kv.KeyspaceName(cfPrefix, ks, name) }

func parseCFName(name string) (uint64, bool) { return kv.ParseKeyspaceName(cfPrefix, name) }

// route returns the keyspace of a kv key (table id << 8 | index id), or 0
// for the metadata (table id 0), which stays in the default column family.
func route(key []byte) uint64 {
	if len(key) < kv.KeyspacePrefixLen || binary.BigEndian.Uint32(key) == 0 {
		return 0
	}
	return uint64(binary.BigEndian.Uint32(key))<<8 | uint64(key[4])
}

// cf returns the column family of key: the default one, or with
// column_family_per_index its keyspace's. Keys are stored whole (prefix
// included) in either layout, as MyRocks keeps its index number in keys
// whatever column family holds them.
func (s *store) cf(key []byte) (*grocksdb.ColumnFamilyHandle, error) {
	if !s.perIndex {
		return s.def, nil
	}
	ks := route(key)
	if ks == 0 {
		return s.def, nil
	}
	if h := (*s.spaces.Load())[ks]; h != nil {
		return h, nil
	}
	return nil, fmt.Errorf("rocksdb: no column family for keyspace %d.%d (dropped, or never created)", ks>>8, ks&0xFF)
}

// ccf is cf's C handle.
func (s *store) ccf(key []byte) (unsafe.Pointer, error) {
	if !s.perIndex {
		return s.cdef, nil
	}
	h, err := s.cf(key)
	if err != nil {
		return nil, err
	}
	return handle(h), nil
}

// cfStore is a store with column_family_per_index: it implements
// kv.Keyspaces.
type cfStore store

var _ kv.Keyspaces = (*cfStore)(nil)

func (c *cfStore) NewView() (kv.View, error)          { return (*store)(c).NewView() }
func (c *cfStore) NewBatch() kv.Batch                 { return (*store)(c).NewBatch() }
func (c *cfStore) Begin(r bool) (kv.Txn, error)       { return (*store)(c).Begin(r) }
func (c *cfStore) BeginUpdate() (kv.UpdateTxn, error) { return (*store)(c).BeginUpdate() }
func (c *cfStore) DeleteRange(start, end []byte) error {
	return (*store)(c).DeleteRange(start, end)
}
func (c *cfStore) Size() (int64, error) { return (*store)(c).Size() }
func (c *cfStore) Close() error         { return (*store)(c).Close() }

// CreateKeyspace implements kv.Keyspaces: a column family per table's
// primary key and per secondary index.
func (c *cfStore) CreateKeyspace(prefix []byte, name string) error {
	s := (*store)(c)
	s.ddlMu.Lock()
	defer s.ddlMu.Unlock()
	ks := route(prefix)
	if ks == 0 || len(prefix) != kv.KeyspacePrefixLen {
		return fmt.Errorf("rocksdb: bad keyspace prefix %x", prefix)
	}
	old := *s.spaces.Load()
	if old[ks] != nil {
		return nil
	}
	// Through the TransactionDB, whose lock manager needs to know it.
	var h *grocksdb.ColumnFamilyHandle
	var err error
	if s.tdb != nil {
		h, err = s.tdb.CreateColumnFamily(s.opts, cfName(ks, name))
	} else {
		h, err = s.db.CreateColumnFamily(s.opts, cfName(ks, name))
	}
	if err != nil {
		return fmt.Errorf("rocksdb: create column family: %w", err)
	}
	m := make(map[uint64]*grocksdb.ColumnFamilyHandle, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[ks] = h
	s.spaces.Store(&m)
	return nil
}

// DB is the rocksdb engine: the kv table layer plus RocksDB's statistics and
// manual compaction.
type DB struct {
	*kv.DB
	st *store
}

var (
	_ model.StatsReporter = (*DB)(nil)
	_ model.Maintainer    = (*DB)(nil)
	_ model.Quiescer      = (*DB)(nil)
)

// intProperties are the numeric DB properties reported by Stats.
var intProperties = []string{
	"estimate-num-keys",
	"total-sst-files-size",
	"live-sst-files-size",
	"estimate-live-data-size",
	"estimate-pending-compaction-bytes",
	"num-running-compactions",
	"num-running-flushes",
	"compaction-pending",
	"mem-table-flush-pending",
	"actual-delayed-write-rate",
	"is-write-stopped",
	"cur-size-all-mem-tables",
	"num-immutable-mem-table",
	"block-cache-usage",
	"num-live-versions",
}

// dbWide are the properties that describe the whole DB, not a column
// family.
var dbWide = map[string]bool{"actual-delayed-write-rate": true, "is-write-stopped": true, "block-cache-usage": true, "num-running-compactions": true, "num-running-flushes": true}

// Stats implements model.StatsReporter: RocksDB's numeric properties, the
// compaction table of rocksdb.stats parsed per level, its stall counters,
// selected tickers, and the rocksdb.stats text itself (cumulative since
// open).
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	db := d.st.db
	out := map[string]any{}
	// Summed over the column families (with column_family_per_index the
	// properties are per column family; the DB-wide ones are the same in
	// each, so only the default one's is taken).
	cfs := d.st.allCFs()
	for _, p := range intProperties {
		if v, ok := db.GetIntPropertyCF("rocksdb."+p, cfs[0]); ok {
			if !dbWide[p] {
				for _, h := range cfs[1:] {
					w, _ := db.GetIntPropertyCF("rocksdb."+p, h)
					v += w
				}
			}
			out[p] = v
		}
	}
	if len(cfs) > 1 {
		out["column_families"] = len(cfs)
	}
	// The compaction table of the default column family only (the
	// metadata's, with column_family_per_index).
	text := db.GetProperty("rocksdb.stats")
	out["rocksdb.stats"] = text
	parseStats(text, out)
	parseTickers(d.st.opts.GetStatisticsString(), out)
	return out, nil
}

var (
	_ model.MemoryReporter = (*DB)(nil)
	_ model.CacheOption    = Driver{}
)

// CacheOption implements model.CacheOption.
func (Driver) CacheOption() string { return "block_cache_size" }

// OwnMemoryBytes implements model.OwnMemory: 56 MB peak anonymous memory
// at the iobound preset (pad 256, 3 indexes) less 5.6 MB cache and two
// 8 MB write buffers is 34.4 MB (table readers' index and filter blocks,
// compaction buffers, arena slack); rounded up with room for growth.
func (Driver) OwnMemoryBytes() int64 { return 40 << 20 }

// Memory implements model.MemoryReporter: the block cache's capacity as the
// DB reports it (rocksdb.block-cache-capacity), and the memtables: up to
// max_write_buffer_number of write_buffer_size per column family.
func (d *DB) Memory(context.Context) (model.Memory, error) {
	if d.Closed() {
		return model.Memory{}, errors.New("engine is closed")
	}
	m := model.Memory{CacheSource: "rocksdb property rocksdb.block-cache-capacity"}
	if v, ok := d.st.db.GetIntProperty("rocksdb.block-cache-capacity"); ok {
		m.CacheBytes = int64(v)
	} else {
		m.CacheBytes, m.CacheSource = int64(d.st.cache.GetCapacity()), "rocksdb Cache::GetCapacity() of the block cache"
	}
	size, n, cfs := d.st.opts.GetWriteBufferSize(), d.st.opts.GetMaxWriteBufferNumber(), len(d.st.allCFs())
	m.WriteBufferBytes = int64(size) * int64(n) * int64(cfs)
	m.WriteBufferSource = fmt.Sprintf("rocksdb options write_buffer_size %d x max_write_buffer_number %d x %d column families", size, n, cfs)
	return m, nil
}

// Maintain implements model.Maintainer: flush the memtables of every column
// family.
func (d *DB) Maintain(ctx context.Context) error {
	if d.Closed() {
		return errors.New("engine is closed")
	}
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	// A memtable flush, as MyRocks' and Pebble's maintenance: a full
	// compaction would erase the shape the churn steps built.
	for _, h := range d.st.allCFs() {
		if err := d.st.db.FlushCF(h, fo); err != nil {
			return fmt.Errorf("rocksdb flush: %w", err)
		}
	}
	return nil
}

// Quiesce implements model.Quiescer: it waits until RocksDB runs no flush
// or compaction and no column family has one pending (its properties
// num-running-flushes, num-running-compactions, mem-table-flush-pending and
// compaction-pending). A pending compaction is one RocksDB's own picker
// wants (a level over its target); nothing is forced.
func (d *DB) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	sum := func(p string, wide bool) uint64 {
		var v uint64
		for i, h := range d.st.allCFs() {
			if wide && i > 0 {
				break
			}
			w, _ := d.st.db.GetIntPropertyCF("rocksdb."+p, h)
			v += w
		}
		return v
	}
	w, err := model.WaitIdle(ctx, "rocksdb flushes and compactions (properties num-running-flushes, num-running-compactions, mem-table-flush-pending, compaction-pending)",
		"none running and none pending", func(context.Context) (bool, string, error) {
			rf, rc := sum("num-running-flushes", true), sum("num-running-compactions", true)
			pf, pc := sum("mem-table-flush-pending", false), sum("compaction-pending", false)
			debt := sum("estimate-pending-compaction-bytes", false)
			return rf+rc+pf+pc == 0, fmt.Sprintf("%d flushes, %d compactions running; %d flushes, %d compactions pending; %d bytes pending compaction",
				rf, rc, pf, pc, debt), nil
		})
	return []model.QuiesceWait{w}, err
}

// ---- kv.Store on RocksDB ----

type store struct {
	// db is the base DB of the (optimistic) TransactionDB: reads,
	// iterators, properties, flushes and compactions. Writes go through
	// write (the TransactionDB locks their keys) or a transaction.
	db       *grocksdb.DB
	tdb      *grocksdb.TransactionDB           // pessimistic, or
	odb      *grocksdb.OptimisticTransactionDB // optimistic
	tdbOpts  *grocksdb.TransactionDBOptions
	txnOpts  *grocksdb.TransactionOptions
	updOpts  *grocksdb.TransactionOptions
	oTxnOpts *grocksdb.OptimisticTransactionOptions
	oUpdOpts *grocksdb.OptimisticTransactionOptions
	opts     *grocksdb.Options
	bbto     *grocksdb.BlockBasedTableOptions
	cache    *grocksdb.Cache
	wo       *grocksdb.WriteOptions
	ro       *grocksdb.ReadOptions // for Gets: no bounds
	dir      string
	cdb      unsafe.Pointer // the C rocksdb_t
	cro      unsafe.Pointer // the C rocksdb_readoptions_t of ro

	// Free lists of C objects, reused so that an operation allocates
	// nothing in C or Go once warm (sync.Pool would drop them unfreed).
	mu      sync.Mutex
	freeRO  []*grocksdb.ReadOptions
	freeWB  []*grocksdb.WriteBatch
	freeTxn []*txn
	freeTx  []*grocksdb.Transaction // C transactions, reused by begin
	freeIt  []*iter

	// def is the default column family; with column_family_per_index
	// (perIndex) spaces maps each table's and index's keyspace to its own
	// (copy on write, under ddlMu). others are column families of no
	// keyspace, kept open only because RocksDB opens every one.
	def      *grocksdb.ColumnFamilyHandle
	cdef     unsafe.Pointer
	perIndex bool
	ddlMu    sync.Mutex
	spaces   atomic.Pointer[map[uint64]*grocksdb.ColumnFamilyHandle]
	others   []*grocksdb.ColumnFamilyHandle
}

var _ kv.ConcurrentStore = (*store)(nil)

// allCFs returns every open column family handle, the default first.
func (s *store) allCFs() []*grocksdb.ColumnFamilyHandle {
	out := []*grocksdb.ColumnFamilyHandle{s.def}
	for _, h := range *s.spaces.Load() {
		out = append(out, h)
	}
	return out
}

// maxFree bounds each free list; extra objects are destroyed.
const maxFree = 64

func (s *store) destroyOptions() {
	for _, o := range []interface{ Destroy() }{s.tdbOpts, s.txnOpts, s.updOpts, s.oTxnOpts, s.oUpdOpts} {
		if o != nil && !reflect.ValueOf(o).IsNil() {
			o.Destroy()
		}
	}
	s.ro.Destroy()
	s.wo.Destroy()
	s.opts.Destroy()
	s.bbto.Destroy()
	s.cache.Destroy()
}

func (s *store) NewView() (kv.View, error) { return (*view)(s), nil }

func (s *store) NewBatch() kv.Batch { return &batch{s: s, wb: s.getWB()} }

// write applies a batch through the TransactionDB, which locks its keys
// against pessimistic transactions (an optimistic one sees it at commit).
func (s *store) write(wb *grocksdb.WriteBatch) error {
	switch {
	case s.tdb != nil:
		return txnError(s.tdb.Write(s.wo, wb))
	case s.odb != nil:
		return txnError(s.odb.Write(s.wo, wb))
	}
	return errReadOnly
}

// errReadOnly is a write through a store opened read-only (verify).
var errReadOnly = errors.New("rocksdb: the store is open read-only")

// begin starts a RocksDB transaction, reusing a finished one.
func (s *store) begin(update bool) *txn {
	s.mu.Lock()
	var t *txn
	if n := len(s.freeTxn); n > 0 {
		t = s.freeTxn[n-1]
		s.freeTxn = s.freeTxn[:n-1]
	} else {
		t = &txn{s: s}
	}
	var old *grocksdb.Transaction
	if n := len(s.freeTx); n > 0 {
		old = s.freeTx[n-1]
		s.freeTx = s.freeTx[:n-1]
	}
	s.mu.Unlock()
	switch {
	case s.tdb != nil && update:
		t.tx = s.tdb.TransactionBegin(s.wo, s.updOpts, old)
	case s.tdb != nil:
		t.tx = s.tdb.TransactionBegin(s.wo, s.txnOpts, old)
	case update:
		t.tx = s.odb.TransactionBegin(s.wo, s.oUpdOpts, old)
	default:
		t.tx = s.odb.TransactionBegin(s.wo, s.oTxnOpts, old)
	}
	t.ctx = handle(t.tx)
	return t
}

// Begin starts a transaction from a snapshot: a write of a key that changed
// since then fails with a conflict (kv.ConcurrentStore). Its reads see its
// own writes whatever readOwnWrites asks.
func (s *store) Begin(readOwnWrites bool) (kv.Txn, error) {
	if s.tdb == nil && s.odb == nil {
		return nil, errReadOnly
	}
	return s.begin(false), nil
}

// BeginUpdate implements kv.ConcurrentStore.
func (s *store) BeginUpdate() (kv.UpdateTxn, error) {
	if s.tdb == nil && s.odb == nil {
		return nil, errReadOnly
	}
	return s.begin(true), nil
}

// DeleteRange writes a range tombstone to the base DB: TransactionDB
// batches cannot hold one, and the range is unreachable, so no transaction
// can hold a lock in it. With column_family_per_index the kv layer deletes
// whole keyspaces (kv.Keyspaces): their column families are dropped.
func (s *store) DeleteRange(start, end []byte) error {
	if s.perIndex {
		return s.dropSpaces(start, end)
	}
	wb := s.getWB()
	defer s.putWB(wb)
	wb.DeleteRange(start, end)
	return s.db.Write(s.wo, wb)
}

// dropSpaces drops the column families of the keyspaces in [start, end).
func (s *store) dropSpaces(start, end []byte) error {
	s.ddlMu.Lock()
	defer s.ddlMu.Unlock()
	old := *s.spaces.Load()
	m := make(map[uint64]*grocksdb.ColumnFamilyHandle, len(old))
	var drop []*grocksdb.ColumnFamilyHandle
	for ks, h := range old {
		p := binary.BigEndian.AppendUint32(nil, uint32(ks>>8))
		p = append(p, byte(ks))
		if bytes.Compare(p, start) >= 0 && bytes.Compare(p, end) < 0 {
			drop = append(drop, h)
		} else {
			m[ks] = h
		}
	}
	s.spaces.Store(&m)
	for _, h := range drop {
		var err error
		if s.tdb != nil {
			err = dropCF(s.tdb, h)
		} else {
			err = s.db.DropColumnFamily(h)
		}
		if err != nil {
			return fmt.Errorf("rocksdb: drop column family: %w", err)
		}
		// The handle is kept (not destroyed): an iterator opened before
		// the kv layer made the keyspace unreachable may still use it.
		s.others = append(s.others, h)
	}
	return nil
}

// Size is RocksDB's live size: the live SST and blob files of every
// column family (rocksdb.live-sst-files-size, rocksdb.live-blob-file-size)
// plus the WAL files, which hold the memtables' rows until a flush writes
// them to SSTs. SSTs a compaction made obsolete, MANIFEST, OPTIONS and the
// info LOG are not counted.
func (s *store) Size() (int64, error) {
	var n int64
	for _, h := range s.allCFs() {
		for _, p := range []string{"rocksdb.live-sst-files-size", "rocksdb.live-blob-file-size"} {
			v, _ := s.db.GetIntPropertyCF(p, h)
			n += int64(v)
		}
	}
	wal, err := walBytes(s.dir)
	if err != nil {
		return -1, err
	}
	return n + wal, nil
}

// walBytes sums the apparent sizes of the WAL files (NNNNNN.log) in dir.
func walBytes(dir string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return -1, fmt.Errorf("rocksdb: list WAL files: %w", err)
	}
	var n int64
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}

func (s *store) Close() error {
	s.mu.Lock()
	for _, tx := range s.freeTx {
		tx.Destroy()
	}
	s.freeTx = nil
	s.mu.Unlock()
	for _, h := range append(s.allCFs(), s.others...) {
		h.Destroy()
	}
	switch {
	case s.tdb != nil:
		freeBaseDB(s.db)
		s.tdb.Close()
	case s.odb != nil:
		s.odb.CloseBaseDB(s.db)
		s.odb.Close()
	default: // read-only
		s.db.Close()
	}
	s.mu.Lock()
	for _, ro := range s.freeRO {
		ro.Destroy()
	}
	for _, wb := range s.freeWB {
		wb.Destroy()
	}
	s.freeRO, s.freeWB = nil, nil
	s.mu.Unlock()
	s.destroyOptions()
	return nil
}

func (s *store) getWB() *grocksdb.WriteBatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.freeWB); n > 0 {
		wb := s.freeWB[n-1]
		s.freeWB = s.freeWB[:n-1]
		return wb
	}
	return grocksdb.NewWriteBatch()
}

func (s *store) putWB(wb *grocksdb.WriteBatch) {
	wb.Clear()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.freeWB) < maxFree {
		s.freeWB = append(s.freeWB, wb)
		return
	}
	wb.Destroy()
}

// newIter returns an iterator over [lower, upper), on the DB or, with tx,
// on the DB overlaid with the transaction's writes.
func (s *store) newIter(lower, upper []byte, tx *grocksdb.Transaction) (*iter, error) {
	cf, err := s.cf(lower)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	var ro *grocksdb.ReadOptions
	if n := len(s.freeRO); n > 0 {
		ro = s.freeRO[n-1]
		s.freeRO = s.freeRO[:n-1]
	}
	var it *iter
	if n := len(s.freeIt); n > 0 {
		it = s.freeIt[n-1]
		s.freeIt = s.freeIt[:n-1]
	} else {
		it = new(iter)
	}
	s.mu.Unlock()
	if ro == nil {
		ro = grocksdb.NewDefaultReadOptions()
	}
	// The options keep the bounds referenced until the iterator is closed;
	// the Store contract keeps the caller from changing them meanwhile.
	if lower != nil {
		ro.SetIterateLowerBound(lower)
	}
	if upper != nil {
		ro.SetIterateUpperBound(upper)
	}
	pos := it.pos
	if pos == nil {
		pos = newPos()
	}
	*it = iter{s: s, ro: ro, pos: pos, lower: lower, upper: upper}
	if tx != nil {
		it.it = tx.NewIteratorCF(ro, cf)
	} else {
		it.it = s.db.NewIteratorCF(ro, cf)
	}
	it.cit = handle(it.it)
	return it, nil
}

func (s *store) releaseIter(it *iter) {
	it.it.Close()
	ro := it.ro
	ro.SetIterateLowerBound(nil)
	ro.SetIterateUpperBound(nil)
	*it = iter{pos: it.pos}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.freeRO) < maxFree {
		s.freeRO = append(s.freeRO, ro)
		s.freeIt = append(s.freeIt, it)
		return
	}
	ro.Destroy()
}

// view reads the DB directly: every Get and iterator sees the latest state.
type view store

func (v *view) Get(key, dst []byte) ([]byte, bool, error) {
	s := (*store)(v)
	cf, err := s.ccf(key)
	if err != nil {
		return dst[:0], false, err
	}
	return cGet(s.cdb, cf, s.cro, key, dst)
}

func (v *view) NewIter(lower, upper []byte) (kv.Iter, error) {
	return (*store)(v).newIter(lower, upper, nil)
}

func (v *view) Close() error { return nil }

type batch struct {
	s  *store
	wb *grocksdb.WriteBatch
}

func (b *batch) Set(key, value []byte) error {
	cf, err := b.s.cf(key)
	if err == nil {
		b.wb.PutCF(cf, key, value)
	}
	return err
}

func (b *batch) Delete(key []byte) error {
	cf, err := b.s.cf(key)
	if err == nil {
		b.wb.DeleteCF(cf, key)
	}
	return err
}
func (b *batch) Len() int { return b.wb.Count() }
func (b *batch) Reset()   { b.wb.Clear() }

// Commit writes the batch. A write that lost to a transaction's lock or
// conflict (Busy, TryAgain, TimedOut: kv.ErrConflict) wrote nothing and
// keeps the batch, which the kv layer commits again (kv.Batch).
func (b *batch) Commit() error {
	err := b.s.write(b.wb)
	if err == nil || !errors.Is(err, kv.ErrConflict) {
		b.wb.Clear()
	}
	return err
}

func (b *batch) Close() error {
	if b.wb != nil {
		b.s.putWB(b.wb)
		b.wb = nil
	}
	return nil
}

// txn is a RocksDB transaction (pessimistic or optimistic).
type txn struct {
	s   *store
	tx  *grocksdb.Transaction
	ctx unsafe.Pointer // the C rocksdb_transaction_t
}

func (t *txn) Get(key, dst []byte) ([]byte, bool, error) {
	cf, err := t.s.ccf(key)
	if err != nil {
		return dst[:0], false, err
	}
	return cTxnGet(t.ctx, t.s.cro, cf, false, key, dst)
}

// GetForUpdate implements kv.UpdateTxn: it locks the key until the
// transaction ends, waiting for another's lock up to the lock timeout
// (pessimistic), or makes Commit fail if the key changes first
// (optimistic); it reads the latest committed value.
func (t *txn) GetForUpdate(key, dst []byte) ([]byte, bool, error) {
	cf, err := t.s.ccf(key)
	if err != nil {
		return dst[:0], false, err
	}
	return cTxnGet(t.ctx, t.s.cro, cf, true, key, dst)
}

func (t *txn) NewIter(lower, upper []byte) (kv.Iter, error) {
	return t.s.newIter(lower, upper, t.tx)
}

func (t *txn) Set(key, value []byte) error {
	cf, err := t.s.ccf(key)
	if err != nil {
		return err
	}
	return cTxnWrite(t.ctx, cf, false, key, value)
}

func (t *txn) Delete(key []byte) error {
	cf, err := t.s.ccf(key)
	if err != nil {
		return err
	}
	return cTxnWrite(t.ctx, cf, true, key, nil)
}

func (t *txn) Commit() error {
	err := txnError(t.tx.Commit())
	if err != nil {
		t.tx.Rollback()
	}
	t.release()
	return err
}

func (t *txn) Rollback() error {
	err := t.tx.Rollback()
	t.release()
	return err
}

// release returns the transaction and t to the free lists; the kv layer
// never touches a finished Txn.
func (t *txn) release() {
	s := t.s
	tx := t.tx
	t.tx, t.ctx = nil, nil
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.freeTx) < maxFree {
		s.freeTx = append(s.freeTx, tx)
	} else {
		tx.Destroy()
	}
	if len(s.freeTxn) < maxFree {
		s.freeTxn = append(s.freeTxn, t)
	}
}

// conflictError is an error of RocksDB's concurrency control: a lock wait
// that timed out (TimedOut), a write conflict with a snapshot or an
// optimistic commit that lost (Busy), or a commit that could not be checked
// (TryAgain). The transaction may be run again (kv.ErrConflict); the text
// is RocksDB's, and kind the model's name for it.
type conflictError struct {
	err  error
	kind error
}

func (e *conflictError) Error() string { return e.err.Error() }
func (e *conflictError) Unwrap() error { return e.err }
func (e *conflictError) Is(target error) bool {
	return target == kv.ErrConflict || (e.kind != nil && errors.Is(e.kind, target))
}

// txnError marks RocksDB's concurrency-control errors as conflicts, and
// with their model kind: grocksdb gives a status's text, not its code, so
// the kind is read from the text RocksDB gives each status ("Resource busy:
// Deadlock", "Operation timed out: Timeout waiting to lock key").
func txnError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, p := range []string{"Resource busy", "Operation timed out", "Operation failed. Try again"} {
		if strings.HasPrefix(msg, p) {
			return &conflictError{err: err, kind: statusKind(msg)}
		}
	}
	return err
}

// statusKind is the model kind of a concurrency-control status: a Busy
// that names a deadlock is one, a lock timeout names its key.
func statusKind(msg string) error {
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "deadlock"):
		return model.ErrDeadlock
	case strings.Contains(lower, "timeout waiting to lock key"), strings.Contains(lower, "lock timeout"), strings.Contains(lower, "lock wait timeout"):
		return model.ErrLockTimeout
	case strings.HasPrefix(msg, "Resource busy"), strings.Contains(lower, "try again"):
		return model.ErrSerialization
	}
	return nil
}
