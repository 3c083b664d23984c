package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/model"
)

// conn implements model.Conn and model.Transactor. It owns every buffer its
// operations need, so steady-state operations allocate nothing per row.
type conn struct {
	db    *DB
	batch Batch
	tx    *tx // the open transaction, if any
	// buffers of the Tx's lock lists, kept across Txs
	heldBuf, uqHeldBuf []uint64
	done               bool

	// cached table lookup
	lastName string
	lastGen  uint64
	lastSt   *tableState

	key, key2, val, getBuf []byte
	lo, hi                 []byte
	from, upTo             []byte // DeleteOldest bounds
	scratch                []byte
	row, row2, proj        model.Row
	pkv                    model.Row   // Upsert: the row's PK values
	one                    []model.Row // Upsert: the row as a batch
	arena                  keyArena
	pks                    keyArena // PK keys of an Insert (unique check)
	pkIdx                  []int    // indexes of c.pks in key order
	pkSort                 []keyWords
	upper                  []byte   // the unique check's range bound
	pkDone                 bool     // insert: c.pks holds the rows' PK keys
	insLocks, delLocks     []uint64 // Insert's and DeleteOldest's key locks (sorted)
	rowLock, insLock       [1]uint64
	uqs                    keyArena // unique prefixes of an Insert (unique.go)
	uqLocks                []uint64
	uqIdx                  []int
}

func newConn(d *DB) *conn {
	return &conn{db: d, batch: d.store.NewBatch()}
}

var _ model.Conn = (*conn)(nil)
var _ model.Transactor = (*conn)(nil)

func (c *conn) check(ctx context.Context, t *model.Table) (*tableState, error) {
	if c.done {
		return nil, errors.New("connection is closed")
	}
	if c.tx != nil {
		return nil, errors.New("connection has an open transaction: use the Tx")
	}
	return c.lookup(ctx, t)
}

func (c *conn) lookup(ctx context.Context, t *model.Table) (*tableState, error) {
	if err := c.db.checkOpen(ctx); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errors.New("nil table")
	}
	if g := c.db.gen.Load(); g == c.lastGen && c.lastSt != nil && t.Name == c.lastName {
		return c.lastSt, nil
	}
	// Load the generation before the map so a concurrent publish can only
	// make the cache miss later, never hold a stale entry.
	g := c.db.gen.Load()
	st, err := c.db.table(t.Name)
	if err != nil {
		return nil, err
	}
	c.lastName, c.lastGen, c.lastSt = t.Name, g, st
	return st, nil
}

// rowsFor sizes the conn's row buffers for a table.
func (c *conn) rowsFor(st *tableState) {
	n := len(st.schema.Columns)
	if cap(c.row) < n {
		c.row = make(model.Row, n)
		c.row2 = make(model.Row, n)
	}
	c.row, c.row2 = c.row[:n], c.row2[:n]
}

