package floorbench

import (
	"fmt"

	"rumbench/internal/engine/kv"
)

// The read floor's recorder: a kv.Store wrapper that writes down every call
// the kv layer makes on the store (views, transactions, point reads,
// iterators and each of their steps, writes and commits), in order, and a
// player that makes the same calls on a bare store with nothing between
// them but a switch: the cheapest loop of the same calls.

// tOp is one recorded store call.
type tOp struct {
	op   byte
	h, r uint8  // the iterator (or reader, transaction) handle; an iterator's reader
	ro   bool   // Begin's readOwnWrites
	k, v []byte // key or lower bound; value or upper bound
}

const (
	tView byte = iota
	tViewClose
	tBegin
	tBeginUpdate
	tGet
	tGetForUpdate
	tIter
	tFirst
	tLast
	tSeekGE
	tSeekLT
	tNext
	tPrev
	tValid
	tKey
	tValue
	tError
	tIterClose
	tSet
	tDelete
	tCommit
	tRollback
	tBatchSet
	tBatchDelete
	tBatchCommit
	tBatchReset
)

// maxHandles bounds the readers and iterators open at once in one
// operation.
const maxHandles = 16

// tracer records while ops is set; handles are numbered from 0 in each
// operation (startOp).
type tracer struct {
	ops      *[]tOp
	nr, ni   uint8
	stores   int
	unhandle int
}

func (t *tracer) startOp(ops *[]tOp) { t.ops, t.nr, t.ni = ops, 0, 0 }
func (t *tracer) stop()              { t.ops = nil }

