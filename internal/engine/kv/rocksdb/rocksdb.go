//go:build rocksdb

package rocksdb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/linxGnu/grocksdb"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
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
func (Driver) Options() []model.Option {
	return []model.Option{
		{Key: "block_cache_size", Default: "64MB", Help: "LRU block cache size in bytes (plain bytes or with a unit: 64MB, 1GiB; units are 1024-based)"},
		{Key: "write_buffer_size", Default: "64MB", Help: "size of one memtable"},
		{Key: "compression", Default: "snappy", Help: "SST block compression: none, snappy, lz4 or zstd"},
		{Key: "bottommost_compression", Default: "same", Help: "compression of the bottommost level: same (as compression), none, snappy, lz4 or zstd"},
		{Key: "sync", Default: "false", Help: "fsync the WAL at every commit (true: durable against power loss); the default false writes the WAL to the OS at every commit, durable against a process crash"},
		{Key: "disable_wal", Default: "false", Help: "write no WAL (unflushed memtables are lost on any crash)"},
		{Key: "use_direct_reads", Default: "false", Help: "read SST files with O_DIRECT, bypassing the OS page cache"},
		{Key: "max_background_jobs", Default: "2", Help: "flushes and compactions that may run at once"},
		{Key: "bloom_bits_per_key", Default: "10", Help: "bits per key of the SST bloom filters (0: none)"},
		{Key: "transactions", Default: "pessimistic", Help: "concurrency control of row updates, by RocksDB: pessimistic (TransactionDB: an update locks its row, waiting up to " + lockTimeoutText + ", as MyRocks) or optimistic (OptimisticTransactionDB: a commit fails if its row changed since it was read, and is retried)"},
	}
}

// lockTimeoutMS is how long a pessimistic transaction waits for a row lock
// (TransactionDB's default, and MyRocks' rocksdb_lock_wait_timeout).
const (
	lockTimeoutMS   = 1000
	lockTimeoutText = "1 s"
)

// Available implements model.Driver: librocksdb is linked in.
func (Driver) Available() error { return nil }

type settings struct {
	cacheSize, writeBuffer          int64
	compression, bottommost         string
	sync, disableWAL, directReads   bool
	backgroundJobs, bloomBitsPerKey int
	optimistic                      bool
}

func parseOptions(opts map[string]string) (settings, error) {
	var s settings
	get := kv.OptionGetter(opts, Driver{}.Options())
	var err error
	if s.cacheSize, err = kv.ParseSize("block_cache_size", get("block_cache_size")); err != nil {
		return s, err
	}
	if s.writeBuffer, err = kv.ParseSize("write_buffer_size", get("write_buffer_size")); err != nil {
		return s, err
	}
	if s.writeBuffer < 64<<10 {
		return s, fmt.Errorf("engine option write_buffer_size=%q: want at least 64KB", get("write_buffer_size"))
	}
	if s.compression, err = kv.ParseChoice("compression", get("compression"), compressions...); err != nil {
		return s, err
	}
	if s.bottommost, err = kv.ParseChoice("bottommost_compression", get("bottommost_compression"), append([]string{"same"}, compressions...)...); err != nil {
		return s, err
	}
	if s.sync, err = kv.ParseBool("sync", get("sync")); err != nil {
		return s, err
	}
	if s.disableWAL, err = kv.ParseBool("disable_wal", get("disable_wal")); err != nil {
		return s, err
	}
	if s.directReads, err = kv.ParseBool("use_direct_reads", get("use_direct_reads")); err != nil {
		return s, err
	}
	if s.sync && s.disableWAL {
		return s, errors.New("engine options sync=true and disable_wal=true conflict: sync applies to the WAL")
	}
	n, err := kv.ParseInt("max_background_jobs", get("max_background_jobs"), 1, 256)
	if err != nil {
		return s, err
	}
	s.backgroundJobs = int(n)
	if n, err = kv.ParseInt("bloom_bits_per_key", get("bloom_bits_per_key"), 0, 100); err != nil {
		return s, err
	}
	s.bloomBitsPerKey = int(n)
	mode, err := kv.ParseChoice("transactions", get("transactions"), "pessimistic", "optimistic")
	if err != nil {
		return s, err
	}
	s.optimistic = mode == "optimistic"
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
	st, err := openStore(filepath.Join(cfg.DataDir, "rocksdb"), s)
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
			"block_cache_size":       strconv.FormatInt(s.cacheSize, 10),
			"write_buffer_size":      strconv.FormatInt(s.writeBuffer, 10),
			"compression":            s.compression,
			"bottommost_compression": bottom,
			"sync":                   strconv.FormatBool(s.sync),
			"disable_wal":            strconv.FormatBool(s.disableWAL),
			"use_direct_reads":       strconv.FormatBool(s.directReads),
			"max_background_jobs":    strconv.Itoa(s.backgroundJobs),
			"bloom_bits_per_key":     strconv.Itoa(s.bloomBitsPerKey),
			"transactions":           "pessimistic",
			"lock_timeout_ms":        strconv.Itoa(lockTimeoutMS),
		},
	}
	if s.optimistic {
		info.Settings["transactions"] = "optimistic"
		delete(info.Settings, "lock_timeout_ms")
	}
	d, err := kv.Open(st, info)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("rocksdb: %w", err)
	}
	return &DB{DB: d, st: st}, nil
}

