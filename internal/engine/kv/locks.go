package kv

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"rumbench/internal/model"
)

// lockTable holds exact locks on keys, named by a 64-bit hash of the key:
// two operations wait for each other only when they lock keys of equal hash
// (in practice the same key), never because their keys share a stripe. A
// lock that nobody holds takes no memory; entries are recycled, so steady
// state allocates nothing.
//
// A caller locks a set of hashes in ascending order (lockSet), so callers
// that lock several sets of one table cannot deadlock. Callers that lock in
// several tables take them in a fixed order: inserts, then uniques, then
// rows. A Tx, which holds its locks until it ends, in the order it reaches
// its rows, waits for each with a timeout (lockFor), and fails at once when
// the wait would close a cycle of Txs waiting for each other: it never
// waits in a cycle for longer than the timeout.
type lockTable struct {
	once   sync.Once
	shards [lockShards]lockShard
}

// lockShards is the number of shards; a power of two. The shard is the
// hash's top bits, so a sorted set of hashes visits each shard once.
const (
	lockShardBits = 6
	lockShards    = 1 << lockShardBits
	// Each shard starts with room for shardSlots/2 held locks and
	// shardEntries entries; it grows, once, when more are held at once.
	shardSlots   = 64
	shardEntries = 16
)

// lockShard is an open-addressing hash table (linear probing, deletion by
// backward shift, so no tombstones: it never needs rebuilding) from a hash
// to its held lock.
type lockShard struct {
	mu    sync.Mutex
	slots []lockSlot
	n     int // slots in use
	free  []*lockEntry
	_     [64]byte // keep shards on separate cache lines
}

type lockSlot struct {
	h uint64
	e *lockEntry // nil: empty; &heldPlain: held, no entry (hold)
}

// heldPlain is the entry of every slot held by an operation that is not a
// Tx while nobody waits for it: an uncontended insert lock (the LinkBench
// load takes one per row) then touches its shard's slot and nothing else.
// The first waiter gives the slot an entry of its own (entryFor).
var heldPlain lockEntry

// lockEntry is one held lock: being in its shard's table is being held.
// waiters count the goroutines waiting for it, and the entry stays in the
// table until none is left: the holder's unlock hands it to one of them
// (in the order they came) with a token on wake. An uncontended lock and
// unlock touch only the shard (no channel operation); wake is a channel,
// not a mutex, so that a Tx can wait with a timeout.
type lockEntry struct {
	wake    chan struct{} // capacity 1; made when the first waiter comes
	waiters int32         // guarded by the shard's mu
	// owner is the Tx holding the lock, nil for an operation that is not
	// a Tx (it never waits while holding in a cycle: lockSet orders its
	// locks); read by the deadlock check of other Txs (txWaits.cycle).
	owner atomic.Pointer[txWaits]
}

// queue counts a waiter for e; the caller holds the shard's mu.
func (e *lockEntry) queue() {
	if e.wake == nil {
		e.wake = make(chan struct{}, 1) // once per entry: entries are recycled
	}
	e.waiters++
}

// lockSeed seeds the key hashes of every lock table of the process.
var lockSeed = maphash.MakeSeed()

// lockHash is the lock name of key.
func lockHash(key []byte) uint64 { return maphash.Bytes(lockSeed, key) }

func shardOf(h uint64) int { return int(h >> (64 - lockShardBits)) }

// sortHashes sorts hs and removes repeats, for lockSet.
func sortHashes(hs []uint64) []uint64 {
	if len(hs) >= radixMin {
		sortByTopBits(hs)
	} else {
		slices.Sort(hs)
	}
	return slices.Compact(hs)
}

// radixMin is the set size from which sortByTopBits beats a comparison
// sort (BenchmarkSortHashes).
const radixMin = 256

// sortByTopBits sorts hashes, which are uniform, in place: one pass
// distributes them into buckets by their top bits, about 4 hashes to a
// bucket (swapping each into its bucket), then an insertion sort orders
// each bucket's few.
func sortByTopBits(hs []uint64) {
	bits := min(max(bitsLen(len(hs)/4), 1), 10)
	shift := 64 - bits
	var count, next [1 << 10]int32
	for _, h := range hs {
		count[h>>shift]++
	}
	at := int32(0)
	for b := range 1 << bits {
		next[b] = at
		at += count[b]
		count[b] = at // now the bucket's end
	}
	start := int32(0)
	for b := range 1 << bits {
		end := count[b]
		for next[b] < end {
			h := hs[next[b]]
			d := h >> shift
			if int(d) == b {
				next[b]++
				continue
			}
			hs[next[b]], hs[next[d]] = hs[next[d]], h
			next[d]++
		}
		if end-start <= 32 {
			insertionSort(hs[start:end])
		} else { // not for uniform hashes, but never quadratic
			slices.Sort(hs[start:end])
		}
		start = end
	}
}

