package kv

import (
	"context"
	"fmt"

	"rumbench/internal/model"
)

// Insert implements model.Ops. With the unique check (the default) it locks
// the rows' primary keys, reads each one, and writes the batch only if none
// exists, so two concurrent inserts of one key cannot both succeed.
//
// The insert locks (DB.inserts) are not the row locks of Update and
// DeleteOldest: an insert only has to exclude other inserts of its keys. A
// concurrent Update or DeleteOldest of a key the check finds makes the
// insert fail, as it would had it run just before them; of a key it does
// not find, they change nothing. So the deleter of a table (working on the
// oldest keys) never waits for its inserter (working on the newest).
func (c *conn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	st, err := c.check(ctx, t)
	if err != nil || len(rows) == 0 {
		return err
	}
	c.db.txMu.RLock()
	defer c.db.txMu.RUnlock()
	// Reload under the lock: a schema change may have finished meanwhile.
	if st, err = c.lookup(ctx, t); err != nil {
		return err
	}
	if c.db.uniqueCheck {
		if err := c.pkKeys(st, rows); err != nil {
			return err
		}
		claimed, err := c.claimTail(st)
		if err != nil {
			return err
		}
		if claimed {
			// Every key lies above the table's: nothing to read or lock.
			defer st.tail.releaseClaim(c)
		} else if err := c.lockAndCheck(st, rows); err != nil {
			return err
		} else {
			defer c.unlockInsert(st)
		}
	}
	// The unique check encoded the PK keys already (c.pks, in row order).
	c.pkDone = c.db.uniqueCheck
	err = c.insert(c.batch, st, rows)
	c.pkDone = false
	if err != nil {
		c.batch.Reset()
		return err
	}
	if err := c.db.commitBatch(ctx, c.batch); err != nil {
		return fmt.Errorf("insert into %s: commit: %w", t.Name, err)
	}
	return nil
}

// claimTail claims the range of an Insert's keys (pkKeys) when they ascend
// strictly above every key of the table (pktail.go). Tables with unique
// secondary indexes check every row.
func (c *conn) claimTail(st *tableState) (bool, error) {
	if !c.pkAscending || st.hasUnique() {
		return false, nil
	}
	lo, hi := c.pkRange()
	return st.tail.tryClaim(c, st, lo, hi)
}

// lockAndCheck is Insert's duplicate-key check of rows (keys from pkKeys):
// it takes the keys' insert locks (and unique prefixes'), waits for the
// appending inserts in flight whose range holds a key, and reads the keys
// in a view. On success the locks stay held until unlockInsert.
func (c *conn) lockAndCheck(st *tableState, rows []model.Row) error {
	c.insLocks = c.insLocks[:0]
	for i := 0; i < c.pks.len(); i++ {
		c.insLocks = append(c.insLocks, lockHash(c.pks.key(i)))
	}
	c.insLocks = sortHashes(c.insLocks)
	unique := st.hasUnique()
	if unique {
		if err := c.uniqueKeys(st, rows); err != nil {
			return err
		}
	}
	c.db.inserts.lockSet(c.insLocks)
	if unique {
		c.db.uniques.lockSet(c.uqLocks)
	}
	lo, hi := c.pkRange()
	_ = st.tail.waitClaims(lo, hi, 0) // unbounded: never fails
	v, err := c.db.store.NewView()
	if err != nil {
		c.unlockInsert(st)
		return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
	}
	err = c.checkUnique(v, st, rows)
	if err == nil && unique {
		err = c.checkUniqueIndexes(v, st, rows)
	}
	// Closed before the commit: bbolt cannot write while a view is open.
	if cerr := v.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("insert into %s: %w", st.schema.Name, cerr)
	}
	if err != nil {
		c.unlockInsert(st)
		return err
	}
	return nil
}

// unlockInsert releases the locks lockAndCheck took.
func (c *conn) unlockInsert(st *tableState) {
	if st.hasUnique() {
		c.db.uniques.unlockSet(c.uqLocks)
	}
	c.db.inserts.unlockSet(c.insLocks)
}

