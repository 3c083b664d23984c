package floorbench

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

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
	h, r uint8 // the iterator (or reader, transaction) handle; an iterator's reader
	ro   bool  // Begin's readOwnWrites
	// seq numbers the calls that fix what a read sees or what others
	// see (numbered), across the streams in the recorded order from 1
	// (streams; 0: not numbered): an ordered replay (orderTurn) makes
	// them in that order. (Beside the bytes above, in what would be
	// padding: a recorded call stays 64 bytes.)
	seq  uint32
	k, v []byte // key or lower bound; value or upper bound
	at   int64  // a commit's time, ns from the recording's start (streams)
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

// maxHandles bounds the readers, iterators and batches open at once in
// one operation (one stream).
const maxHandles = 16

// tracer records store calls in one of two ways. By default into one
// sequence while ops is set (startOp; handles numbered from 0 in each
// operation): the read floor, one operation at a time on one goroutine.
// With streams set, into a sequence per goroutine that makes calls (a
// stream: the kv layer's connections each run on a goroutine of their own)
// while on is set, handles numbered on per stream: the churn floor, many
// goroutines at once.
type tracer struct {
	one       tseq
	streams   bool
	on        atomic.Bool
	t0        atomic.Int64  // the recording's start (unix ns): commits' at
	seq       atomic.Uint32 // the last tOp.seq given
	mu        sync.Mutex
	byG       map[uint64]*tseq
	seqs      []*tseq
	stores    int
	unhandle  int
	keyspaces [][]byte // the keyspaces created (Keyspaces stores)
}

// tseq is one sequence of recorded calls and its handle counters.
type tseq struct {
	t          *tracer
	ops        *[]tOp
	own        []tOp // a stream's calls (ops points here)
	nr, ni, nb uint8
	chunk      []byte // a stream's copies of keys and values
	idx        int    // the stream's index in a replay (bind), or -1
}

func (t *tracer) startOp(ops *[]tOp) { t.one.t, t.one.ops, t.one.nr, t.one.ni = t, ops, 0, 0 }
func (t *tracer) stop()              { t.one.ops = nil }

// cur is the sequence of the calling goroutine.
func (t *tracer) cur() *tseq {
	if !t.streams {
		t.one.t = t
		return &t.one
	}
	g := goid()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byG[g]
	if s == nil {
		s = t.newSeq(g, -1)
	}
	return s
}

// newSeq makes goroutine g's calls a new sequence of index idx (-1: not
// bound); the caller holds t.mu.
func (t *tracer) newSeq(g uint64, idx int) *tseq {
	if t.byG == nil {
		t.byG = map[uint64]*tseq{}
	}
	s := &tseq{t: t, idx: idx}
	s.ops = &s.own
	t.byG[g] = s
	t.seqs = append(t.seqs, s)
	return s
}

// goid is the calling goroutine's id, from its stack's header line
// ("goroutine 123 [running]:").
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = b[len("goroutine "):]
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// recorded returns the streams that made at least one recorded call, in
// the order they first made a call, and forgets them.
func (t *tracer) recorded() [][]tOp {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out [][]tOp
	for _, s := range t.seqs {
		if len(s.own) > 0 {
			out = append(out, s.own)
		}
	}
	t.seqs, t.byG = nil, nil
	return out
}

// rec records o. It returns o's index in the stream (-1: not recorded
// there), for numberEnd.
func (s *tseq) rec(o tOp) int {
	if s.t != nil && s.t.streams {
		if s.t.on.Load() {
			if o.op == tCommit || o.op == tBatchCommit {
				o.at = time.Now().UnixNano() - s.t.t0.Load()
			}
			o.k, o.v = s.copy(o.k), s.copy(o.v)
			s.own = append(s.own, o)
			return len(s.own) - 1
		}
		return -1
	}
	if s.ops != nil {
		o.k, o.v = clone(o.k), clone(o.v)
		*s.ops = append(*s.ops, o)
	}
	return -1
}

