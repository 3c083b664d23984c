//go:build rocksdb

package rocksdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/linxGnu/grocksdb"

	"rumbench/internal/engine/kv"
	"rumbench/internal/model"
)

// The kv store over a RocksDB TransactionDB: views, batches,
// transactions and iterators.

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