func openStore(dir string, s settings) (*store, error) {
	st := &store{dir: dir}
	st.cache = grocksdb.NewLRUCache(uint64(s.cacheSize))
	st.bbto = grocksdb.NewDefaultBlockBasedTableOptions()
	st.bbto.SetBlockCache(st.cache)
	if s.bloomBitsPerKey > 0 {
		st.bbto.SetFilterPolicy(grocksdb.NewBloomFilter(float64(s.bloomBitsPerKey)))
	}
	o := grocksdb.NewDefaultOptions()
	st.opts = o
	o.SetCreateIfMissing(true)
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
	if s.optimistic {
		st.oTxnOpts = grocksdb.NewDefaultOptimisticTransactionOptions()
		st.oTxnOpts.SetSetSnapshot(true)
		st.oUpdOpts = grocksdb.NewDefaultOptimisticTransactionOptions()
		odb, err := grocksdb.OpenOptimisticTransactionDb(o, dir)
		if err != nil {
			st.destroyOptions()
			return nil, fmt.Errorf("open rocksdb in %s: %w", dir, err)
		}
		st.odb, st.db = odb, odb.GetBaseDB()
	} else {
		st.tdbOpts = grocksdb.NewDefaultTransactionDBOptions()
		st.tdbOpts.SetTransactionLockTimeout(lockTimeoutMS)
		st.txnOpts = grocksdb.NewDefaultTransactionOptions()
		st.txnOpts.SetSetSnapshot(true)
		st.updOpts = grocksdb.NewDefaultTransactionOptions()
		tdb, err := grocksdb.OpenTransactionDb(o, st.tdbOpts, dir)
		if err != nil {
			st.destroyOptions()
			return nil, fmt.Errorf("open rocksdb in %s: %w", dir, err)
		}
		st.tdb, st.db = tdb, baseDB(tdb)
	}
	st.cdb, st.cro = handle(st.db), handle(st.ro)
	return st, nil
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
	for _, p := range intProperties {
		if v, ok := db.GetIntProperty("rocksdb." + p); ok {
			out[p] = v
		}
	}
	text := db.GetProperty("rocksdb.stats")
	out["rocksdb.stats"] = text
	parseStats(text, out)
	parseTickers(d.st.opts.GetStatisticsString(), out)
	return out, nil
}

// Maintain implements model.Maintainer: flush the memtable, then compact the
// whole key space into the bottom level.
func (d *DB) Maintain(ctx context.Context) error {
	if d.Closed() {
		return errors.New("engine is closed")
	}
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	if err := d.st.db.Flush(fo); err != nil {
		return fmt.Errorf("rocksdb flush: %w", err)
	}
	d.st.db.CompactRange(grocksdb.Range{})
	return nil
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
	freeWBI []*grocksdb.WriteBatchWI
	freeTxn []*txn
	freeTx  []*grocksdb.Transaction // C transactions, reused by begin
	freeIt  []*iter
}

var _ kv.ConcurrentStore = (*store)(nil)

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
	if s.tdb != nil {
		return txnError(s.tdb.Write(s.wo, wb))
	}
	return txnError(s.odb.Write(s.wo, wb))
}

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
func (s *store) Begin(readOwnWrites bool) (kv.Txn, error) { return s.begin(false), nil }

// BeginUpdate implements kv.ConcurrentStore.
func (s *store) BeginUpdate() (kv.UpdateTxn, error) { return s.begin(true), nil }

