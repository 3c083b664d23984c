//go:build rocksdb

package rocksdb

// Hot paths through RocksDB's C API directly: grocksdb allocates a Go
// *Slice per Get and per iterator Key/Value, i.e. per row. The objects are
// still created, configured and freed through grocksdb.

/*
#cgo LDFLAGS: -lrocksdb -lstdc++
#cgo noescape rb_get
#cgo nocallback rb_get
#cgo noescape rb_txn_get
#cgo nocallback rb_txn_get
#cgo noescape rb_txn_write
#cgo nocallback rb_txn_write
#cgo noescape rb_iter_move
#cgo nocallback rb_iter_move
#include <stdlib.h>
#include <string.h>
#include <rocksdb/c.h>

const char *rumbench_rocksdb_version();
rocksdb_t *rumbench_txndb_base(rocksdb_transactiondb_t *t);
void rumbench_base_free(rocksdb_t *d);
char *rumbench_txndb_drop_cf(rocksdb_transactiondb_t *t, rocksdb_column_family_handle_t *h);

// rb_pos is an iterator's position after a move.
typedef struct {
	const char *k, *v;
	size_t kn, vn;
	int valid;
} rb_pos;

enum { RB_FIRST, RB_LAST, RB_SEEK, RB_SEEK_LT, RB_NEXT, RB_PREV };

static void rb_iter_move(rocksdb_iterator_t *it, int op, const char *key, size_t kn, rb_pos *p) {
	switch (op) {
	case RB_FIRST: rocksdb_iter_seek_to_first(it); break;
	case RB_LAST: rocksdb_iter_seek_to_last(it); break;
	case RB_SEEK: rocksdb_iter_seek(it, key, kn); break;
	case RB_SEEK_LT:
		// The last key < key: SeekForPrev finds the last key <= key.
		rocksdb_iter_seek_for_prev(it, key, kn);
		if (rocksdb_iter_valid(it)) {
			size_t n;
			const char *k = rocksdb_iter_key(it, &n);
			if (n == kn && (n == 0 || memcmp(k, key, n) == 0)) rocksdb_iter_prev(it);
		}
		break;
	case RB_NEXT: rocksdb_iter_next(it); break;
	case RB_PREV: rocksdb_iter_prev(it); break;
	}
	p->valid = rocksdb_iter_valid(it);
	if (p->valid) {
		p->k = rocksdb_iter_key(it, &p->kn);
		p->v = rocksdb_iter_value(it, &p->vn);
	}
}

// rb_txn_get reads key in a transaction (its own writes, then the DB),
// locking it for the transaction when forUpdate is set; returns as rb_get.
static long long rb_txn_get(rocksdb_transaction_t *txn, rocksdb_readoptions_t *ro, rocksdb_column_family_handle_t *cf,
		int forUpdate, const char *k, size_t kn, char *dst, size_t cap, char **big, char **err) {
	size_t n = 0;
	char *v = forUpdate ? rocksdb_transaction_get_for_update_cf(txn, ro, cf, k, kn, &n, 1, err)
	                    : rocksdb_transaction_get_cf(txn, ro, cf, k, kn, &n, err);
	if (*err) return -2;
	if (!v) return -1;
	if (n <= cap) {
		if (n) memcpy(dst, v, n);
		free(v);
	} else {
		*big = v;
	}
	return (long long)n;
}

// rb_txn_write puts key (value when del is 0) or deletes it in txn; it
// returns a malloc'd error or NULL.
static char *rb_txn_write(rocksdb_transaction_t *txn, rocksdb_column_family_handle_t *cf, int del,
		const char *k, size_t kn, const char *v, size_t vn) {
	char *err = NULL;
	if (del) rocksdb_transaction_delete_cf(txn, cf, k, kn, &err);
	else rocksdb_transaction_put_cf(txn, cf, k, kn, v, vn, &err);
	return err;
}

// rb_get reads key from column family cf and copies the value into dst
// when it fits in cap; otherwise *big holds the malloc'd value. It returns
// the value's length, -1 when the key is missing, -2 on error (*err is
// malloc'd).
static long long rb_get(rocksdb_t *db, rocksdb_column_family_handle_t *cf, rocksdb_readoptions_t *ro,
		const char *k, size_t kn, char *dst, size_t cap, char **big, char **err) {
	size_t n = 0;
	char *v = rocksdb_get_cf(db, ro, cf, k, kn, &n, err);
	if (*err) return -2;
	if (!v) return -1;
	if (n <= cap) {
		if (n) memcpy(dst, v, n);
		free(v);
	} else {
		*big = v;
	}
	return (long long)n;
}
*/
import "C"