// numbered reports whether calls of kind op are numbered (tOp.seq, by
// numberEnd once the store's call has returned): a view's or
// transaction's start, an iterator's creation (when its snapshot is
// taken: a store's views may have none, as RocksDB's, whose every read
// sees the latest commits), a point read, a transaction's write
// (WiredTiger finds a write conflict there) and a commit.
func numbered(op byte) bool {
	switch op {
	case tView, tBegin, tBeginUpdate, tIter, tGet, tGetForUpdate, tSet, tDelete, tCommit, tBatchCommit:
		return true
	}
	return false
}

// numberEnd numbers the stream's call i (numbered) once the store's call
// has returned: its place in the recorded order.
func (s *tseq) numberEnd(i int) {
	if i >= 0 {
		s.own[i].seq = s.t.seq.Add(1)
	}
}

// copy keeps b in the stream's chunks of memory: one allocation per 1 MB,
// not per key.
func (s *tseq) copy(b []byte) []byte {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return []byte{}
	}
	if len(b) > cap(s.chunk)-len(s.chunk) {
		s.chunk = make([]byte, 0, max(1<<20, len(b)))
	}
	n := len(s.chunk)
	s.chunk = append(s.chunk, b...)
	return s.chunk[n:len(s.chunk):len(s.chunk)]
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

func (s *tseq) reader() uint8 {
	h := s.nr % maxHandles
	s.nr++
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
	s.t.mu.Lock()
	s.t.keyspaces = append(s.t.keyspaces, clone(prefix))
	s.t.mu.Unlock()
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
	q := s.t.cur()
	h := q.reader()
	q.numberEnd(q.rec(tOp{op: tView, h: h}))
	return &trView{trReader{Reader: v, t: q, h: h}, v}, nil
}

func (s *trStore) Begin(readOwnWrites bool) (kv.Txn, error) {
	x, err := s.Store.Begin(readOwnWrites)
	if err != nil {
		return nil, err
	}
	q := s.t.cur()
	h := q.reader()
	q.numberEnd(q.rec(tOp{op: tBegin, h: h, ro: readOwnWrites}))
	return &trTxn{trReader{Reader: x, t: q, h: h}, x}, nil
}

func (s *trStore) beginUpdate() (kv.UpdateTxn, error) {
	x, err := s.Store.(kv.ConcurrentStore).BeginUpdate()
	if err != nil {
		return nil, err
	}
	q := s.t.cur()
	h := q.reader()
	q.numberEnd(q.rec(tOp{op: tBeginUpdate, h: h}))
	return &trUpdateTxn{trTxn{trReader{Reader: x, t: q, h: h}, x}, x}, nil
}

func (s *trStore) NewBatch() kv.Batch { return &trBatch{Batch: s.Store.NewBatch(), t: s.t} }

type trReader struct {
	kv.Reader
	t *tseq
	h uint8
}

func (r *trReader) Get(key, dst []byte) ([]byte, bool, error) {
	i := r.t.rec(tOp{op: tGet, h: r.h, k: key})
	v, ok, err := r.Reader.Get(key, dst)
	r.t.numberEnd(i)
	return v, ok, err
}

func (r *trReader) NewIter(lower, upper []byte) (kv.Iter, error) {
	it, err := r.Reader.NewIter(lower, upper)
	if err != nil {
		return nil, err
	}
	h := r.t.ni % maxHandles
	r.t.ni++
	r.t.numberEnd(r.t.rec(tOp{op: tIter, h: h, r: r.h, k: lower, v: upper}))
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
	i := x.t.rec(tOp{op: tSet, h: x.h, k: key, v: value})
	err := x.x.Set(key, value)
	x.t.numberEnd(i)
	return err
}

func (x *trTxn) Delete(key []byte) error {
	i := x.t.rec(tOp{op: tDelete, h: x.h, k: key})
	err := x.x.Delete(key)
	x.t.numberEnd(i)
	return err
}