func (t *tracer) rec(o tOp) {
	if t.ops != nil {
		*t.ops = append(*t.ops, o)
	}
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

func (t *tracer) reader() uint8 {
	h := t.nr % maxHandles
	t.nr++
	return h
}

func (t *tracer) wrap(st kv.Store) kv.Store {
	t.stores++
	base := &trStore{Store: st, t: t}
	_, ks := st.(kv.Keyspaces)
	_, cs := st.(kv.ConcurrentStore)
	switch {
	case ks && cs:
		return trKeyspacesConcurrent{trKeyspaces{base}}
	case ks:
		return trKeyspaces{base}
	case cs:
		return trConcurrent{base}
	}
	return base
}

type trStore struct {
	kv.Store
	t *tracer
}

type trKeyspaces struct{ *trStore }

func (s trKeyspaces) CreateKeyspace(prefix []byte, name string) error {
	return s.Store.(kv.Keyspaces).CreateKeyspace(prefix, name)
}

type trConcurrent struct{ *trStore }

func (s trConcurrent) BeginUpdate() (kv.UpdateTxn, error) { return s.beginUpdate() }

type trKeyspacesConcurrent struct{ trKeyspaces }

func (s trKeyspacesConcurrent) BeginUpdate() (kv.UpdateTxn, error) { return s.beginUpdate() }

func (s *trStore) NewView() (kv.View, error) {
	v, err := s.Store.NewView()
	if err != nil {
		return nil, err
	}
	h := s.t.reader()
	s.t.rec(tOp{op: tView, h: h})
	return &trView{trReader{Reader: v, t: s.t, h: h}, v}, nil
}

func (s *trStore) Begin(readOwnWrites bool) (kv.Txn, error) {
	x, err := s.Store.Begin(readOwnWrites)
	if err != nil {
		return nil, err
	}
	h := s.t.reader()
	s.t.rec(tOp{op: tBegin, h: h, ro: readOwnWrites})
	return &trTxn{trReader{Reader: x, t: s.t, h: h}, x}, nil
}

func (s *trStore) beginUpdate() (kv.UpdateTxn, error) {
	x, err := s.Store.(kv.ConcurrentStore).BeginUpdate()
	if err != nil {
		return nil, err
	}
	h := s.t.reader()
	s.t.rec(tOp{op: tBeginUpdate, h: h})
	return &trUpdateTxn{trTxn{trReader{Reader: x, t: s.t, h: h}, x}, x}, nil
}

func (s *trStore) NewBatch() kv.Batch { return &trBatch{Batch: s.Store.NewBatch(), t: s.t} }

type trReader struct {
	kv.Reader
	t *tracer
	h uint8
}

func (r *trReader) Get(key, dst []byte) ([]byte, bool, error) {
	r.t.rec(tOp{op: tGet, h: r.h, k: clone(key)})
	return r.Reader.Get(key, dst)
}

func (r *trReader) NewIter(lower, upper []byte) (kv.Iter, error) {
	it, err := r.Reader.NewIter(lower, upper)
	if err != nil {
		return nil, err
	}
	h := r.t.ni % maxHandles
	r.t.ni++
	r.t.rec(tOp{op: tIter, h: h, r: r.h, k: clone(lower), v: clone(upper)})
	return &trIter{Iter: it, t: r.t, h: h}, nil
}

type trView struct {
	trReader
	v kv.View
}

func (v *trView) Close() error {
	v.t.rec(tOp{op: tViewClose, h: v.h})
	return v.v.Close()
}

type trTxn struct {
	trReader
	x kv.Txn
}

func (x *trTxn) Set(key, value []byte) error {
	x.t.rec(tOp{op: tSet, h: x.h, k: clone(key), v: clone(value)})
	return x.x.Set(key, value)
}

func (x *trTxn) Delete(key []byte) error {
	x.t.rec(tOp{op: tDelete, h: x.h, k: clone(key)})
	return x.x.Delete(key)
}

func (x *trTxn) Commit() error {
	x.t.rec(tOp{op: tCommit, h: x.h})
	return x.x.Commit()
}

func (x *trTxn) Rollback() error {
	x.t.rec(tOp{op: tRollback, h: x.h})
	return x.x.Rollback()
}

type trUpdateTxn struct {
	trTxn
	u kv.UpdateTxn
}

func (x *trUpdateTxn) GetForUpdate(key, dst []byte) ([]byte, bool, error) {
	x.t.rec(tOp{op: tGetForUpdate, h: x.h, k: clone(key)})
	return x.u.GetForUpdate(key, dst)
}

type trIter struct {
	kv.Iter
	t *tracer
	h uint8
}

func (i *trIter) First() bool { i.t.rec(tOp{op: tFirst, h: i.h}); return i.Iter.First() }
func (i *trIter) Last() bool  { i.t.rec(tOp{op: tLast, h: i.h}); return i.Iter.Last() }
func (i *trIter) Next() bool  { i.t.rec(tOp{op: tNext, h: i.h}); return i.Iter.Next() }
func (i *trIter) Prev() bool  { i.t.rec(tOp{op: tPrev, h: i.h}); return i.Iter.Prev() }
func (i *trIter) Valid() bool { i.t.rec(tOp{op: tValid, h: i.h}); return i.Iter.Valid() }
func (i *trIter) SeekGE(k []byte) bool {
	i.t.rec(tOp{op: tSeekGE, h: i.h, k: clone(k)})
	return i.Iter.SeekGE(k)
}
func (i *trIter) SeekLT(k []byte) bool {
	i.t.rec(tOp{op: tSeekLT, h: i.h, k: clone(k)})
	return i.Iter.SeekLT(k)
}
func (i *trIter) Key() []byte   { i.t.rec(tOp{op: tKey, h: i.h}); return i.Iter.Key() }
func (i *trIter) Value() []byte { i.t.rec(tOp{op: tValue, h: i.h}); return i.Iter.Value() }
func (i *trIter) Error() error  { i.t.rec(tOp{op: tError, h: i.h}); return i.Iter.Error() }
func (i *trIter) Close() error  { i.t.rec(tOp{op: tIterClose, h: i.h}); return i.Iter.Close() }

type trBatch struct {
	kv.Batch
	t *tracer
}

func (b *trBatch) Set(key, value []byte) error {
	b.t.rec(tOp{op: tBatchSet, k: clone(key), v: clone(value)})
	return b.Batch.Set(key, value)
}

func (b *trBatch) Delete(key []byte) error {
	b.t.rec(tOp{op: tBatchDelete, k: clone(key)})
	return b.Batch.Delete(key)
}

func (b *trBatch) Commit() error {
	b.t.rec(tOp{op: tBatchCommit})
	return b.Batch.Commit()
}

func (b *trBatch) Reset() {
	b.t.rec(tOp{op: tBatchReset})
	b.Batch.Reset()
}

// player makes recorded calls on a bare store.
type player struct {
	st    kv.Store
	cc    kv.ConcurrentStore
	batch kv.Batch
	rd    [maxHandles]kv.Reader
	vw    [maxHandles]kv.View
	tx    [maxHandles]kv.Txn
	up    [maxHandles]kv.UpdateTxn
	it    [maxHandles]kv.Iter
	buf   []byte
	sink  int
}

func newPlayer(st kv.Store) *player {
	p := &player{st: st, batch: st.NewBatch()}
	p.cc, _ = st.(kv.ConcurrentStore)
	return p
}

func (p *player) close() { p.batch.Close() }

// play makes the calls of ops. Errors of the store are returned; what the
// calls return otherwise is read (keys and values touched) and dropped.
func (p *player) play(ops []tOp) error {
	for i := range ops {
		o := &ops[i]
		var err error
		switch o.op {
		case tView:
			var v kv.View
			v, err = p.st.NewView()
			p.rd[o.h], p.vw[o.h] = v, v
		case tViewClose:
			err = p.vw[o.h].Close()
		case tBegin:
			var x kv.Txn
			x, err = p.st.Begin(o.ro)
			p.rd[o.h], p.tx[o.h] = x, x
		case tBeginUpdate:
			var x kv.UpdateTxn
			x, err = p.cc.BeginUpdate()
			p.rd[o.h], p.tx[o.h], p.up[o.h] = x, x, x
		case tGet:
			var val []byte
			val, _, err = p.rd[o.h].Get(o.k, p.buf)
			p.buf = val[:0]
		case tGetForUpdate:
			var val []byte
			val, _, err = p.up[o.h].GetForUpdate(o.k, p.buf)
			p.buf = val[:0]
		case tIter:
			p.it[o.h], err = p.rd[o.r].NewIter(o.k, o.v)
		case tFirst:
			p.it[o.h].First()
		case tLast:
			p.it[o.h].Last()
		case tSeekGE:
			p.it[o.h].SeekGE(o.k)
		case tSeekLT:
			p.it[o.h].SeekLT(o.k)
		case tNext:
			p.it[o.h].Next()
		case tPrev:
			p.it[o.h].Prev()
		case tValid:
			p.it[o.h].Valid()
		case tKey:
			p.sink += len(p.it[o.h].Key())
		case tValue:
			p.sink += len(p.it[o.h].Value())
		case tError:
			err = p.it[o.h].Error()
		case tIterClose:
			err = p.it[o.h].Close()
		case tSet:
			err = p.tx[o.h].Set(o.k, o.v)
		case tDelete:
			err = p.tx[o.h].Delete(o.k)
		case tCommit:
			err = p.tx[o.h].Commit()
		case tRollback:
			err = p.tx[o.h].Rollback()
		case tBatchSet:
			err = p.batch.Set(o.k, o.v)
		case tBatchDelete:
			err = p.batch.Delete(o.k)
		case tBatchCommit:
			err = p.batch.Commit()
		case tBatchReset:
			p.batch.Reset()
		default:
			err = fmt.Errorf("unknown recorded call %d", o.op)
		}
		if err != nil {
			return fmt.Errorf("replay call %d (op %d): %w", i, o.op, err)
		}
	}
	return nil
}