func bitsLen(n int) int {
	b := 0
	for ; n > 1; n >>= 1 {
		b++
	}
	return b
}

func insertionSort(hs []uint64) {
	for i := 1; i < len(hs); i++ {
		h := hs[i]
		j := i
		for ; j > 0 && hs[j-1] > h; j-- {
			hs[j] = hs[j-1]
		}
		hs[j] = h
	}
}

// init allocates every shard at once, on first use, so that no operation
// allocates on the first touch of a shard.
func (t *lockTable) init() {
	slots := make([]lockSlot, lockShards*shardSlots)
	entries := make([]lockEntry, lockShards*shardEntries)
	for i := range t.shards {
		sh := &t.shards[i]
		sh.slots = slots[i*shardSlots : (i+1)*shardSlots : (i+1)*shardSlots]
		sh.free = make([]*lockEntry, 0, shardEntries)
		for j := range shardEntries {
			sh.free = append(sh.free, &entries[i*shardEntries+j])
		}
	}
}

func (t *lockTable) shard(h uint64) *lockShard {
	t.once.Do(t.init)
	return &t.shards[shardOf(h)]
}

// find returns the slot index of h, or of the empty slot where it would go.
func (s *lockShard) find(h uint64) int {
	mask := len(s.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if s.slots[i].e == nil || s.slots[i].h == h {
			return i
		}
	}
}

// add holds a new entry for h, which is not in s, and returns it locked.
func (s *lockShard) add(h uint64) *lockEntry {
	e := s.newEntry()
	s.put(h, e)
	return e
}

// hold holds h, which is not in s, for an operation that is not a Tx.
func (s *lockShard) hold(h uint64) { s.put(h, &heldPlain) }

func (s *lockShard) put(h uint64, e *lockEntry) {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	s.slots[s.find(h)] = lockSlot{h, e}
	s.n++
}

func (s *lockShard) newEntry() *lockEntry {
	if n := len(s.free); n > 0 {
		e := s.free[n-1]
		s.free = s.free[:n-1]
		return e
	}
	return &lockEntry{}
}

// entryFor returns the entry of the held slot i, giving it one of its own
// if it has none (heldPlain), for a waiter to queue on.
func (s *lockShard) entryFor(i int) *lockEntry {
	e := s.slots[i].e
	if e == &heldPlain {
		e = s.newEntry()
		s.slots[i].e = e
	}
	return e
}

func (s *lockShard) grow() {
	old := s.slots
	s.slots = make([]lockSlot, 2*len(old))
	for _, sl := range old {
		if sl.e != nil {
			s.slots[s.find(sl.h)] = sl
		}
	}
}

// remove deletes the slot at i, shifting later slots of its probe run back.
func (s *lockShard) remove(i int) {
	mask := len(s.slots) - 1
	if e := s.slots[i].e; e != &heldPlain {
		s.free = append(s.free, e)
	}
	s.slots[i] = lockSlot{}
	s.n--
	for j := (i + 1) & mask; s.slots[j].e != nil; j = (j + 1) & mask {
		home := int(s.slots[j].h) & mask
		// Move slot j into the hole at i unless its home lies in (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			s.slots[i] = s.slots[j]
			s.slots[j] = lockSlot{}
			i = j
		}
	}
}

// lockSet locks every hash of hs, which must be sorted without repeats
// (sortHashes), waiting for the holders of any.
func (t *lockTable) lockSet(hs []uint64) {
	for i := 0; i < len(hs); {
		sh := t.shard(hs[i])
		sh.mu.Lock()
		for ; i < len(hs) && &t.shards[shardOf(hs[i])] == sh; i++ {
			h := hs[i]
			slot := sh.find(h)
			if sh.slots[slot].e == nil {
				sh.hold(h)
				continue
			}
			e := sh.entryFor(slot)
			e.queue()
			sh.mu.Unlock()
			<-e.wake // handed over by the holder's unlock
			sh.mu.Lock()
		}
		sh.mu.Unlock()
	}
}

// unlockSet releases every hash of hs (locked by lockSet or lockFor).
func (t *lockTable) unlockSet(hs []uint64) {
	for i := 0; i < len(hs); {
		sh := t.shard(hs[i])
		sh.mu.Lock()
		for ; i < len(hs) && &t.shards[shardOf(hs[i])] == sh; i++ {
			slot := sh.find(hs[i])
			e := sh.slots[slot].e
			if e == &heldPlain {
				sh.remove(slot)
				continue
			}
			if e.owner.Load() != nil {
				e.owner.Store(nil)
			}
			if e.waiters == 0 {
				sh.remove(slot)
			} else {
				// Hand it over: the token is the next holder's, and so is
				// the count (a Tx that gives up withdraws its own).
				e.waiters--
				e.wake <- struct{}{} // never blocks: one token at a time
			}
		}
		sh.mu.Unlock()
	}
}