func (x *trTxn) Commit() error {
	i := x.t.rec(tOp{op: tCommit, h: x.h})
	err := x.x.Commit()
	x.t.numberEnd(i)
	return err
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
	i := x.t.rec(tOp{op: tGetForUpdate, h: x.h, k: key})
	v, ok, err := x.u.GetForUpdate(key, dst)
	x.t.numberEnd(i)
	return v, ok, err
}

type trIter struct {
	kv.Iter
	t *tseq
	h uint8
}

func (i *trIter) First() bool { i.t.rec(tOp{op: tFirst, h: i.h}); return i.Iter.First() }
func (i *trIter) Last() bool  { i.t.rec(tOp{op: tLast, h: i.h}); return i.Iter.Last() }
func (i *trIter) Next() bool  { i.t.rec(tOp{op: tNext, h: i.h}); return i.Iter.Next() }
func (i *trIter) Prev() bool  { i.t.rec(tOp{op: tPrev, h: i.h}); return i.Iter.Prev() }
func (i *trIter) Valid() bool { i.t.rec(tOp{op: tValid, h: i.h}); return i.Iter.Valid() }
func (i *trIter) SeekGE(k []byte) bool {
	i.t.rec(tOp{op: tSeekGE, h: i.h, k: k})
	return i.Iter.SeekGE(k)
}
func (i *trIter) SeekLT(k []byte) bool {
	i.t.rec(tOp{op: tSeekLT, h: i.h, k: k})
	return i.Iter.SeekLT(k)
}
func (i *trIter) Key() []byte   { i.t.rec(tOp{op: tKey, h: i.h}); return i.Iter.Key() }
func (i *trIter) Value() []byte { i.t.rec(tOp{op: tValue, h: i.h}); return i.Iter.Value() }
func (i *trIter) Error() error  { i.t.rec(tOp{op: tError, h: i.h}); return i.Iter.Error() }
func (i *trIter) Close() error  { i.t.rec(tOp{op: tIterClose, h: i.h}); return i.Iter.Close() }

// trBatch records a batch's calls in the sequence of the goroutine that
// writes to it: in stream mode it is bound to that goroutine's sequence at
// the first call after a commit or reset (the kv layer keeps a batch per
// connection, made wherever the connection was opened), under a handle of
// that sequence's kept for as long as the same sequence uses it.
type trBatch struct {
	kv.Batch
	t    *tracer
	q    *tseq // bound to until the next commit or reset
	last *tseq
	h    uint8
}

func (b *trBatch) seq() *tseq {
	if b.q == nil {
		b.q = b.t.cur()
		if b.q != b.last && b.t.streams {
			b.last, b.h = b.q, b.q.nb%maxHandles
			b.q.nb++
		}
	}
	return b.q
}

func (b *trBatch) Set(key, value []byte) error {
	b.seq().rec(tOp{op: tBatchSet, h: b.h, k: key, v: value})
	return b.Batch.Set(key, value)
}

func (b *trBatch) Delete(key []byte) error {
	b.seq().rec(tOp{op: tBatchDelete, h: b.h, k: key})
	return b.Batch.Delete(key)
}

func (b *trBatch) Commit() error {
	q := b.seq()
	i := q.rec(tOp{op: tBatchCommit, h: b.h})
	b.q = nil
	err := b.Batch.Commit()
	q.numberEnd(i)
	return err
}

func (b *trBatch) Reset() {
	b.seq().rec(tOp{op: tBatchReset, h: b.h})
	b.q = nil
	b.Batch.Reset()
}