// Close implements model.Conn. An open transaction is rolled back.
func (c *conn) Close() error {
	if c.done {
		return nil
	}
	if c.tx != nil {
		c.tx.Rollback(context.Background())
	}
	c.done = true
	return c.batch.Close()
}

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
		defer c.db.inserts.unlockSet(c.insLocks)
		if unique {
			c.db.uniques.lockSet(c.uqLocks)
			defer c.db.uniques.unlockSet(c.uqLocks)
		}
		v, err := c.db.store.NewView()
		if err != nil {
			return fmt.Errorf("insert into %s: %w", t.Name, err)
		}
		err = c.checkUnique(v, st, rows)
		if err == nil && unique {
			err = c.checkUniqueIndexes(v, st, rows)
		}
		// Closed before the commit: bbolt cannot write while a view is open.
		if cerr := v.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("insert into %s: %w", t.Name, cerr)
		}
		if err != nil {
			return err
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

// pkKeys checks the rows' lengths, collects their PK entry keys in c.pks and
// their order in c.pkIdx (c.pks.key(c.pkIdx[0]) is the smallest), and fails
// if a key is there twice.
func (c *conn) pkKeys(st *tableState, rows []model.Row) error {
	ncols := len(st.schema.Columns)
	c.pks.reset()
	c.pkIdx = c.pkIdx[:0]
	sorted := true
	for i, r := range rows {
		if len(r) != ncols {
			return fmt.Errorf("insert into %s: row %d has %d values, the table %d columns", st.schema.Name, i, len(r), ncols)
		}
		c.pks.add(st.pk.appendKey(c.pks.buf, r))
		c.pkIdx = append(c.pkIdx, i)
		if i > 0 && bytes.Compare(c.pks.key(i-1), c.pks.key(i)) >= 0 {
			sorted = false
		}
	}
	if sorted {
		return nil // strictly ascending (ibench's batches): no duplicate
	}
	c.pkSort = sortKeys(&c.pks, c.pkSort, c.pkIdx)
	for i := 1; i < len(c.pkIdx); i++ {
		if bytes.Equal(c.pks.key(c.pkIdx[i-1]), c.pks.key(c.pkIdx[i])) {
			return c.duplicate(st, rows[c.pkIdx[i]], "twice in the batch")
		}
	}
	return nil
}

// checkUnique fails if the PK of a row (keys in c.pks, order in c.pkIdx)
// is already in r. It merges the batch's keys, in order, with the stored
// keys of the range they span, read by one iterator: a key below the
// iterator's position is absent without a read of its own. The iterator
// steps (Next) over a few stored keys and seeks past longer runs, so a
// batch of new keys costs one seek per run of it that no stored key
// interleaves: one for ibench's increasing keys, a few for a LinkBench load
// batch (keys lead with the link type; the one node whose links straddle
// two batches interleaves with the earlier batch), instead of a point read
// per row, the kv layer's largest cost next to the store's own writes.
// When the batch's keys are scattered among many stored ones (the seeks
// reach an eighth of the batch's keys), the rest are read with point
// reads, which an LSM answers from its bloom filters. Every key is checked either way.
func (c *conn) checkUnique(r Reader, st *tableState, rows []model.Row) error {
	n := c.pks.len()
	next := 0 // c.pkIdx[next:] are not checked yet
	if n > 1 {
		var err error
		if next, err = c.walkUnique(r, st, rows); err != nil {
			return err
		}
	}
	for ; next < n; next++ {
		i := c.pkIdx[next]
		val, found, err := r.Get(c.pks.key(i), c.getBuf)
		c.getBuf = val[:0]
		if err != nil {
			return fmt.Errorf("insert into %s: unique check: %w", st.schema.Name, err)
		}
		if found {
			return c.duplicate(st, rows[i], "already in the table")
		}
	}
	return nil
}

// walkSteps is how many stored keys the unique check's iterator steps over
// before it seeks instead.
const walkSteps = 4

// walkUnique is checkUnique's ordered walk; it returns how many keys (in
// c.pkIdx order) it checked: all, unless it gave up on seeking.
func (c *conn) walkUnique(r Reader, st *tableState, rows []model.Row) (int, error) {
	n := c.pks.len()
	key := func(j int) []byte { return c.pks.key(c.pkIdx[j]) }
	c.upper = append(append(c.upper[:0], key(n-1)...), 0) // just past the largest
	it, err := r.NewIter(key(0), c.upper)
	if err != nil {
		return 0, fmt.Errorf("insert into %s: unique check: %w", st.schema.Name, err)
	}
	j, seeks, steps, dup := 0, 0, 0, -1
	ok := it.First()
	for j < n {
		if !ok {
			if it.Error() == nil {
				j = n // no stored key at or above key(j): the rest are new
			}
			break
		}
		cmp := bytes.Compare(key(j), it.Key())
		if cmp == 0 {
			dup = c.pkIdx[j]
			break
		}
		if cmp < 0 { // key(j) is not stored
			j++
			steps = 0
			continue
		}
		if steps < walkSteps {
			ok = it.Next()
			steps++
			continue
		}
		if seeks >= max(8, n/8) {
			break // the batch is scattered among stored keys: point reads
		}
		ok = it.SeekGE(key(j))
		seeks++
		steps = 0
	}
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("insert into %s: unique check: %w", st.schema.Name, err)
	}
	if dup >= 0 {
		return 0, c.duplicate(st, rows[dup], "already in the table")
	}
	return j, nil
}