import (
	"bytes"
	"errors"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// handle returns the C object a grocksdb wrapper (DB, ReadOptions,
// Iterator, WriteBatchWI) keeps in its first field. grocksdb is pinned at
// v1.7.15 (the last release for librocksdb 7.8), so the layout is fixed; a
// change would fail every test of the package at once.
func handle[T any](p *T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(p)) }

func bytesPtr(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// cGet appends the value of key in column family cf to dst[:0].
func cGet(db, cf, ro unsafe.Pointer, key, dst []byte) ([]byte, bool, error) {
	var big, cerr *C.char
	var dp *C.char
	if cap(dst) > 0 {
		dp = (*C.char)(unsafe.Pointer(unsafe.SliceData(dst[:cap(dst)])))
	}
	n := C.rb_get((*C.rocksdb_t)(db), (*C.rocksdb_column_family_handle_t)(cf), (*C.rocksdb_readoptions_t)(ro),
		bytesPtr(key), C.size_t(len(key)), dp, C.size_t(cap(dst)), &big, &cerr)
	switch {
	case n == -2:
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return dst[:0], false, errors.New(msg)
	case n == -1:
		return dst[:0], false, nil
	case big != nil:
		dst = append(dst[:0], unsafe.Slice((*byte)(unsafe.Pointer(big)), int(n))...)
		C.free(unsafe.Pointer(big))
		return dst, true, nil
	}
	return dst[:n], true, nil
}

// cTxnGet appends the value of key, read in the C transaction txn (locked
// for it with forUpdate), to dst[:0].
func cTxnGet(txn, ro, cf unsafe.Pointer, forUpdate bool, key, dst []byte) ([]byte, bool, error) {
	var big, cerr *C.char
	var dp *C.char
	if cap(dst) > 0 {
		dp = (*C.char)(unsafe.Pointer(unsafe.SliceData(dst[:cap(dst)])))
	}
	fu := C.int(0)
	if forUpdate {
		fu = 1
	}
	n := C.rb_txn_get((*C.rocksdb_transaction_t)(txn), (*C.rocksdb_readoptions_t)(ro), (*C.rocksdb_column_family_handle_t)(cf), fu,
		bytesPtr(key), C.size_t(len(key)), dp, C.size_t(cap(dst)), &big, &cerr)
	switch {
	case n == -2:
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return dst[:0], false, txnError(errors.New(msg))
	case n == -1:
		return dst[:0], false, nil
	case big != nil:
		dst = append(dst[:0], unsafe.Slice((*byte)(unsafe.Pointer(big)), int(n))...)
		C.free(unsafe.Pointer(big))
		return dst, true, nil
	}
	return dst[:n], true, nil
}

// cTxnWrite puts key=value, or deletes key with del, in the C
// transaction txn.
func cTxnWrite(txn, cf unsafe.Pointer, del bool, key, value []byte) error {
	d := C.int(0)
	if del {
		d = 1
	}
	cerr := C.rb_txn_write((*C.rocksdb_transaction_t)(txn), (*C.rocksdb_column_family_handle_t)(cf), d, bytesPtr(key), C.size_t(len(key)), bytesPtr(value), C.size_t(len(value)))
	if cerr == nil {
		return nil
	}
	msg := C.GoString(cerr)
	C.free(unsafe.Pointer(cerr))
	return txnError(errors.New(msg))
}

// baseDB wraps the DB under a pessimistic TransactionDB (the C API has no
// call for it) in a grocksdb.DB, for reads, iterators, properties, flushes
// and compactions. Writes go through the TransactionDB, which locks their
// keys. Free it with freeBaseDB, never Close: the TransactionDB owns it.
func baseDB(tdb *grocksdb.TransactionDB) *grocksdb.DB {
	db := new(grocksdb.DB)
	*(*unsafe.Pointer)(unsafe.Pointer(db)) = unsafe.Pointer(C.rumbench_txndb_base((*C.rocksdb_transactiondb_t)(handle(tdb))))
	return db
}

// dropCF drops a column family through a pessimistic TransactionDB.
func dropCF(tdb *grocksdb.TransactionDB, h *grocksdb.ColumnFamilyHandle) error {
	cerr := C.rumbench_txndb_drop_cf((*C.rocksdb_transactiondb_t)(handle(tdb)), (*C.rocksdb_column_family_handle_t)(handle(h)))
	if cerr == nil {
		return nil
	}
	msg := C.GoString(cerr)
	C.free(unsafe.Pointer(cerr))
	return errors.New(msg)
}

func freeBaseDB(db *grocksdb.DB) { C.rumbench_base_free((*C.rocksdb_t)(handle(db))) }

const (
	opFirst  = C.RB_FIRST
	opLast   = C.RB_LAST
	opSeek   = C.RB_SEEK
	opSeekLT = C.RB_SEEK_LT
	opNext   = C.RB_NEXT
	opPrev   = C.RB_PREV
)

// move positions the C iterator and returns the key and value, which point
// into RocksDB's memory until the next move.
func move(it unsafe.Pointer, op int, key []byte, p *C.rb_pos) (k, v []byte, ok bool) {
	C.rb_iter_move((*C.rocksdb_iterator_t)(it), C.int(op), bytesPtr(key), C.size_t(len(key)), p)
	if p.valid == 0 {
		return nil, nil, false
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p.k)), int(p.kn)), unsafe.Slice((*byte)(unsafe.Pointer(p.v)), int(p.vn)), true
}

