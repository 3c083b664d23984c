package kv

import (
	"context"
	"errors"
	"fmt"

	"rumbench/internal/model"
)

// conn implements model.Conn and model.Transactor. It owns every buffer its
// operations need, so steady-state operations allocate nothing per row.
type conn struct {
	db    *DB
	batch Batch
	tx    *tx  // the open transaction, if any
	txs   []tx // the next Txs' handles (Begin)
	// buffers of the Tx's lock lists, kept across Txs
	heldBuf, uqHeldBuf, rowHeldBuf []uint64
	done                           bool

	// cached table lookup
	lastName string
	lastGen  uint64
	lastSt   *tableState

	key, key2, val, getBuf []byte
	lo, hi                 []byte
	from, upTo             []byte // DeleteOldest bounds
	scratch                []byte
	row, row2, proj        model.Row
	plan                   colPlan     // the columns a scan decodes
	pkv                    model.Row   // Upsert: the row's PK values
	one                    []model.Row // Upsert: the row as a batch
	arena                  keyArena
	pks                    keyArena // PK keys of an Insert (unique check)
	pkIdx                  []int    // indexes of c.pks in key order
	pkSort                 []keyWords
	upper                  []byte   // the unique check's range bound
	pkDone                 bool     // insert: c.pks holds the rows' PK keys
	pkAscending            bool     // pkKeys: the rows' keys ascend strictly
	insLocks, delLocks     []uint64 // Insert's and DeleteOldest's key locks (sorted)
	rowLock, insLock       [1]uint64
	uqs                    keyArena // unique prefixes of an Insert (unique.go)
	uqLocks                []uint64
	uqIdx                  []int
}

// txSlab is how many Tx handles Begin allocates at once.
const txSlab = 32

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
	// A Tx's handle is never reused (a finished one must not act on the
	// next), but they come from a slab: one allocation per txSlab Txs.
	if len(c.txs) == 0 {
		c.txs = make([]tx, txSlab)
	}
	x := &c.txs[0]
	c.txs = c.txs[1:]
	*x = tx{c: c, cc: c.db.cc != nil, held: c.heldBuf[:0], uqHeld: c.uqHeldBuf[:0], rowHeld: c.rowHeldBuf[:0]}
	x.rl = !x.cc && c.db.rowLockedTx
	var err error
	switch {
	case x.cc:
		// The store isolates the Tx: it runs beside other Txs and writes.
		c.db.txMu.RLock()
		x.txn, err = c.db.cc.BeginUpdate()
	case x.rl:
		// Row locks isolate the Tx: it runs beside other Txs and writes.
		c.db.txMu.RLock()
		x.txn, err = c.db.store.Begin(true)
	default:
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
