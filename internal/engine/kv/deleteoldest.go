package kv

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"rumbench/internal/model"
)

// DeleteOldest implements model.Ops: it reads the first n PK keys at or
// above from, locks them, and deletes what is still there in one commit.
//
// PK entries are deleted with point deletes: SingleDelete would be wrong
// because Update (and Insert without the unique check) may set a key more
// than once, and a range delete would also remove rows inserted after the
// keys were read (and the Store's DeleteRange is not part of the Txn). The
// caller's bound keeps the iteration above the tombstones of earlier
// deletes, as it does for every engine.
func (c *conn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if _, err := c.check(ctx, t); err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, nil
	}
	c.db.txMu.RLock()
	defer c.db.txMu.RUnlock()
	st, err := c.lookup(ctx, t)
	if err != nil {
		return 0, err
	}
	if c.from, err = st.appendPKBound(c.from[:0], from); err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	// A try deletes nothing only when a row was written below the keys it
	// read (or a concurrent delete took them); the next try sees that row.
	empty, conflicts := 0, 0
	for {
		deleted, found, err := c.deleteOldestOnce(st, n)
		if errors.Is(err, ErrConflict) {
			// The store rolled the try back (a concurrent Update of a
			// row it read on a ConcurrentStore, or WT_ROLLBACK under
			// cache pressure): nothing was deleted. The try is run
			// again whole, from its reads, after a backoff, or the two
			// writers may keep failing each other.
			if werr := c.db.retryWait(ctx, conflicts, err); werr != nil {
				return 0, fmt.Errorf("delete from %s: %w", t.Name, werr)
			}
			conflicts++
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
		}
		if deleted > 0 || found == 0 || empty == 2 {
			return deleted, nil
		}
		empty++
	}
}

// deleteOldestOnce is one try of DeleteOldest from c.from; it returns the
// rows deleted and the keys found by the lock-free pass.
func (c *conn) deleteOldestOnce(st *tableState, n int) (deleted, found int, err error) {
	// Pass 1, lock-free: which keys are the oldest.
	c.delLocks = c.delLocks[:0]
	if found, err = c.oldestKeysInView(st, n); err != nil || found == 0 {
		return 0, found, err
	}
	c.delLocks = sortHashes(c.delLocks)
	c.db.rows.lockSet(c.delLocks)
	defer c.db.rows.unlockSet(c.delLocks)
	txn, err := c.db.store.Begin(false)
	if err != nil {
		return 0, found, err
	}
	// Pass 2, from the bound (not the first key seen: a row may have been
	// inserted in between): delete the rows that are (still) there and
	// whose locks we hold.
	deleted, err = c.deleteOldest(txn, st, n, c.from, c.upTo, c.delLocks)
	if err != nil {
		txn.Rollback()
		return 0, found, err
	}
	if err := txn.Commit(); err != nil {
		return 0, found, fmt.Errorf("commit: %w", err)
	}
	return deleted, found, nil
}

// oldestKeysInView is oldestKeys in a new view.
func (c *conn) oldestKeysInView(st *tableState, n int) (int, error) {
	v, err := c.db.store.NewView()
	if err != nil {
		return 0, err
	}
	defer v.Close()
	return c.oldestKeys(v, st, n)
}

// oldestKeys appends the lock hashes of the first n PK keys from c.from in
// r to c.delLocks, leaves the exclusive bound of the keys seen in c.upTo
// and returns how many keys it saw.
func (c *conn) oldestKeys(r Reader, st *tableState, n int) (int, error) {
	it, err := r.NewIter(c.from, st.pk.end)
	if err != nil {
		return 0, err
	}
	found := 0
	for ok := it.First(); ok && found < n; ok = it.Next() {
		c.delLocks = append(c.delLocks, lockHash(it.Key()))
		c.upTo = append(c.upTo[:0], it.Key()...)
		found++
	}
	if err := it.Error(); err != nil {
		it.Close()
		return 0, err
	}
	// The smallest key above the last one seen.
	c.upTo = append(c.upTo, 0)
	return found, it.Close()
}

// deleteOldest deletes up to n of the first rows in [from, to) with their
// index entries. With locked set (sorted lock hashes), it stops at the first
// row whose lock is not in it. In a Tx on a ConcurrentStore (no locked set,
// rw an UpdateTxn) each row is read again with GetForUpdate before its
// index entries are derived from it, so a concurrent Update of it cannot
// leave a stale entry behind.
func (c *conn) deleteOldest(rw Txn, st *tableState, n int, from, to []byte, locked []uint64) (int, error) {
	if u, ok := rw.(UpdateTxn); ok && locked == nil {
		return c.deleteOldestForUpdate(u, st, n, from, to)
	}
	c.rowsFor(st)
	c.arena.reset()
	it, err := rw.NewIter(from, to)
	if err != nil {
		return 0, err
	}
	rows := 0
	for ok := it.First(); ok && rows < n; ok = it.Next() {
		k := it.Key()
		if locked != nil {
			if _, held := slices.BinarySearch(locked, lockHash(k)); !held {
				break
			}
		}
		c.scratch, err = st.pk.decodeKey(k, c.row, true, c.scratch[:0])
		if err == nil {
			err = st.decodeValue(it.Value(), c.row)
		}
		if err != nil {
			it.Close()
			return 0, err
		}
		c.arena.add(append(c.arena.buf, k...))
		for i := range st.ixs {
			c.arena.add(st.ixs[i].appendKey(c.arena.buf, c.row))
		}
		rows++
	}
	if err := it.Error(); err != nil {
		it.Close()
		return 0, err
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	for i := 0; i < c.arena.len(); i++ {
		if err := rw.Delete(c.arena.key(i)); err != nil {
			return 0, err
		}
	}
	return rows, nil
}

// deleteOldestForUpdate is deleteOldest in a Tx on a ConcurrentStore: the
// keys come from an iterator, each row from GetForUpdate.
func (c *conn) deleteOldestForUpdate(u UpdateTxn, st *tableState, n int, from, to []byte) (int, error) {
	c.rowsFor(st)
	c.pks.reset()
	it, err := u.NewIter(from, to)
	if err != nil {
		return 0, err
	}
	for ok := it.First(); ok && c.pks.len() < n; ok = it.Next() {
		c.pks.add(append(c.pks.buf, it.Key()...))
	}
	if err := it.Error(); err != nil {
		it.Close()
		return 0, err
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	rows := 0
	for i := 0; i < c.pks.len(); i++ {
		k := c.pks.key(i)
		val, found, err := u.GetForUpdate(k, c.getBuf)
		c.getBuf = val[:0]
		if err != nil {
			return rows, err
		}
		if !found {
			continue // deleted meanwhile
		}
		c.scratch, err = st.pk.decodeKey(k, c.row, true, c.scratch[:0])
		if err == nil {
			err = st.decodeValue(val, c.row)
		}
		if err != nil {
			return rows, err
		}
		for j := range st.ixs {
			c.key2 = st.ixs[j].appendKey(c.key2[:0], c.row)
			if err := u.Delete(c.key2); err != nil {
				return rows, err
			}
		}
		if err := u.Delete(k); err != nil {
			return rows, err
		}
		rows++
	}
	return rows, nil
}