// Get implements model.Ops.
func (c *conn) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	st, err := c.check(ctx, t)
	if err != nil {
		return 0, err
	}
	v, err := c.db.store.NewView()
	if err != nil {
		return 0, fmt.Errorf("get from %s: %w", t.Name, err)
	}
	defer v.Close()
	return c.get(v, st, keys, fn)
}

// Scan implements model.Ops.
func (c *conn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	st, err := c.check(ctx, t)
	if err != nil {
		return 0, err
	}
	v, err := c.db.store.NewView()
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	defer v.Close()
	return c.scan(ctx, v, st, t, spec, fn)
}

// Update implements model.Ops. On a ConcurrentStore the store's own
// transaction makes the read-modify-write atomic (a conflict is returned as
// the engine's error, matching ErrConflict); otherwise the row's lock
// does, against other Updates and DeleteOldest.
func (c *conn) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if _, err := c.check(ctx, t); err != nil {
		return false, err
	}
	c.db.txMu.RLock()
	defer c.db.txMu.RUnlock()
	st, err := c.lookup(ctx, t)
	if err != nil {
		return false, err
	}
	if len(pk) != len(st.schema.PK) {
		return false, fmt.Errorf("update %s: key has %d values, the primary key %d columns", t.Name, len(pk), len(st.schema.PK))
	}
	txn, locked, err := c.beginRow(st.appendPKKey(c.key[:0], pk))
	if err != nil {
		return false, fmt.Errorf("update %s: %w", t.Name, err)
	}
	if locked {
		defer c.unlockRow()
	}
	found, err := c.update(txn, st, pk, changes)
	return c.finishRow(txn, found, err, "update", t.Name)
}

// Delete implements model.Ops. Like Update, it runs in the store's own
// transaction on a ConcurrentStore and under the row's lock
// otherwise.
func (c *conn) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if _, err := c.check(ctx, t); err != nil {
		return false, err
	}
	c.db.txMu.RLock()
	defer c.db.txMu.RUnlock()
	st, err := c.lookup(ctx, t)
	if err != nil {
		return false, err
	}
	if len(pk) != len(st.schema.PK) {
		return false, fmt.Errorf("delete from %s: key has %d values, the primary key %d columns", t.Name, len(pk), len(st.schema.PK))
	}
	txn, locked, err := c.beginRow(st.appendPKKey(c.key[:0], pk))
	if err != nil {
		return false, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	if locked {
		defer c.unlockRow()
	}
	found, err := c.del(txn, st, pk)
	return c.finishRow(txn, found, err, "delete from", t.Name)
}

// Upsert implements model.Ops. It holds the key's insert lock (so no Insert
// of the key runs meanwhile) and then works like Update: the store's
// transaction on a ConcurrentStore, the row's lock otherwise.
func (c *conn) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if _, err := c.check(ctx, t); err != nil {
		return err
	}
	c.db.txMu.RLock()
	defer c.db.txMu.RUnlock()
	st, err := c.lookup(ctx, t)
	if err != nil {
		return err
	}
	if len(row) != len(st.schema.Columns) {
		return fmt.Errorf("upsert into %s: row has %d values, the table %d columns", t.Name, len(row), len(st.schema.Columns))
	}
	c.key = st.pk.appendKey(c.key[:0], row)
	c.insLock[0] = lockHash(c.key)
	c.db.inserts.lockSet(c.insLock[:])
	defer c.db.inserts.unlockSet(c.insLock[:])
	if c.db.uniqueCheck {
		_ = st.tail.waitClaims(c.key, c.key, 0) // unbounded: never fails
	}
	txn, locked, err := c.beginRow(c.key)
	if err != nil {
		return fmt.Errorf("upsert into %s: %w", t.Name, err)
	}
	if locked {
		defer c.unlockRow()
	}
	err = c.upsert(txn, st, row, changes)
	_, err = c.finishRow(txn, true, err, "upsert into", t.Name)
	return err
}