// DeleteRange writes a range tombstone to the base DB: TransactionDB
// batches cannot hold one, and the range is unreachable, so no transaction
// can hold a lock in it.
func (s *store) DeleteRange(start, end []byte) error {
	wb := s.getWB()
	defer s.putWB(wb)
	wb.DeleteRange(start, end)
	return s.db.Write(s.wo, wb)
}

// Size is the size of the files in the data dir: SSTs (also those not yet
// deleted after a compaction), WAL, MANIFEST and OPTIONS.
func (s *store) Size() (int64, error) { return kv.DirFileBytes(s.dir) }

func (s *store) Close() error {
	s.mu.Lock()
	for _, tx := range s.freeTx {
		tx.Destroy()
	}
	s.freeTx = nil
	s.mu.Unlock()
	if s.tdb != nil {
		freeBaseDB(s.db)
		s.tdb.Close()
	} else {
		s.odb.CloseBaseDB(s.db)
		s.odb.Close()
	}
	s.mu.Lock()
	for _, ro := range s.freeRO {
		ro.Destroy()
	}
	for _, wb := range s.freeWB {
		wb.Destroy()
	}
	for _, wb := range s.freeWBI {
		wb.Destroy()
	}
	s.freeRO, s.freeWB, s.freeWBI = nil, nil, nil
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

func (s *store) getWBI() *grocksdb.WriteBatchWI {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.freeWBI); n > 0 {
		wb := s.freeWBI[n-1]
		s.freeWBI = s.freeWBI[:n-1]
		return wb
	}
	// overwriteKeys: reads see the latest write of a key, as in a Txn.
	return grocksdb.NewWriteBatchWI(0, true)
}

func (s *store) putWBI(wb *grocksdb.WriteBatchWI) {
	wb.Clear()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.freeWBI) < maxFree {
		s.freeWBI = append(s.freeWBI, wb)
		return
	}
	wb.Destroy()
}

// newIter returns an iterator over [lower, upper), on the DB or, with tx,
// on the DB overlaid with the transaction's writes.
func (s *store) newIter(lower, upper []byte, tx *grocksdb.Transaction) *iter {
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
		it.it = tx.NewIterator(ro)
	} else {
		it.it = s.db.NewIterator(ro)
	}
	it.cit = handle(it.it)
	return it
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
	return cGet(s.cdb, nil, s.cro, key, dst)
}

func (v *view) NewIter(lower, upper []byte) (kv.Iter, error) {
	return (*store)(v).newIter(lower, upper, nil), nil
}

func (v *view) Close() error { return nil }

type batch struct {
	s  *store
	wb *grocksdb.WriteBatch
}

func (b *batch) Set(key, value []byte) error { b.wb.Put(key, value); return nil }
func (b *batch) Delete(key []byte) error     { b.wb.Delete(key); return nil }
func (b *batch) Len() int                    { return b.wb.Count() }
func (b *batch) Reset()                      { b.wb.Clear() }

func (b *batch) Commit() error {
	err := b.s.write(b.wb)
	b.wb.Clear()
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
	return cTxnGet(t.ctx, t.s.cro, false, key, dst)
}

// GetForUpdate implements kv.UpdateTxn: it locks the key until the
// transaction ends, waiting for another's lock up to the lock timeout
// (pessimistic), or makes Commit fail if the key changes first
// (optimistic); it reads the latest committed value.
func (t *txn) GetForUpdate(key, dst []byte) ([]byte, bool, error) {
	return cTxnGet(t.ctx, t.s.cro, true, key, dst)
}

func (t *txn) NewIter(lower, upper []byte) (kv.Iter, error) {
	return t.s.newIter(lower, upper, t.tx), nil
}

func (t *txn) Set(key, value []byte) error { return cTxnWrite(t.ctx, false, key, value) }
func (t *txn) Delete(key []byte) error     { return cTxnWrite(t.ctx, true, key, nil) }

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
// is RocksDB's.
type conflictError struct{ err error }

func (e *conflictError) Error() string        { return e.err.Error() }
func (e *conflictError) Unwrap() error        { return e.err }
func (e *conflictError) Is(target error) bool { return target == kv.ErrConflict }

// txnError marks RocksDB's concurrency-control errors as conflicts.
func txnError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, p := range []string{"Resource busy", "Operation timed out", "Operation failed. Try again"} {
		if strings.HasPrefix(msg, p) {
			return &conflictError{err}
		}
	}
	return err
}
