package kv

import (
	"errors"
	"math/rand"
	"sync"
	"testing"
	"time"

	"rumbench/internal/model"
)

// TestLockTableExclusion: goroutines lock random overlapping sets of keys
// and increment a plain counter per key while holding them; every
// increment must survive (and -race must see no race), and the table must
// be empty at the end.
func TestLockTableExclusion(t *testing.T) {
	var tbl lockTable
	const keys, workers, rounds = 64, 8, 400
	counts := make([]int, keys)
	hashes := make([]uint64, keys)
	for i := range hashes {
		hashes[i] = lockHash([]byte{byte(i), 'k'})
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			var set []uint64
			var idx []int
			for range rounds {
				set, idx = set[:0], idx[:0]
				for range 1 + r.Intn(6) {
					k := r.Intn(keys)
					idx = append(idx, k)
					set = append(set, hashes[k])
				}
				set = sortHashes(set)
				tbl.lockSet(set)
				seen := map[int]bool{}
				for _, k := range idx {
					if !seen[k] {
						seen[k] = true
						counts[k]++
					}
				}
				tbl.unlockSet(set)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		t.Fatal("no increments")
	}
	for i := range tbl.shards {
		if n := tbl.shards[i].n; n != 0 {
			t.Fatalf("shard %d holds %d locks after every unlock", i, n)
		}
	}
	// The same, counted against a mutex-protected reference.
	var mu sync.Mutex
	want := 0
	before := counts[0]
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				set := []uint64{hashes[0]}
				tbl.lockSet(set)
				counts[0]++
				tbl.unlockSet(set)
				mu.Lock()
				want++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if got := counts[0] - before; got != want {
		t.Fatalf("hot key: %d increments survived of %d", got, want)
	}
	checkLocksReleased(t, &tbl)
}

// checkLocksReleased fails unless tbl holds no lock and the shared mark of
// uncontended holds (heldPlain) was never queued on nor recycled as an
// entry: a waiter that queued on it would wait on every plain lock.
func checkLocksReleased(t *testing.T, tbl *lockTable) {
	t.Helper()
	for i := range tbl.shards {
		sh := &tbl.shards[i]
		if sh.n != 0 {
			t.Fatalf("shard %d holds %d locks after every unlock", i, sh.n)
		}
		for _, e := range sh.free {
			if e == &heldPlain {
				t.Fatalf("shard %d recycled the mark of plain holds as an entry", i)
			}
		}
	}
	if heldPlain.waiters != 0 || heldPlain.wake != nil || heldPlain.owner.Load() != nil {
		t.Fatal("a waiter queued on the mark of plain holds")
	}
}

// BenchmarkLockSet: an insert batch's locks (1,000 distinct keys, sorted)
// taken and released without contention, as a LinkBench load batch takes
// them; ns/op over 1,000 is the cost per row.
func BenchmarkLockSet(b *testing.B) {
	var tbl lockTable
	r := rand.New(rand.NewSource(1))
	sets := make([][]uint64, 16)
	for i := range sets {
		set := make([]uint64, 1000)
		for j := range set {
			set[j] = r.Uint64()
		}
		sets[i] = sortHashes(set)
	}
	i := 0
	for b.Loop() {
		set := sets[i%len(sets)]
		tbl.lockSet(set)
		tbl.unlockSet(set)
		i++
	}
}

// TestLockShardProbing: hashes that collide in one shard's slots (same
// top and low bits) are held, released in random order, and the rest stay
// findable (deletion by backward shift must not lose one), through growth.
func TestLockShardProbing(t *testing.T) {
	var tbl lockTable
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 50; round++ {
		n := 1 + r.Intn(200)
		hs := make([]uint64, n)
		for i := range hs {
			// One shard (top bits 0); low bits from a few home slots.
			hs[i] = uint64(r.Intn(4)) | uint64(i+1)<<20
		}
		hs = sortHashes(hs)
		tbl.lockSet(hs)
		for _, h := range hs {
			if tbl.tryLock(h) {
				t.Fatalf("round %d: tryLock of held %#x succeeded", round, h)
			}
		}
		r.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
		for i, h := range hs {
			tbl.unlockSet([]uint64{h})
			for _, still := range hs[i+1:] {
				if tbl.tryLock(still) {
					t.Fatalf("round %d: %#x lost after another's unlock", round, still)
				}
			}
			if !tbl.tryLock(h) {
				t.Fatalf("round %d: %#x still held after its unlock", round, h)
			}
			tbl.unlockSet([]uint64{h})
		}
		if n := tbl.shards[0].n; n != 0 {
			t.Fatalf("round %d: %d slots in use at the end", round, n)
		}
	}
}

// TestLockForDeadlock: two Txs each hold a lock and want the other's; the
// one that closes the cycle fails at once with errDeadlock (no timeout
// spent), the other gets the lock when the loser lets go, and the table
// is empty at the end.
func TestLockForDeadlock(t *testing.T) {
	var tbl lockTable
	var w1, w2 txWaits
	h1, h2 := lockHash([]byte("one")), lockHash([]byte("two"))
	if err := tbl.lockFor(&w1, h1, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := tbl.lockFor(&w2, h2, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- tbl.lockFor(&w1, h2, time.Minute) }()
	for w1.waitingFor.Load() == nil { // w1 is about to block on h2
		time.Sleep(time.Millisecond)
	}
	err := tbl.lockFor(&w2, h1, time.Minute)
	if !errors.Is(err, errDeadlock) || !errors.Is(err, model.ErrDeadlock) || !errors.Is(err, ErrConflict) {
		t.Fatalf("the wait that closes the cycle: %v, want the deadlock error (ErrConflict, model.ErrDeadlock)", err)
	}
	if w2.waitingFor.Load() != nil {
		t.Fatal("the loser is still recorded as waiting")
	}
	tbl.unlockSet([]uint64{h2}) // the loser rolls back
	if err := <-got; err != nil {
		t.Fatalf("the survivor's wait: %v, want the lock", err)
	}
	if e := tbl.shard(h2).slots[tbl.shard(h2).find(h2)].e; e == nil || e.owner.Load() != &w1 {
		t.Fatal("h2 is not recorded as the survivor's")
	}
	tbl.unlockSet([]uint64{h1, h2})
	for i := range tbl.shards {
		if n := tbl.shards[i].n; n != 0 {
			t.Fatalf("shard %d holds %d locks after every unlock", i, n)
		}
	}
}

// TestLockForTimeout: a Tx waiting for a lock an autocommit operation
// holds (no owner: no cycle to see) gives up after its wait with the lock
// wait timeout, and the lock is handed to nobody: the holder's unlock
// empties the table. A Tx that waits while the holder lets go gets it.
func TestLockForTimeout(t *testing.T) {
	var tbl lockTable
	var w txWaits
	h := lockHash([]byte("row"))
	tbl.lockSet([]uint64{h})
	err := tbl.lockFor(&w, h, 30*time.Millisecond)
	if !errors.Is(err, errLockTimeout) || !errors.Is(err, model.ErrLockTimeout) || !errors.Is(err, ErrConflict) {
		t.Fatalf("wait for a held lock: %v, want the lock wait timeout (ErrConflict, model.ErrLockTimeout)", err)
	}
	tbl.unlockSet([]uint64{h})
	if n := tbl.shard(h).n; n != 0 {
		t.Fatalf("%d locks held after the holder's unlock", n)
	}
	tbl.lockSet([]uint64{h})
	go func() {
		time.Sleep(20 * time.Millisecond)
		tbl.unlockSet([]uint64{h})
	}()
	if err := tbl.lockFor(&w, h, time.Minute); err != nil {
		t.Fatalf("wait for a lock released meanwhile: %v", err)
	}
	tbl.unlockSet([]uint64{h})
	checkLocksReleased(t, &tbl)
}

// tryLock locks h if nobody holds it, and reports whether it did: the
// tests' probe of what the table holds.
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