// txLockWait bounds how long a Tx waits for a kv-layer lock on a store
// with its own locks (ConcurrentStore): a lock wait timeout, which breaks
// any cycle with the store's own lock waits.
const txLockWait = 20 * time.Millisecond

// RowLockWait bounds a row-locked Tx's wait for a lock, where the kv
// layer's locks are the only ones, before it fails with a lock wait
// timeout: RocksDB's TransactionDB default, and MyRocks'
// rocksdb_lock_wait_timeout (engines record it in their settings).
const RowLockWait = time.Second

// txWaits is a Tx's side of the lock tables: the lock it waits for, if
// any, so that another Tx about to wait can follow the chain of holders
// and waits (cycle).
type txWaits struct {
	waitingFor atomic.Pointer[lockEntry]
}

// cycle records that w is about to wait for e and reports whether e's
// holder waits, through a chain of Txs, for a lock w holds. Each Tx stores
// its wait before it follows the chain, so of the Txs that close a cycle
// the last to arrive sees it whole. A chain read while it changes can
// miss a cycle (the timeout then breaks it) or, rarely, see one that has
// just gone (a needless retry).
func (w *txWaits) cycle(e *lockEntry) bool {
	w.waitingFor.Store(e)
	o := e.owner.Load()
	for hops := 0; o != nil && hops < maxWaitChain; hops++ {
		if o == w {
			w.waitingFor.Store(nil)
			return true
		}
		next := o.waitingFor.Load()
		if next == nil {
			return false
		}
		o = next.owner.Load()
	}
	return false
}

// maxWaitChain bounds the chain cycle follows; longer cycles are broken by
// the timeout.
const maxWaitChain = 64

// errLockTimeout is the error of a Tx that timed out waiting for a
// kv-layer lock, and errDeadlock of one whose wait would have closed a
// cycle of Txs; the operation that failed changed nothing, and the Tx is
// to be rolled back and may run again (both match ErrConflict, and
// model.ErrLockTimeout or model.ErrDeadlock).
var (
	errLockTimeout error = lockTimeoutError{}
	errDeadlock    error = deadlockError{}
)

type lockTimeoutError struct{}

func (lockTimeoutError) Error() string {
	return "kv: lock wait timeout: another operation holds the lock of a key this transaction writes"
}
func (lockTimeoutError) Is(target error) bool {
	return target == ErrConflict || target == model.ErrLockTimeout
}

type deadlockError struct{}

func (deadlockError) Error() string {
	return "kv: deadlock: waiting for the lock of a key this transaction writes would close a cycle of transactions"
}
func (deadlockError) Is(target error) bool {
	return target == ErrConflict || target == model.ErrDeadlock
}

// lockFor locks h for the Tx w, waiting up to wait for its holder, or
// fails at once with errDeadlock when the holder waits, through other
// Txs, for w. The lock is w's until unlockSet.
func (t *lockTable) lockFor(w *txWaits, h uint64, wait time.Duration) error {
	sh := t.shard(h)
	sh.mu.Lock()
	slot := sh.find(h)
	if sh.slots[slot].e == nil {
		sh.add(h).owner.Store(w)
		sh.mu.Unlock()
		return nil
	}
	e := sh.entryFor(slot)
	e.queue()
	sh.mu.Unlock()
	err := w.wait(e, wait)
	if err != nil {
		sh.mu.Lock()
		select {
		case <-e.wake:
			// Handed over while this Tx gave up: it is this Tx's after
			// all (the token counted it out).
			err = nil
		default:
			e.waiters--
		}
		sh.mu.Unlock()
	}
	if err == nil {
		e.owner.Store(w)
	}
	return err
}

// wait takes e's token, waiting up to d, unless waiting would close a
// cycle.
func (w *txWaits) wait(e *lockEntry, d time.Duration) error {
	if w.cycle(e) {
		return errDeadlock
	}
	defer w.waitingFor.Store(nil)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-e.wake:
		return nil
	case <-timer.C:
		return errLockTimeout
	}
}

// txWait polls try until it succeeds, for a Tx: up to wait from its
// first failure, with pauses growing from 20 µs to 1 ms, then
// errLockTimeout. (pktail's claims, which are not locks of a table.)
func txWait(wait time.Duration, try func() bool) error {
	deadline := time.Time{}
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		if try() {
			return nil
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(wait)
		} else if now.After(deadline) {
			return errLockTimeout
		}
		time.Sleep(pause)
	}
}
