package kv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"rumbench/internal/model"
)

// tx implements model.Tx: see the isolation notes in the package doc.
type tx struct {
	c   *conn
	txn Txn
	// cc: the Tx runs in a ConcurrentStore's transaction (BeginUpdate);
	// rl: in a plain one of a store whose transactions may run at once,
	// isolated by the kv layer's row locks (Config.RowLockedTx). Either
	// holds the transaction lock shared; else the Tx holds it exclusively.
	cc, rl bool
	// held, uqHeld and rowHeld are the insert, unique-prefix and row
	// locks the Tx holds until it ends (cc and rl only; rows rl only).
	held, uqHeld, rowHeld []uint64
	waits                 txWaits
}

func (x *tx) unlockTxMu() {
	if x.cc || x.rl {
		x.c.db.txMu.RUnlock()
	} else {
		x.c.db.txMu.Unlock()
	}
}

// lockKeys takes the locks of hs in t that x does not hold yet, waiting
// for each up to txLockWait (beside a store's own locks) or RowLockWait
// (row-locked transactions, where the kv layer's are the only ones), and
// records them in *held.
func (x *tx) lockKeys(t *lockTable, held *[]uint64, hs []uint64) error {
	wait := x.lockWait()
	for _, h := range hs {
		if slices.Contains(*held, h) {
			continue
		}
		if err := t.lockFor(&x.waits, h, wait); err != nil {
			return err
		}
		*held = append(*held, h)
	}
	return nil
}

// lockWait is how long the Tx waits for a kv-layer lock or an appending
// insert's claim: txLockWait beside a store's own locks (a cycle with
// them is broken only by this timeout) and in a serial Tx, RowLockWait in
// a row-locked one, where nothing else can be in the way (an appending
// insert's commit waits for no lock, only, at worst, for a write stall).
func (x *tx) lockWait() time.Duration {
	if x.rl {
		return RowLockWait
	}
	return txLockWait
}

// lockRowOf takes, in a row-locked Tx (in others it does nothing), the
// lock of the row whose primary key is pk until the Tx ends: the lock
// autocommit Update, Delete, Upsert and DeleteOldest take on such a store
// (beginRow, deleteOldestOnce).
func (x *tx) lockRowOf(st *tableState, pk model.Row) error {
	if !x.rl {
		return nil
	}
	if len(pk) != len(st.schema.PK) {
		return fmt.Errorf("key has %d values, the primary key %d columns", len(pk), len(st.schema.PK))
	}
	x.c.rowLock[0] = lockHash(st.appendPKKey(x.c.key[:0], pk))
	return x.lockKeys(&x.c.db.rows, &x.rowHeld, x.c.rowLock[:])
}

func (x *tx) check(ctx context.Context, t *model.Table) (*tableState, error) {
	if x.c.tx != x {
		return nil, errors.New("transaction is finished")
	}
	return x.c.lookup(ctx, t)
}

func (x *tx) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	st, err := x.check(ctx, t)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	if x.c.db.uniqueCheck {
		// Checking every row before writing any keeps a failed Insert
		// from leaving part of its rows in the Tx.
		var err error
		switch {
		case x.cc:
			err = x.checkInsertCC(st, rows)
		case x.rl:
			err = x.checkInsertRL(st, rows)
		default:
			err = x.checkInsert(st, rows)
		}
		if err != nil {
			return err
		}
	} else if x.cc || x.rl {
		// Even blind, an insert excludes inserts of its keys until the
		// Tx ends, as Upsert needs.
		if err := x.c.pkKeys(st, rows); err != nil {
			return err
		}
		if err := x.lockPKs(); err != nil {
			return err
		}
	}
	return x.c.insert(x.txn, st, rows)
}

// checkInsert is the unique check of a Tx that excludes every other write
// (it holds the transaction lock) and reads its own.
func (x *tx) checkInsert(st *tableState, rows []model.Row) error {
	c := x.c
	if err := c.pkKeys(st, rows); err != nil {
		return err
	}
	// No appending insert runs beside this Tx: this only raises the tail.
	lo, hi := c.pkRange()
	if err := st.tail.waitClaims(lo, hi, x.lockWait()); err != nil {
		return err
	}
	if err := c.checkUnique(x.txn, st, rows); err != nil {
		return err
	}
	if st.hasUnique() {
		if err := c.uniqueKeys(st, rows); err != nil {
			return err
		}
		return c.checkUniqueIndexes(x.txn, st, rows)
	}
	return nil
}

// checkInsertRL is the unique check of a row-locked Tx, which runs beside
// other writers: it holds the keys' insert locks (and unique prefixes')
// until the Tx ends, as checkInsertCC does, so no other Insert or Upsert of
// them runs between its check and its commit, waits for the appending
// inserts whose range holds a key, and reads the keys in the Tx: the
// latest committed state and the Tx's own writes.
func (x *tx) checkInsertRL(st *tableState, rows []model.Row) error {
	if err := x.lockInsert(st, rows); err != nil {
		return err
	}
	if err := x.c.checkUnique(x.txn, st, rows); err != nil {
		return err
	}
	if st.hasUnique() {
		return x.c.checkUniqueIndexes(x.txn, st, rows)
	}
	return nil
}

