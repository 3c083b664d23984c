package kv

import (
	"math/rand"
	"sync"
	"testing"
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
