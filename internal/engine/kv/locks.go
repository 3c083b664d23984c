package kv

import (
	"hash/maphash"
	"slices"
	"sync"
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
// rows. A Tx, which holds its locks until it ends and may also wait for the
// store's own locks, only tries (tryLock): it never waits in a cycle.
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
	e *lockEntry // nil: empty
}

// lockEntry is one held lock. Its owner holds mu; waiters count the
// goroutines blocked on mu, and the entry stays in the table (handed to
// one of them) until none is left.
type lockEntry struct {
	mu      sync.Mutex
	waiters int32 // guarded by the shard's mu
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
	var e *lockEntry
	if n := len(s.free); n > 0 {
		e = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		e = &lockEntry{}
	}
	e.mu.Lock() // nobody else has it: never blocks
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	s.slots[s.find(h)] = lockSlot{h, e}
	s.n++
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
	s.free = append(s.free, s.slots[i].e)
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
				sh.add(h)
				continue
			}
			e := sh.slots[slot].e
			e.waiters++
			sh.mu.Unlock()
			e.mu.Lock() // handed over by the holder's unlock
			sh.mu.Lock()
			e.waiters--
		}
		sh.mu.Unlock()
	}
}

// unlockSet releases every hash of hs (locked by lockSet or tryLock).
func (t *lockTable) unlockSet(hs []uint64) {
	for i := 0; i < len(hs); {
		sh := t.shard(hs[i])
		sh.mu.Lock()
		for ; i < len(hs) && &t.shards[shardOf(hs[i])] == sh; i++ {
			slot := sh.find(hs[i])
			e := sh.slots[slot].e
			if e.waiters == 0 {
				sh.remove(slot)
			}
			e.mu.Unlock()
		}
		sh.mu.Unlock()
	}
}

// tryLock locks h if nobody holds it, and reports whether it did.
func (t *lockTable) tryLock(h uint64) bool {
	sh := t.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.slots[sh.find(h)].e != nil {
		return false
	}
	sh.add(h)
	return true
}

// txLockWait bounds how long a Tx waits for a kv-layer lock another
// operation holds, polling: a lock wait timeout, which breaks any cycle
// with the store's own lock waits.
const txLockWait = 20 * time.Millisecond

// errLockTimeout is the error of a Tx that timed out waiting for a
// kv-layer lock; it was not changed by the operation that failed, and is
// to be rolled back and may run again (it matches ErrConflict, and
// model.ErrLockTimeout).
var errLockTimeout error = lockTimeoutError{}

type lockTimeoutError struct{}

func (lockTimeoutError) Error() string {
	return "kv: lock wait timeout: another operation holds the insert lock of a key this transaction writes"
}
func (lockTimeoutError) Is(target error) bool {
	return target == ErrConflict || target == model.ErrLockTimeout
}

// lockWait locks h for a Tx, waiting up to txLockWait.
func (t *lockTable) lockWait(h uint64) error {
	return txWait(func() bool { return t.tryLock(h) })
}

// txWait polls try until it succeeds, for a Tx: up to txLockWait from its
// first failure, with pauses growing from 20 µs to 1 ms, then
// errLockTimeout.
func txWait(try func() bool) error {
	deadline := time.Time{}
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		if try() {
			return nil
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(txLockWait)
		} else if now.After(deadline) {
			return errLockTimeout
		}
		time.Sleep(pause)
	}
}
