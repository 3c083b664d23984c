package kv

import (
	"bytes"
	"fmt"
	"sync"
	"time"
)

// pkTail lets an Insert of ascending primary keys above every key its
// table holds skip the duplicate-key check's read and its per-key locks:
// the insert benchmark's inserts, and a load's, which append to their
// table. It is what a B-tree gets from its rightmost leaf, which it reads
// anyway to append: proof, at no cost per row, that no key above the
// table's largest exists.
//
// high is an upper bound of every primary key the table holds or an
// operation in flight may write. Every operation that may write a new
// primary key raises high to its keys before it checks them (raise), so
// high never falls below a key that exists or is about to; a key rolled
// back leaves high where it was, which only makes later inserts check.
//
// An Insert whose keys are strictly ascending and all above high claims
// the range [its first key, its last key] instead (tryClaim): it raises
// high to its last key, writes without reading or locking its keys, and
// releases the claim after its commit. Any other writer of a new key in a
// claimed range waits for the claim's release before it reads its keys
// (waitClaims), so it sees the claim's rows; two claims never overlap,
// since the second's keys must lie above the first's last.
type pkTail struct {
	mu      sync.Mutex
	release sync.Cond // signalled when a claim is released
	// known: high bounds the stored keys too, read once (the first
	// tryClaim reads the table's last PK key).
	known  bool
	high   []byte // nil: no key
	claims []tailClaim
}

// tailClaim is an Insert's claim of [lo, hi]; the keys are the Insert's
// own (its conn's buffer), valid until it releases the claim.
type tailClaim struct {
	owner  *conn
	lo, hi []byte
}

func newPKTail() *pkTail {
	t := &pkTail{}
	t.release.L = &t.mu
	return t
}

// raiseLocked raises high to key; t.mu is held.
func (t *pkTail) raiseLocked(key []byte) {
	if t.high == nil || bytes.Compare(key, t.high) > 0 {
		t.high = append(t.high[:0], key...) // never empty: keys lead with their table's prefix
	}
}

// overlaps reports whether a claim other than owner's intersects [lo, hi];
// t.mu is held.
func (t *pkTail) overlaps(lo, hi []byte) bool {
	for _, cl := range t.claims {
		if bytes.Compare(cl.lo, hi) <= 0 && bytes.Compare(lo, cl.hi) <= 0 {
			return true
		}
	}
	return false
}

// tryClaim claims [lo, hi] for c's Insert if lo is above every key the
// table may hold, reading the table's last key first if it is not known
// yet (r reads the store). lo <= hi.
func (t *pkTail) tryClaim(c *conn, st *tableState, lo, hi []byte) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.known {
		last, err := lastKey(c.db.store, st.pk.start, st.pk.end)
		if err != nil {
			return false, fmt.Errorf("insert into %s: read its last key: %w", st.schema.Name, err)
		}
		if last != nil {
			t.raiseLocked(last)
		}
		t.known = true
	}
	if t.high != nil && bytes.Compare(lo, t.high) <= 0 {
		return false, nil
	}
	t.claims = append(t.claims, tailClaim{owner: c, lo: lo, hi: hi})
	t.raiseLocked(hi)
	return true, nil
}

// releaseClaim ends c's claim, committed or not.
func (t *pkTail) releaseClaim(c *conn) {
	t.mu.Lock()
	for i, cl := range t.claims {
		if cl.owner == c {
			t.claims = append(t.claims[:i], t.claims[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	t.release.Broadcast()
}

// waitClaims raises high to hi and waits until no claim intersects
// [lo, hi], the range of the new keys a writer is about to check. After
// the raise no new claim can intersect it, so the wait ends with the
// claims in flight. A Tx waits up to wait (tx.lockWait), as for its
// other kv-layer locks: a claim's commit may wait in the store for a lock
// the Tx holds; 0 waits as long as it takes.
func (t *pkTail) waitClaims(lo, hi []byte, wait time.Duration) error {
	t.mu.Lock()
	t.raiseLocked(hi)
	if wait == 0 {
		for t.overlaps(lo, hi) {
			t.release.Wait()
		}
		t.mu.Unlock()
		return nil
	}
	busy := t.overlaps(lo, hi) // checked under the raise's lock: one lock when free
	t.mu.Unlock()
	if !busy {
		return nil
	}
	return txWait(wait, func() bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		return !t.overlaps(lo, hi)
	})
}

// lastKey returns a copy of the largest key in [lo, hi), or nil.
func lastKey(s Store, lo, hi []byte) ([]byte, error) {
	v, err := s.NewView()
	if err != nil {
		return nil, err
	}
	defer v.Close()
	it, err := v.NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	var last []byte
	if it.Last() {
		last = append([]byte{}, it.Key()...)
	}
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return last, err
}