// lockInsert is the start of a concurrent Tx's unique check: it encodes
// the rows' keys (and unique prefixes), takes their locks until the Tx
// ends, and waits for the appending inserts whose range holds a key.
func (x *tx) lockInsert(st *tableState, rows []model.Row) error {
	c := x.c
	if err := c.pkKeys(st, rows); err != nil {
		return err
	}
	unique := st.hasUnique()
	if unique {
		if err := c.uniqueKeys(st, rows); err != nil {
			return err
		}
	}
	if err := x.lockPKs(); err != nil {
		return err
	}
	if unique {
		if err := x.lockKeys(&c.db.uniques, &x.uqHeld, c.uqLocks); err != nil {
			return err
		}
	}
	lo, hi := c.pkRange()
	return st.tail.waitClaims(lo, hi, x.lockWait())
}

// lockPKs takes the insert locks of the keys in c.pks for the Tx.
func (x *tx) lockPKs() error {
	c := x.c
	c.insLocks = c.insLocks[:0]
	for i := 0; i < c.pks.len(); i++ {
		c.insLocks = append(c.insLocks, lockHash(c.pks.key(i)))
	}
	return x.lockKeys(&c.db.inserts, &x.held, sortHashes(c.insLocks))
}

// checkInsertCC is the unique check of a Tx on a ConcurrentStore, which
// runs beside other writers. It holds the keys' insert locks (and unique
// prefixes') until the Tx ends, so no other Insert or Upsert of them runs
// between its check and its commit, and reads each key with GetForUpdate:
// the latest committed value under the store's lock (RocksDB), or a
// snapshot read whose key the store makes the Tx's write conflict on if it
// changed since (WiredTiger). A unique prefix is read both in the Tx (its
// own writes) and in a new view (the latest commits: a snapshot would miss
// one, and other rows' entries do not conflict with this one's).
func (x *tx) checkInsertCC(st *tableState, rows []model.Row) error {
	c := x.c
	u := x.txn.(UpdateTxn)
	if err := x.lockInsert(st, rows); err != nil {
		return err
	}
	unique := st.hasUnique()
	for _, i := range c.pkIdx {
		val, found, err := u.GetForUpdate(c.pks.key(i), c.getBuf)
		c.getBuf = val[:0]
		if err != nil {
			return fmt.Errorf("insert into %s: unique check: %w", st.schema.Name, err)
		}
		if found {
			return c.duplicate(st, rows[i], "already in the table")
		}
	}
	if !unique {
		return nil
	}
	if err := c.checkUniqueIndexes(x.txn, st, rows); err != nil {
		return err
	}
	v, err := c.db.store.NewView()
	if err != nil {
		return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
	}
	err = c.checkUniqueIndexes(v, st, rows)
	if cerr := v.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("insert into %s: %w", st.schema.Name, cerr)
	}
	return err
}

func (x *tx) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	st, err := x.check(ctx, t)
	if err != nil || n <= 0 {
		return 0, err
	}
	if x.c.from, err = st.appendPKBound(x.c.from[:0], from); err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	if x.rl {
		deleted, err := x.deleteOldestRL(st, n)
		if err != nil {
			return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
		}
		return deleted, nil
	}
	deleted, err := x.c.deleteOldest(x.txn, st, n, x.c.from, st.pk.end, nil)
	if err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	return deleted, nil
}

// deleteOldestRL is DeleteOldest in a row-locked Tx, as the autocommit
// one runs (deleteOldestOnce): it finds the oldest keys in the Tx (its own
// writes included) without locks, locks their rows until the Tx ends, and
// deletes, in the Tx, the rows still there whose locks it holds.
func (x *tx) deleteOldestRL(st *tableState, n int) (int, error) {
	c := x.c
	c.delLocks = c.delLocks[:0]
	found, err := c.oldestKeys(x.txn, st, n)
	if err != nil || found == 0 {
		return 0, err
	}
	c.delLocks = sortHashes(c.delLocks)
	if err := x.lockKeys(&c.db.rows, &x.rowHeld, c.delLocks); err != nil {
		return 0, err
	}
	return c.deleteOldest(x.txn, st, n, c.from, c.upTo, c.delLocks)
}

func (x *tx) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	st, err := x.check(ctx, t)
	if err != nil {
		return 0, err
	}
	return x.c.get(x.txn, st, keys, fn)
}

func (x *tx) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	st, err := x.check(ctx, t)
	if err != nil {
		return 0, err
	}
	return x.c.scan(ctx, x.txn, st, t, spec, fn)
}

func (x *tx) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	st, err := x.check(ctx, t)
	if err != nil {
		return false, err
	}
	if err := x.lockRowOf(st, pk); err != nil {
		return false, fmt.Errorf("update %s: %w", t.Name, err)
	}
	found, err := x.c.update(x.txn, st, pk, changes)
	if err != nil {
		return false, fmt.Errorf("update %s: %w", t.Name, err)
	}
	return found, nil
}