// player makes recorded calls on a bare store.
type player struct {
	st    kv.Store
	cc    kv.ConcurrentStore
	batch [maxHandles]kv.Batch
	rd    [maxHandles]kv.Reader
	vw    [maxHandles]kv.View
	tx    [maxHandles]kv.Txn
	up    [maxHandles]kv.UpdateTxn
	it    [maxHandles]kv.Iter
	// valid is each iterator's position as its last positioning call
	// returned it. A stream replayed beside others may find other rows
	// than the recording did (a query next to writers that run at their
	// own pace in the replay): a step, key or value read of an iterator
	// past its end is not made (skipped counts them), since the stores
	// may not be asked for one.
	valid   [maxHandles]bool
	skipped int64
	// failed marks a transaction the store refused in the replay (a
	// conflict or lock wait the recording did not meet, the streams'
	// interleaving being another): it was rolled back, and the recorded
	// calls on it and its iterators (dead) up to its end are not made
	// (refusedCalls). refused counts such transactions, and batch
	// commits the store refused once (committed again, as the kv layer
	// does).
	failed, dead [maxHandles]bool
	refused      int64
	refusedCalls int64
	// pace, when set, is called before each commit with its recorded
	// time (tOp.at), and waits until the replay is due to make it.
	pace func(at int64)
	// stop, when set, ends a repeated pass (pass > 0) at its next view:
	// a query step's querier stream replays its queries again until the
	// writers beside it have ended (replayStreams). views counts the views
	// made, i.e. the queries.
	stop *atomic.Bool
	// order, when set, makes the numbered calls (tOp.seq) in their
	// recorded order across the streams that share it.
	order      *orderTurn
	stream     int         // the player's stream, for order
	orderTimer *time.Timer // order's waits' timer
	// yieldEvery, when set, makes the player yield its thread
	// (runtime.Gosched) at a view's start once that long has passed since
	// its last yield, as rumbench's query workers on an in-process engine
	// do (ibench.QueryYield). Its clock read is the player's own, outside
	// the store's calls that the query steps' calls-alone figure counts.
	yieldEvery time.Duration
	lastYield  time.Time
	pass       int
	stopped    bool
	views      int64
	buf        []byte
	sink       int
}

func newPlayer(st kv.Store) *player {
	p := &player{st: st}
	p.batch[0] = st.NewBatch()
	p.cc, _ = st.(kv.ConcurrentStore)
	return p
}

func (p *player) close() {
	for _, b := range p.batch {
		if b != nil {
			b.Close()
		}
	}
}

// batchOf is the batch of handle h, made at its first use.
func (p *player) batchOf(h uint8) kv.Batch {
	if p.batch[h] == nil {
		p.batch[h] = p.st.NewBatch()
	}
	return p.batch[h]
}

