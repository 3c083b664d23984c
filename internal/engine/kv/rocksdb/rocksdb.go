//go:build rocksdb

package rocksdb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
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