// duplicate is the error of an insert of row, whose PK is a duplicate.
func (c *conn) duplicate(st *tableState, row model.Row, where string) error {
	var b strings.Builder
	for i, p := range st.schema.PK {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=", st.schema.Columns[p].Name)
		if st.schema.Columns[p].Type == model.String {
			fmt.Fprintf(&b, "%q", row[p].Bytes)
		} else {
			fmt.Fprintf(&b, "%d", row[p].Int)
		}
	}
	return fmt.Errorf("insert into %s: %w (%s) %s", st.schema.Name, model.ErrDuplicateKey, b.String(), where)
}

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
	if found, err = c.oldestKeys(st, n); err != nil || found == 0 {
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

// oldestKeys appends the lock hashes of the first n PK keys from c.from to
// c.delLocks, leaves the exclusive bound of the keys seen in c.upTo and
// returns how many keys it saw.
func (c *conn) oldestKeys(st *tableState, n int) (int, error) {
	v, err := c.db.store.NewView()
	if err != nil {
		return 0, err
	}
	defer v.Close()
	it, err := v.NewIter(c.from, st.pk.end)
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

// beginRow starts the transaction of a one-row write of the row whose PK
// entry key is key: the store's own on a ConcurrentStore, else a plain one
// under the row's lock, which the caller releases with unlockRow when
// locked is true (a flag, not a returned func: a method value would be an
// allocation per write).
func (c *conn) beginRow(key []byte) (txn Txn, locked bool, err error) {
	if c.db.cc != nil {
		txn, err := c.db.cc.BeginUpdate()
		return txn, false, err
	}
	c.rowLock[0] = lockHash(key)
	c.db.rows.lockSet(c.rowLock[:])
	txn, err = c.db.store.Begin(false)
	if err != nil {
		c.db.rows.unlockSet(c.rowLock[:])
		return nil, false, err
	}
	return txn, true, nil
}

// unlockRow releases the lock beginRow took.
func (c *conn) unlockRow() { c.db.rows.unlockSet(c.rowLock[:]) }

// finishRow commits txn when the write found its row and did not fail, and
// rolls it back otherwise; errors say "verb table: ...".
func (c *conn) finishRow(txn Txn, found bool, err error, verb, table string) (bool, error) {
	if err != nil || !found {
		txn.Rollback()
		if err != nil {
			return false, fmt.Errorf("%s %s: %w", verb, table, err)
		}
		return false, nil
	}
	if err := txn.Commit(); err != nil {
		return false, fmt.Errorf("%s %s: commit: %w", verb, table, err)
	}
	return true, nil
}

// Begin implements model.Transactor.
func (c *conn) Begin(ctx context.Context) (model.Tx, error) {
	if c.done {
		return nil, errors.New("connection is closed")
	}
	if c.tx != nil {
		return nil, errors.New("connection already has an open transaction")
	}
	if err := c.db.checkOpen(ctx); err != nil {
		return nil, err
	}
	x := &tx{c: c, cc: c.db.cc != nil, held: c.heldBuf[:0], uqHeld: c.uqHeldBuf[:0]}
	var err error
	if x.cc {
		// The store isolates the Tx: it runs beside other Txs and writes.
		c.db.txMu.RLock()
		x.txn, err = c.db.cc.BeginUpdate()
	} else {
		c.db.txMu.Lock()
		x.txn, err = c.db.store.Begin(true)
	}
	if err != nil {
		x.unlockTxMu()
		return nil, fmt.Errorf("begin: %w", err)
	}
	c.tx = x
	return x, nil
}

// ---- operations shared by autocommit and Tx paths ----

// insert writes rows and their index entries to w. When the unique check
// left the PK keys and their order (c.pkDone), it writes the PK entries in
// key order and then each index's entries: the same writes, grouped, so the
// store's memtable inserts them one after another (a skiplist insert
// reuses the position of the one before) instead of jumping between the
// primary key's and each index's part of the keyspace on every row.
func (c *conn) insert(w Writer, st *tableState, rows []model.Row) error {
	ncols := len(st.schema.Columns)
	if c.pkDone {
		for _, i := range c.pkIdx {
			c.val = st.appendValue(c.val[:0], rows[i])
			if err := w.Set(c.pks.key(i), c.val); err != nil {
				return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
			}
		}
		for k := range st.ixs {
			for _, r := range rows {
				c.key = st.ixs[k].appendKey(c.key[:0], r)
				if err := w.Set(c.key, nil); err != nil {
					return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
				}
			}
		}
		return nil
	}
	for i, r := range rows {
		if len(r) != ncols {
			return fmt.Errorf("insert into %s: row %d has %d values, the table %d columns", st.schema.Name, i, len(r), ncols)
		}
		c.key = st.pk.appendKey(c.key[:0], r)
		c.val = st.appendValue(c.val[:0], r)
		if err := w.Set(c.key, c.val); err != nil {
			return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
		}
		for k := range st.ixs {
			c.key = st.ixs[k].appendKey(c.key[:0], r)
			if err := w.Set(c.key, nil); err != nil {
				return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
			}
		}
	}
	return nil
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

func (c *conn) get(r Reader, st *tableState, keys []model.Row, fn func(model.Row)) (int, error) {
	c.rowsFor(st)
	pkCols := st.schema.PK
	found := 0
	for i, k := range keys {
		if len(k) != len(pkCols) {
			return found, fmt.Errorf("get from %s: key %d has %d values, the primary key %d columns", st.schema.Name, i, len(k), len(pkCols))
		}
		c.key = st.appendPKKey(c.key[:0], k)
		val, ok, err := r.Get(c.key, c.getBuf)
		c.getBuf = val[:0]
		if err != nil {
			return found, fmt.Errorf("get from %s: %w", st.schema.Name, err)
		}
		if !ok {
			continue
		}
		for j, p := range pkCols {
			c.row[p] = k[j]
		}
		if err := st.decodeValue(val, c.row); err != nil {
			return found, err
		}
		found++
		fn(c.row)
	}
	return found, nil
}

func (c *conn) scan(ctx context.Context, r Reader, st *tableState, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	ix, err := st.index(t, spec.Index)
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	if len(spec.Lower) > len(ix.proj) {
		return 0, fmt.Errorf("scan %s: lower bound has %d values, index %s %d columns", t.Name, len(spec.Lower), ix.name, len(ix.proj))
	}
	if spec.Limit < 0 {
		return 0, fmt.Errorf("scan %s: negative limit %d", t.Name, spec.Limit)
	}
	lower, upper := ix.start, ix.end
	if spec.Upper != nil {
		if err := model.CheckRange(t, len(ix.proj), spec); err != nil {
			return 0, err
		}
		c.lo = append(c.lo[:0], ix.start...)
		c.hi = append(c.hi[:0], ix.start...)
		for i := range spec.Lower {
			c.lo = appendKeyValue(c.lo, ix.types[i], &spec.Lower[i])
			c.hi = appendKeyValue(c.hi, ix.types[i], &spec.Upper[i])
		}
		lower = c.lo
		// Every entry whose leading columns equal Upper starts with c.hi:
		// the end of that prefix range is the exclusive upper bound.
		var ok bool
		if c.scratch, ok = keyenc.PrefixEnd(c.scratch[:0], c.hi); ok && bytes.Compare(c.scratch, ix.end) < 0 {
			c.hi = append(c.hi[:0], c.scratch...)
			upper = c.hi
		}
		if bytes.Compare(lower, upper) >= 0 {
			return 0, nil // an empty range (Lower above Upper)
		}
	} else if len(spec.Lower) > 0 {
		c.lo = append(c.lo[:0], ix.start...)
		for i := range spec.Lower {
			c.lo = appendKeyValue(c.lo, ix.types[i], &spec.Lower[i])
		}
		if spec.Desc {
			// Every entry whose leading columns equal Lower starts with
			// c.lo: the end of that prefix range is the exclusive bound.
			var ok bool
			if c.hi, ok = keyenc.PrefixEnd(c.hi[:0], c.lo); ok && bytes.Compare(c.hi, ix.end) < 0 {
				upper = c.hi
			}
		} else {
			lower = c.lo
		}
	}
	it, err := r.NewIter(lower, upper)
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	if cap(c.proj) < len(ix.proj) {
		c.proj = make(model.Row, len(ix.proj))
	}
	out := c.proj[:len(ix.proj)]
	n := 0
	var ok bool
	if spec.Desc {
		ok = it.Last()
	} else {
		ok = it.First()
	}
	for ok {
		if c.scratch, err = ix.decodeKey(it.Key(), out, false, c.scratch[:0]); err != nil {
			it.Close()
			return n, fmt.Errorf("scan %s: %w", t.Name, err)
		}
		n++
		if !fn(out) || n == spec.Limit {
			break
		}
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				it.Close()
				return n, err
			}
		}
		if spec.Desc {
			ok = it.Prev()
		} else {
			ok = it.Next()
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return n, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	if err := it.Close(); err != nil {
		return n, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	return n, nil
}

// update applies changes to the row with primary key pk through rw.
func (c *conn) update(rw Txn, st *tableState, pk model.Row, changes []model.Change) (bool, error) {
	cols := st.schema.Columns
	for _, ch := range changes {
		if ch.Col < 0 || ch.Col >= len(cols) {
			return false, fmt.Errorf("change of column %d: the table has %d columns", ch.Col, len(cols))
		}
		for _, p := range st.schema.PK {
			if p == ch.Col {
				return false, fmt.Errorf("change of primary key column %s is not supported", cols[ch.Col].Name)
			}
		}
		switch ch.Op {
		case model.Set:
		case model.Add:
			if cols[ch.Col].Type == model.String {
				return false, fmt.Errorf("add to string column %s", cols[ch.Col].Name)
			}
		default:
			return false, fmt.Errorf("unknown change op %d", ch.Op)
		}
	}
	if len(pk) != len(st.schema.PK) {
		return false, fmt.Errorf("key has %d values, the primary key %d columns", len(pk), len(st.schema.PK))
	}
	if ok, err := c.readRow(rw, st, pk); err != nil || !ok {
		return false, err
	}
	copy(c.row2, c.row)
	for _, ch := range changes {
		if ch.Op == model.Add {
			c.row2[ch.Col].Int += ch.Value.Int
		} else {
			c.row2[ch.Col] = ch.Value
		}
	}
	if c.db.uniqueCheck {
		if err := c.checkUniqueUpdate(rw, st); err != nil {
			return false, err
		}
	}
	for i := range st.ixs {
		c.key2 = st.ixs[i].appendKey(c.key2[:0], c.row)
		c.val = st.ixs[i].appendKey(c.val[:0], c.row2)
		if bytes.Equal(c.key2, c.val) {
			continue
		}
		if err := rw.Delete(c.key2); err != nil {
			return false, err
		}
		if err := rw.Set(c.val, nil); err != nil {
			return false, err
		}
	}
	c.val = st.appendValue(c.val[:0], c.row2)
	if err := rw.Set(c.key, c.val); err != nil {
		return false, err
	}
	return true, nil
}

// readRow reads the row with primary key pk through rw (locking it for a
// write when rw is an UpdateTxn) into c.row, with c.key its PK key.
func (c *conn) readRow(rw Txn, st *tableState, pk model.Row) (bool, error) {
	c.rowsFor(st)
	c.key = st.appendPKKey(c.key[:0], pk)
	var val []byte
	var ok bool
	var err error
	if u, isU := rw.(UpdateTxn); isU {
		val, ok, err = u.GetForUpdate(c.key, c.getBuf)
	} else {
		val, ok, err = rw.Get(c.key, c.getBuf)
	}
	c.getBuf = val[:0]
	if err != nil || !ok {
		return false, err
	}
	for j, p := range st.schema.PK {
		c.row[p] = pk[j]
	}
	return true, st.decodeValue(val, c.row)
}

// del deletes the row with primary key pk and its index entries through rw.
func (c *conn) del(rw Txn, st *tableState, pk model.Row) (bool, error) {
	if len(pk) != len(st.schema.PK) {
		return false, fmt.Errorf("key has %d values, the primary key %d columns", len(pk), len(st.schema.PK))
	}
	if ok, err := c.readRow(rw, st, pk); err != nil || !ok {
		return false, err
	}
	for i := range st.ixs {
		c.key2 = st.ixs[i].appendKey(c.key2[:0], c.row)
		if err := rw.Delete(c.key2); err != nil {
			return false, err
		}
	}
	if err := rw.Delete(c.key); err != nil {
		return false, err
	}
	return true, nil
}

// upsert applies changes to the row with row's primary key through rw, or
// inserts row when there is none.
func (c *conn) upsert(rw Txn, st *tableState, row model.Row, changes []model.Change) error {
	if len(row) != len(st.schema.Columns) {
		return fmt.Errorf("row has %d values, the table %d columns", len(row), len(st.schema.Columns))
	}
	c.pkv = c.pkv[:0]
	for _, p := range st.schema.PK {
		c.pkv = append(c.pkv, row[p])
	}
	found, err := c.update(rw, st, c.pkv, changes)
	if err != nil || found {
		return err
	}
	c.one = append(c.one[:0], row)
	err = c.insert(rw, st, c.one)
	c.one[0] = nil // do not keep the caller's row reachable
	return err
}

// ---- transactions ----

// tx implements model.Tx: see the isolation notes in the package doc.
type tx struct {
	c   *conn
	txn Txn
	// cc: the Tx runs in a ConcurrentStore's transaction (BeginUpdate),
	// holding the transaction lock shared; else it holds it exclusively.
	cc bool
	// held and uqHeld are the insert and unique-prefix locks the Tx holds
	// until it ends (cc only).
	held, uqHeld []uint64
}

func (x *tx) unlockTxMu() {
	if x.cc {
		x.c.db.txMu.RUnlock()
	} else {
		x.c.db.txMu.Unlock()
	}
}

// lockKeys takes the locks of hs in t that x does not hold yet, waiting
// up to txLockWait for each, and records them in *held.
func (x *tx) lockKeys(t *lockTable, held *[]uint64, hs []uint64) error {
	for _, h := range hs {
		if slices.Contains(*held, h) {
			continue
		}
		if err := t.lockWait(h); err != nil {
			return err
		}
		*held = append(*held, h)
	}
	return nil
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
		if x.cc {
			err = x.checkInsertCC(st, rows)
		} else {
			err = x.checkInsert(st, rows)
		}
		if err != nil {
			return err
		}
	} else if x.cc {
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
	deleted, err := x.c.deleteOldest(x.txn, st, n, x.c.from, st.pk.end, nil)
	if err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	return deleted, nil
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
	if x.cc {
		err = x.upsertCC(st, row, changes)
	} else {
		err = x.c.upsert(x.txn, st, row, changes)
	}
	if err != nil {
		return fmt.Errorf("upsert into %s: %w", t.Name, err)
	}
	return nil
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
	if len(row) != len(st.schema.Columns) {
		return fmt.Errorf("row has %d values, the table %d columns", len(row), len(st.schema.Columns))
	}
	c.key = st.pk.appendKey(c.key[:0], row)
	c.insLock[0] = lockHash(c.key)
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
	}
	return c.upsert(x.txn, st, row, changes)
}

func (x *tx) finish() {
	x.c.db.inserts.unlockSet(x.held)
	x.c.db.uniques.unlockSet(x.uqHeld)
	x.c.heldBuf, x.c.uqHeldBuf = x.held[:0], x.uqHeld[:0]
	x.held, x.uqHeld = nil, nil
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