// play makes the calls of ops. Errors of the store are returned; what the
// calls return otherwise is read (keys and values touched) and dropped.
func (p *player) play(ops []tOp) error {
	for i := range ops {
		o := &ops[i]
		// An ordered replay's numbered call waits for its turn, and ends it
		// when it returns (or is not made).
		turn := p.order != nil && o.seq > 0
		if turn {
			if err := p.order.await(o.seq, p.stream, p.orderTimer); err != nil {
				return err
			}
		}
		if p.skipRefused(o) {
			p.refusedCalls++
			if turn {
				p.order.done(o.seq)
			}
			continue
		}
		if p.pace != nil && (o.op == tCommit || o.op == tBatchCommit) {
			p.pace(o.at)
		}
		var err error
		switch o.op {
		case tView:
			if p.pass > 0 && p.stop != nil && p.stop.Load() {
				p.stopped = true
				return nil
			}
			p.views++
			if p.yieldEvery > 0 {
				if now := time.Now(); now.Sub(p.lastYield) >= p.yieldEvery {
					runtime.Gosched()
					p.lastYield = now
				}
			}
			var v kv.View
			v, err = p.st.NewView()
			p.rd[o.h], p.vw[o.h], p.tx[o.h] = v, v, nil
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
			p.valid[o.h] = false
		case tFirst:
			p.valid[o.h] = p.it[o.h].First()
		case tLast:
			p.valid[o.h] = p.it[o.h].Last()
		case tSeekGE:
			p.valid[o.h] = p.it[o.h].SeekGE(o.k)
		case tSeekLT:
			p.valid[o.h] = p.it[o.h].SeekLT(o.k)
		case tNext, tPrev, tKey, tValue:
			if !p.valid[o.h] {
				p.skipped++
				continue
			}
			switch o.op {
			case tNext:
				p.valid[o.h] = p.it[o.h].Next()
			case tPrev:
				p.valid[o.h] = p.it[o.h].Prev()
			case tKey:
				p.sink += len(p.it[o.h].Key())
			default:
				p.sink += len(p.it[o.h].Value())
			}
		case tValid:
			p.it[o.h].Valid()
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
			err = p.batchOf(o.h).Set(o.k, o.v)
		case tBatchDelete:
			err = p.batchOf(o.h).Delete(o.k)
		case tBatchCommit:
			err = p.batchOf(o.h).Commit()
		case tBatchReset:
			p.batchOf(o.h).Reset()
		default:
			err = fmt.Errorf("unknown recorded call %d", o.op)
		}
		if err != nil && errors.Is(err, kv.ErrConflict) {
			err = p.refuse(o)
		}
		if turn {
			p.order.done(o.seq)
		}
		if err != nil {
			if p.order != nil {
				p.order.abort.Store(true)
			}
			return fmt.Errorf("replay call %d (op %d): %w", i, o.op, err)
		}
	}
	return nil
}

// orderTurn gives the numbered calls of several streams (tOp.seq) their
// turns: call n is made once call n-1 has returned. A call waits by
// yielding its thread a few times (waits), then by sleeping until the
// call before it returns (blocks; done wakes the stream that holds the
// next number), so that the waits cost little CPU; waited is their time.
// When no call has returned for orderPatience times k, the call k numbers
// past the last returned one is made anyway (gaveUp), so that a recorded
// order the store cannot follow slows the replay instead of stopping it:
// a transaction numbered after the one whose lock it waited for, its
// thread having been descheduled between the call's return and its
// number (bbolt's single writer: a Begin blocks in the store until
// another stream's transaction, whose next call waits for that Begin's
// turn, commits). The calls after it keep their order. The waits are the replay's: their CPU
// is in its figures.
type orderTurn struct {
	next   atomic.Uint32 // the highest number whose call has returned
	abort  atomic.Bool   // a stream failed: the others stop waiting
	owner  []int32       // the stream that holds each number (-1: none)
	wake   []chan struct{}
	waits  atomic.Int64
	blocks atomic.Int64
	waited atomic.Int64 // ns
	gaveUp atomic.Int64
	last   atomic.Int64 // when the last call returned (unix ns)
}

const (
	orderPatience = 50 * time.Millisecond
	orderSpins    = 16
)

var errOrderAborted = errors.New("another stream of the ordered replay failed")

func newOrderTurn(streams [][]tOp) *orderTurn {
	t := &orderTurn{wake: make([]chan struct{}, len(streams)), owner: seqOwners(streams)}
	for i := range streams {
		t.wake[i] = make(chan struct{}, 1)
	}
	return t
}

// seqOwners returns the stream of each numbered call (tOp.seq), by number
// (-1: no call has it).
func seqOwners(streams [][]tOp) []int32 {
	var last uint32
	for _, s := range streams {
		for _, o := range s {
			last = max(last, o.seq)
		}
	}
	owner := make([]int32, last+1)
	for i := range owner {
		owner[i] = -1
	}
	for i, s := range streams {
		for _, o := range s {
			if o.seq > 0 {
				owner[o.seq] = int32(i)
			}
		}
	}
	return owner
}