func (x *tx) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	st, err := x.check(ctx, t)
	if err != nil {
		return false, err
	}
	if err := x.lockRowOf(st, pk); err != nil {
		return false, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	found, err := x.c.del(x.txn, st, pk)
	if err != nil {
		return false, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	return found, nil
}

func (x *tx) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	st, err := x.check(ctx, t)
	if err != nil {
		return err
	}
	switch {
	case x.cc:
		err = x.upsertCC(st, row, changes)
	case x.rl:
		err = x.upsertRL(st, row, changes)
	default:
		err = x.upsertExclusive(st, row, changes)
	}
	if err != nil {
		return fmt.Errorf("upsert into %s: %w", t.Name, err)
	}
	return nil
}

// upsertExclusive is Upsert in a Tx that excludes every other write (it
// holds the transaction lock): the row's key raises the table's tail, as
// any new key does (pktail.go).
func (x *tx) upsertExclusive(st *tableState, row model.Row, changes []model.Change) error {
	c := x.c
	if c.db.uniqueCheck && len(row) == len(st.schema.Columns) {
		c.key = st.pk.appendKey(c.key[:0], row)
		if err := st.tail.waitClaims(c.key, c.key, x.lockWait()); err != nil {
			return err
		}
	}
	return c.upsert(x.txn, st, row, changes)
}

// upsertKey checks an upserted row's width and leaves its PK entry key in
// c.key and the key's lock hash in c.insLock.
func (x *tx) upsertKey(st *tableState, row model.Row) error {
	c := x.c
	if len(row) != len(st.schema.Columns) {
		return fmt.Errorf("row has %d values, the table %d columns", len(row), len(st.schema.Columns))
	}
	c.key = st.pk.appendKey(c.key[:0], row)
	c.insLock[0] = lockHash(c.key)
	return nil
}

// upsertRL is Upsert in a row-locked Tx: the key's insert lock, then its
// row lock, held until the Tx ends (the autocommit Upsert's order), then
// the read-modify-write in the Tx.
func (x *tx) upsertRL(st *tableState, row model.Row, changes []model.Change) error {
	c := x.c
	if err := x.upsertKey(st, row); err != nil {
		return err
	}
	if err := x.lockKeys(&c.db.inserts, &x.held, c.insLock[:]); err != nil {
		return err
	}
	if err := x.lockKeys(&c.db.rows, &x.rowHeld, c.insLock[:]); err != nil {
		return err
	}
	if c.db.uniqueCheck {
		if err := st.tail.waitClaims(c.key, c.key, x.lockWait()); err != nil {
			return err
		}
	}
	return c.upsert(x.txn, st, row, changes)
}

// upsertCC is Upsert in a Tx on a ConcurrentStore. An existing row is
// updated under the store's isolation (GetForUpdate), with no lock of the
// kv layer, so concurrent upserts of one row (LinkBench's counts) wait for
// each other in the store (RocksDB) or conflict there (WiredTiger). Only
// when the row is missing does it take the key's insert lock, held until
// the Tx ends (no Insert or Upsert of the key runs before it commits), and
// reads the row again.
func (x *tx) upsertCC(st *tableState, row model.Row, changes []model.Change) error {
	c := x.c
	if err := x.upsertKey(st, row); err != nil {
		return err
	}
	if !slices.Contains(x.held, c.insLock[0]) {
		c.pkv = c.pkv[:0]
		for _, p := range st.schema.PK {
			c.pkv = append(c.pkv, row[p])
		}
		found, err := c.update(x.txn, st, c.pkv, changes)
		if err != nil || found {
			return err
		}
		if err := x.lockKeys(&c.db.inserts, &x.held, c.insLock[:]); err != nil {
			return err
		}
		if c.db.uniqueCheck {
			c.key = st.pk.appendKey(c.key[:0], row)
			if err := st.tail.waitClaims(c.key, c.key, x.lockWait()); err != nil {
				return err
			}
		}
	}
	return c.upsert(x.txn, st, row, changes)
}

func (x *tx) finish() {
	x.c.db.inserts.unlockSet(x.held)
	x.c.db.uniques.unlockSet(x.uqHeld)
	x.c.db.rows.unlockSet(x.rowHeld)
	x.c.heldBuf, x.c.uqHeldBuf, x.c.rowHeldBuf = x.held[:0], x.uqHeld[:0], x.rowHeld[:0]
	x.held, x.uqHeld, x.rowHeld = nil, nil, nil
	x.c.tx = nil
	x.unlockTxMu()
}

func (x *tx) Commit(ctx context.Context) error {
	if x.c.tx != x {
		return errors.New("transaction is finished")
	}
	defer x.finish()
	if err := x.txn.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (x *tx) Rollback(ctx context.Context) error {
	if x.c.tx != x {
		return nil
	}
	defer x.finish()
	if err := x.txn.Rollback(); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}