func rocksdbVersion() string { return C.GoString(C.rumbench_rocksdb_version()) }

// iter is a bounded iterator. RocksDB applies the bounds to the DB, but
// not to the batch of a WriteBatchWithIndex iterator, so they are checked
// here too, and First and Last seek to the bounds explicitly.
type iter struct {
	s            *store
	ro           *grocksdb.ReadOptions
	it           *grocksdb.Iterator
	cit          unsafe.Pointer
	lower, upper []byte
	k, v         []byte
	// pos is a separate allocation: cgo rejects a pointer into a struct
	// that holds Go pointers.
	pos   *C.rb_pos
	valid bool
}

func (it *iter) move(op int, key []byte) bool {
	k, v, ok := move(it.cit, op, key, it.pos)
	if ok && ((it.upper != nil && bytes.Compare(k, it.upper) >= 0) || (it.lower != nil && bytes.Compare(k, it.lower) < 0)) {
		ok = false
	}
	if !ok {
		k, v = nil, nil
	}
	it.k, it.v, it.valid = k, v, ok
	return ok
}

func (it *iter) First() bool {
	if it.lower != nil {
		return it.move(opSeek, it.lower)
	}
	return it.move(opFirst, nil)
}

func (it *iter) Last() bool {
	if it.upper != nil {
		return it.move(opSeekLT, it.upper)
	}
	return it.move(opLast, nil)
}

func (it *iter) SeekGE(key []byte) bool {
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	return it.move(opSeek, key)
}

func (it *iter) SeekLT(key []byte) bool {
	if it.upper != nil && bytes.Compare(key, it.upper) > 0 {
		key = it.upper
	}
	return it.move(opSeekLT, key)
}

func (it *iter) Next() bool    { return it.move(opNext, nil) }
func (it *iter) Prev() bool    { return it.move(opPrev, nil) }
func (it *iter) Valid() bool   { return it.valid }
func (it *iter) Key() []byte   { return it.k }
func (it *iter) Value() []byte { return it.v }
func (it *iter) Error() error  { return it.it.Err() }

func (it *iter) Close() error {
	err := it.it.Err()
	it.s.releaseIter(it)
	return err
}

func newPos() *C.rb_pos { return new(C.rb_pos) }