// await returns when it is call seq's turn; stream is the caller's, timer
// a stopped timer of its own.
func (t *orderTurn) await(seq uint32, stream int, timer *time.Timer) error {
	if t.next.Load() >= seq-1 {
		return nil
	}
	start := time.Now()
	spins, blocks := int64(0), int64(0)
	defer func() {
		t.waits.Add(spins)
		t.blocks.Add(blocks)
		t.waited.Add(int64(time.Since(start)))
	}()
	for t.next.Load() < seq-1 {
		if t.abort.Load() {
			return errOrderAborted
		}
		if spins < orderSpins {
			spins++
			runtime.Gosched()
			continue
		}
		// The nearer the turn, the sooner: the call right after a
		// stuck one goes first, and the others keep their order after it.
		if n := t.next.Load(); n < seq-1 {
			p := orderPatience * time.Duration(seq-1-n)
			if time.Since(start) > p && time.Since(time.Unix(0, t.last.Load())) > p {
				t.gaveUp.Add(1)
				return nil
			}
		}
		blocks++
		timer.Reset(orderPatience)
		select {
		case <-t.wake[stream]:
		case <-timer.C:
		}
		timer.Stop()
	}
	return nil
}

// done records that call seq has returned, and wakes the stream that
// holds the next number; a call made out of its turn (gaveUp) never moves
// the count back.
func (t *orderTurn) done(seq uint32) {
	t.last.Store(time.Now().UnixNano())
	for {
		cur := t.next.Load()
		if cur >= seq || t.next.CompareAndSwap(cur, seq) {
			break
		}
	}
	if n := int(seq) + 1; n < len(t.owner) && t.owner[n] >= 0 {
		select {
		case t.wake[t.owner[n]] <- struct{}{}:
		default:
		}
	}
}

// skipRefused reports whether o is a call on a transaction the replay's
// store refused, or on one of its iterators, ending that state at the
// transaction's recorded end.
func (p *player) skipRefused(o *tOp) bool {
	switch o.op {
	case tView, tBegin, tBeginUpdate:
		p.failed[o.h] = false
	case tGet, tGetForUpdate, tSet, tDelete:
		return p.failed[o.h]
	case tCommit, tRollback:
		f := p.failed[o.h]
		p.failed[o.h] = false
		return f
	case tIter:
		p.dead[o.h] = p.failed[o.r]
		return p.dead[o.h]
	case tFirst, tLast, tSeekGE, tSeekLT, tNext, tPrev, tValid, tKey, tValue, tError, tIterClose:
		return p.dead[o.h]
	}
	return false
}

// refuse handles the store's refusal (ErrConflict) of call o: a
// transaction's read or write is rolled back and its later calls not
// made; a refused commit ended its transaction; a refused batch commit,
// whose writes stay, is made again.
func (p *player) refuse(o *tOp) error {
	p.refused++
	switch o.op {
	case tGet, tGetForUpdate, tSet, tDelete:
		if p.tx[o.h] == nil {
			break
		}
		p.failed[o.h] = true
		return p.tx[o.h].Rollback()
	case tCommit:
		return nil
	case tBatchCommit:
		for range 100 {
			err := p.batchOf(o.h).Commit()
			if err == nil || !errors.Is(err, kv.ErrConflict) {
				return err
			}
			time.Sleep(time.Millisecond)
		}
	}
	return fmt.Errorf("the store refused call op %d: %w", o.op, kv.ErrConflict)
}

// nullStore is a test double of a store that does nothing: every call
// returns at once, every iterator is positioned on an empty key. Replaying
// a recording on it measures the player's own cost (its switch, and the
// reading of the recorded calls from memory), which the replay's figures
// include and a bare loop written for the work would not.
type nullStore struct{}

type nullReader struct{}
type nullIter struct{}

func (nullStore) NewView() (kv.View, error)                { return nullReader{}, nil }
func (nullStore) NewBatch() kv.Batch                       { return nullReader{} }
func (nullStore) Begin(bool) (kv.Txn, error)               { return nullReader{}, nil }
func (nullStore) BeginUpdate() (kv.UpdateTxn, error)       { return nullReader{}, nil }
func (nullStore) DeleteRange(_, _ []byte) error            { return nil }
func (nullStore) Size() (int64, error)                     { return 0, nil }
func (nullStore) Close() error                             { return nil }
func (nullReader) Get(_, dst []byte) ([]byte, bool, error) { return dst[:0], true, nil }
func (nullReader) GetForUpdate(_, d []byte) ([]byte, bool, error) {
	return d[:0], true, nil
}
func (nullReader) NewIter(_, _ []byte) (kv.Iter, error) { return nullIter{}, nil }
func (nullReader) Set(_, _ []byte) error                { return nil }
func (nullReader) Delete([]byte) error                  { return nil }
func (nullReader) Commit() error                        { return nil }
func (nullReader) Rollback() error                      { return nil }
func (nullReader) Close() error                         { return nil }
func (nullReader) Len() int                             { return 0 }
func (nullReader) Reset()                               {}
func (nullIter) First() bool                            { return true }
func (nullIter) Last() bool                             { return true }
func (nullIter) SeekGE([]byte) bool                     { return true }
func (nullIter) SeekLT([]byte) bool                     { return true }
func (nullIter) Next() bool                             { return true }
func (nullIter) Prev() bool                             { return true }
func (nullIter) Valid() bool                            { return true }
func (nullIter) Key() []byte                            { return nil }
func (nullIter) Value() []byte                          { return nil }
func (nullIter) Error() error                           { return nil }
func (nullIter) Close() error                           { return nil }

// playerCost replays streams on a nullStore, each on a goroutine of its
// own as replayStreams does, and returns the process CPU (µs) it took.
func playerCost(streams [][]tOp) (float64, error) {
	players := make([]*player, len(streams))
	for i := range players {
		players[i] = newPlayer(nullStore{})
	}
	runtime.GC()
	errs := make([]error, len(streams))
	var wg sync.WaitGroup
	cpu0 := cpuNow()
	for i, s := range streams {
		wg.Go(func() { errs[i] = players[i].play(s) })
	}
	wg.Wait()
	return cpuNow() - cpu0, errors.Join(errs...)
}

// TestOrderTurn: calls numbered across three goroutines are made in their
// numbers' order; with a number missing (no call holds it), the next call
// is made after orderPatience, counted as out of turn, and the rest follow
// in order.
func TestOrderTurn(t *testing.T) {
	for _, missing := range []uint32{0, 5} {
		streams := make([][]tOp, 3)
		for seq := uint32(1); seq <= 30; seq++ {
			if seq != missing {
				streams[(seq-1)%3] = append(streams[(seq-1)%3], tOp{op: tGet, seq: seq})
			}
		}
		o := newOrderTurn(streams)
		var mu sync.Mutex
		var made []uint32
		var wg sync.WaitGroup
		for g := range uint32(3) {
			wg.Go(func() {
				timer := time.NewTimer(time.Hour)
				timer.Stop()
				for _, op := range streams[g] {
					seq := op.seq
					if err := o.await(seq, int(g), timer); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					made = append(made, seq)
					mu.Unlock()
					o.done(seq)
				}
			})
		}
		wg.Wait()
		want := 30
		if missing > 0 {
			want--
		}
		if len(made) != want || !slices.IsSorted(made) {
			t.Fatalf("missing %d: calls made in the order %v", missing, made)
		}
		if got := o.gaveUp.Load(); (missing > 0) != (got == 1) {
			t.Fatalf("missing %d: %d calls out of turn", missing, got)
		}
	}
}

// TestRecordedCallSize: a recorded call (tOp) stays 64 bytes, one cache
// line, with its number (seq) in what would be padding: the replay reads
// the recorded calls from memory, and that cost is the bare store's side's.
func TestRecordedCallSize(t *testing.T) {
	if n := unsafe.Sizeof(tOp{}); n != 64 {
		t.Fatalf("tOp is %d bytes, want 64", n)
	}
}
