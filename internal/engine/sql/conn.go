package sql

import (
	"context"
	stdsql "database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"rumbench/internal/model"
)

// ErrTxDone is returned by operations on a committed or rolled back Tx.
var ErrTxDone = errors.New("transaction already committed or rolled back")

// maxCached bounds a Conn's statement cache; workloads use a handful of
// shapes, so hitting it means shapes vary (e.g. many batch sizes) and
// starting over is cheaper than tracking recency.
const maxCached = 256

// Statement kinds, the first byte of a cache key.
const (
	kindInsert byte = iota + 1
	kindDelete
	kindGet
	kindScan
	kindUpdate
	kindDeletePK
	kindUpsert
	kindBetween
)

// emptyBytes stands in for a nil String value: drivers bind nil []byte as
// NULL, and every column is NOT NULL.
var emptyBytes = []byte{}

// Conn implements model.Conn and model.Transactor on one Session (one
// server session). Statements are cached by table name and shape, so a
// table recreated with a different schema needs a new Conn.
type Conn struct {
	db    *DB
	d     Dialect
	s     Session
	stmts map[string]*prepared
	key   []byte // cache key under construction, reused
	args  []Arg  // bind arguments, reused
	tx    *Tx    // the open transaction, if any
}

// prepared is a cached statement with what it needs to bind.
type prepared struct {
	stmt  Stmt
	text  string       // the statement, for error messages
	plan  []int        // scan: position in ScanSpec.Lower of each bound parameter
	types []model.Type // scan: column type of each ScanSpec.Lower position
	cols  []model.Type // queries: result column types
}

var (
	_ model.Conn         = (*Conn)(nil)
	_ model.Transactor   = (*Conn)(nil)
	_ model.KernelWaiter = (*Conn)(nil)
	_ model.Tx           = (*Tx)(nil)
)

// BlocksInKernel reports whether the session's socket waits for replies
// blocked in the kernel (model.KernelWaiter).
func (c *Conn) BlocksInKernel() bool {
	k, ok := c.s.(model.KernelWaiter)
	return ok && k.BlocksInKernel()
}

func newConn(db *DB, s Session) *Conn {
	return &Conn{db: db, d: db.d, s: s, stmts: map[string]*prepared{}}
}

// newStdSession is the default Session: a database/sql connection.
func newStdSession(db *DB, c *stdsql.Conn) Session {
	ts, ok := db.d.(TextStatements)
	return &stdSession{c: c, text: ok && ts.TextStatements()}
}

// DuplicateKeyDetector is implemented by dialects that recognise their
// driver's primary-key violation, so that Insert's error wraps
// model.ErrDuplicateKey.
type DuplicateKeyDetector interface {
	IsDuplicateKey(err error) bool
}

// ErrorKinds is implemented by dialects that recognise their driver's
// errors: ErrorKind returns the model error kind of err (model.ErrDeadlock,
// model.ErrLockTimeout, ...) or nil. The Conn marks the errors of the
// statements it runs with it, so workloads classify them with errors.Is.
type ErrorKinds interface {
	ErrorKind(err error) error
}

// kind marks err with the dialect's error kind.
func (c *Conn) kind(err error) error {
	if ek, ok := c.d.(ErrorKinds); ok && err != nil {
		return model.WithKind(err, ek.ErrorKind(err))
	}
	return err
}

// TextStatements is implemented by dialects whose driver can bind parameters
// into the statement text on the client (go-sql-driver/mysql with
// interpolateParams=true). When it returns true the Conn caches the text of
// each statement shape instead of preparing it on the server, and sends it
// with its arguments in one round trip, as the classic insert benchmark
// clients do.
type TextStatements interface {
	TextStatements() bool
}

// Close rolls back an open transaction, closes the cached statements and
// returns the connection to the pool.
func (c *Conn) Close() error {
	var errs []error
	if c.tx != nil {
		c.tx.done = true
		c.tx = nil
		if err := c.s.ExecText(context.Background(), "ROLLBACK"); err != nil {
			errs = append(errs, fmt.Errorf("rollback on close: %w", err))
		}
	}
	c.dropStmts()
	if err := c.s.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close connection: %w", err))
	}
	return errors.Join(errs...)
}

func (c *Conn) dropStmts() {
	for k, p := range c.stmts {
		if p.stmt != nil {
			p.stmt.Close() //nolint:errcheck // a statement that fails to close dies with its session
		}
		delete(c.stmts, k)
	}
}

// keyStart begins a cache key: kind, table name, NUL.
func (c *Conn) keyStart(kind byte, t *model.Table) {
	c.key = append(c.key[:0], kind)
	c.key = append(c.key, t.Name...)
	c.key = append(c.key, 0)
}

func (c *Conn) keyInt(v int) { c.key = binary.AppendVarint(c.key, int64(v)) }

// cached returns the statement for the current key, or nil.
func (c *Conn) cached() *prepared {
	return c.stmts[string(c.key)] // no allocation: the compiler elides the conversion
}

// prepare prepares text and caches it under the current key. p.cols are
// the result column types of a query.
func (c *Conn) prepare(ctx context.Context, text string, p *prepared) (*prepared, error) {
	st, err := c.s.Prepare(ctx, text, p.cols)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", abbrev(text), err)
	}
	if len(c.stmts) >= maxCached {
		c.dropStmts()
	}
	p.stmt, p.text = st, text
	c.stmts[string(c.key)] = p
	return p, nil
}

// execStmt runs a cached statement and returns the rows it affected. It
// resets c.args.
func (c *Conn) execStmt(ctx context.Context, p *prepared, args []Arg) (int64, error) {
	n, err := c.s.Exec(ctx, p.stmt, args)
	clear(args) // do not keep the caller's buffers reachable
	c.args = args[:0]
	if err != nil {
		err = c.kind(err)
	}
	return n, err
}

// abbrev shortens long statements (multi-row inserts) for error messages.
func abbrev(q string) string {
	if len(q) > 200 {
		return q[:200] + "..."
	}
	return q
}

func (c *Conn) exec(ctx context.Context, q string) error {
	if err := c.s.ExecText(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, c.kind(err))
	}
	return nil
}

// rollback ends a failed transaction. It runs even when ctx was cancelled
// (the usual reason for the failure), so the connection is left clean.
func (c *Conn) rollback(ctx context.Context) {
	c.s.ExecText(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // the original error is the one to report
}

var errInTx = errors.New("the connection has an open transaction: use the Tx")

// bindValue appends v as a bind argument for a column of type typ.
func bindValue(args []Arg, typ model.Type, v model.Value) []Arg {
	return append(args, Arg{Type: typ, Value: v})
}

// bindInt appends an integer argument (a LIMIT).
func bindInt(args []Arg, v int64) []Arg {
	return append(args, Arg{Type: model.Int, Value: model.Value{Int: v}})
}

// Insert inserts rows in one transaction.
func (c *Conn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if c.tx != nil {
		return errInTx
	}
	return c.insert(ctx, t, rows, false)
}

func (c *Conn) insert(ctx context.Context, t *model.Table, rows []model.Row, inTx bool) (err error) {
	if len(rows) == 0 {
		return nil
	}
	ncol := len(t.Columns)
	for i, r := range rows {
		if len(r) != ncol {
			return fmt.Errorf("insert into %s: row %d has %d values, table has %d columns", t.Name, i, len(r), ncol)
		}
	}
	per := c.d.MaxParams() / ncol
	if per < 1 {
		return fmt.Errorf("insert into %s: %d columns exceed the %s limit of %d parameters", t.Name, ncol, c.d.Name(), c.d.MaxParams())
	}
	// One statement is already one transaction; only a split batch needs an
	// explicit one.
	if !inTx && len(rows) > per {
		if err := c.exec(ctx, c.d.BeginWrite()); err != nil {
			return fmt.Errorf("insert into %s: %w", t.Name, err)
		}
		defer func() {
			if err != nil {
				c.rollback(ctx)
				return
			}
			if cerr := c.exec(ctx, "COMMIT"); cerr != nil {
				c.rollback(ctx)
				err = fmt.Errorf("insert into %s: %w", t.Name, cerr)
			}
		}()
	}
	for len(rows) > 0 {
		n := min(per, len(rows))
		c.keyStart(kindInsert, t)
		c.keyInt(n)
		p := c.cached()
		if p == nil {
			if p, err = c.prepare(ctx, c.d.Insert(t, n), &prepared{}); err != nil {
				return fmt.Errorf("insert into %s: %w", t.Name, err)
			}
		}
		args := c.args[:0]
		for _, r := range rows[:n] {
			for i, v := range r {
				args = bindValue(args, t.Columns[i].Type, v)
			}
		}
		_, err = c.execStmt(ctx, p, args)
		if err != nil {
			if dk, ok := c.d.(DuplicateKeyDetector); ok && dk.IsDuplicateKey(err) {
				return fmt.Errorf("insert %d rows into %s: %w: %w", n, t.Name, model.ErrDuplicateKey, err)
			}
			return fmt.Errorf("insert %d rows into %s: %w", n, t.Name, err)
		}
		rows = rows[n:]
	}
	return nil
}

// DeleteOldest deletes the n rows with the smallest primary keys at or
// above from.
func (c *Conn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if c.tx != nil {
		return 0, errInTx
	}
	return c.deleteOldest(ctx, t, from, n)
}

func (c *Conn) deleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if n <= 0 {
		return 0, nil
	}
	if len(from) > len(t.PK) {
		return 0, fmt.Errorf("delete from %s: bound has %d values, primary key has %d columns", t.Name, len(from), len(t.PK))
	}
	c.keyStart(kindDelete, t)
	c.keyInt(len(from))
	p := c.cached()
	if p == nil {
		text, plan := c.d.DeleteOldest(t, len(from))
		types := make([]model.Type, len(from))
		for i := range types {
			types[i] = t.Columns[t.PK[i]].Type
		}
		var err error
		if p, err = c.prepare(ctx, text, &prepared{plan: plan, types: types}); err != nil {
			return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
		}
	}
	args := c.args[:0]
	for _, li := range p.plan {
		args = bindValue(args, p.types[li], from[li])
	}
	args = bindInt(args, int64(n))
	got, err := c.execStmt(ctx, p, args)
	if err != nil {
		return 0, fmt.Errorf("delete %d oldest rows from %s: %w", n, t.Name, err)
	}
	return int(got), nil
}

// Get fetches rows by primary key.
func (c *Conn) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	if c.tx != nil {
		return 0, errInTx
	}
	return c.get(ctx, t, keys, fn)
}

func (c *Conn) get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	for i, k := range keys {
		if len(k) != len(t.PK) {
			return 0, fmt.Errorf("get from %s: key %d has %d values, primary key has %d columns", t.Name, i, len(k), len(t.PK))
		}
	}
	per := max(1, c.d.MaxParams()/len(t.PK))
	found := 0
	for len(keys) > 0 {
		n := min(per, len(keys))
		c.keyStart(kindGet, t)
		c.keyInt(n)
		p := c.cached()
		if p == nil {
			var err error
			all := make([]int, len(t.Columns))
			for i := range all {
				all[i] = i
			}
			if p, err = c.prepare(ctx, getSQL(c.d, t, n), &prepared{cols: colTypes(t, all)}); err != nil {
				return found, fmt.Errorf("get from %s: %w", t.Name, err)
			}
		}
		args := c.args[:0]
		for _, k := range keys[:n] {
			for j, v := range k {
				args = bindValue(args, t.Columns[t.PK[j]].Type, v)
			}
		}
		got, err := c.query(ctx, p, args, func(r model.Row) bool { fn(r); return true })
		found += got
		if err != nil {
			return found, fmt.Errorf("get %d keys from %s: %w", n, t.Name, err)
		}
		keys = keys[n:]
	}
	return found, nil
}

// Scan reads index entries in order; see model.ScanSpec.
func (c *Conn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if c.tx != nil {
		return 0, errInTx
	}
	return c.scan(ctx, t, spec, fn)
}

func (c *Conn) scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if spec.Index < -1 || spec.Index >= len(t.Indexes) {
		return 0, fmt.Errorf("scan %s: index %d out of range (table has %d)", t.Name, spec.Index, len(t.Indexes))
	}
	if spec.Limit < 0 {
		return 0, fmt.Errorf("scan %s: negative limit %d", t.Name, spec.Limit)
	}
	if spec.Upper != nil {
		return c.between(ctx, t, spec, fn)
	}
	c.keyStart(kindScan, t)
	c.keyInt(spec.Index)
	c.keyInt(len(spec.Lower))
	flags := 0
	if spec.Desc {
		flags |= 1
	}
	if spec.Limit > 0 {
		flags |= 2
	}
	c.keyInt(flags)
	p := c.cached()
	if p == nil {
		cols := t.IndexColumns(spec.Index)
		if len(spec.Lower) > len(cols) {
			return 0, fmt.Errorf("scan %s: bound has %d values, index has %d columns", t.Name, len(spec.Lower), len(cols))
		}
		text, plan := scanSQL(c.d, t, spec.Index, cols, len(spec.Lower), spec.Desc, spec.Limit > 0)
		types := make([]model.Type, len(spec.Lower))
		for i := range types {
			types[i] = t.Columns[cols[i]].Type
		}
		var err error
		if p, err = c.prepare(ctx, text, &prepared{plan: plan, types: types, cols: colTypes(t, cols)}); err != nil {
			return 0, fmt.Errorf("scan %s: %w", t.Name, err)
		}
	}
	args := c.args[:0]
	for _, li := range p.plan {
		args = bindValue(args, p.types[li], spec.Lower[li])
	}
	if spec.Limit > 0 {
		args = bindInt(args, int64(spec.Limit))
	}
	n, err := c.query(ctx, p, args, fn)
	if err != nil {
		return n, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	return n, nil
}

// between is a bounded range read (model.ScanSpec.Upper).
func (c *Conn) between(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	n := len(spec.Upper)
	c.keyStart(kindBetween, t)
	c.keyInt(spec.Index)
	c.keyInt(n)
	flags := 0
	if spec.Desc {
		flags |= 1
	}
	if spec.Limit > 0 {
		flags |= 2
	}
	c.keyInt(flags)
	p := c.cached()
	if p == nil {
		cols := t.IndexColumns(spec.Index)
		if err := model.CheckRange(t, len(cols), spec); err != nil {
			return 0, err
		}
		types := make([]model.Type, n)
		for i := range types {
			types[i] = t.Columns[cols[i]].Type
		}
		var err error
		text := betweenSQL(c.d, t, spec.Index, cols, n, spec.Desc, spec.Limit > 0)
		if p, err = c.prepare(ctx, text, &prepared{types: types, cols: colTypes(t, cols)}); err != nil {
			return 0, fmt.Errorf("scan %s: %w", t.Name, err)
		}
	} else if err := model.CheckRange(t, len(p.cols), spec); err != nil {
		return 0, err
	}
	args := c.args[:0]
	for i := 0; i < n; i++ {
		args = bindValue(args, p.types[i], spec.Lower[i])
	}
	args = bindValue(args, p.types[n-1], spec.Upper[n-1])
	if spec.Limit > 0 {
		args = bindInt(args, int64(spec.Limit))
	}
	got, err := c.query(ctx, p, args, fn)
	if err != nil {
		return got, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	return got, nil
}

// query runs a cached query and hands each decoded row to fn until it
// returns false. It resets c.args.
func (c *Conn) query(ctx context.Context, p *prepared, args []Arg, fn func(model.Row) bool) (int, error) {
	n, err := c.s.Query(ctx, p.stmt, args, fn)
	clear(args)
	c.args = args[:0]
	if err != nil {
		err = c.kind(err)
	}
	return n, err
}

// colTypes is the types of t's columns cols.
func colTypes(t *model.Table, cols []int) []model.Type {
	out := make([]model.Type, len(cols))
	for i, col := range cols {
		out[i] = t.Columns[col].Type
	}
	return out
}

// Update applies changes to the row with primary key pk.
func (c *Conn) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if c.tx != nil {
		return false, errInTx
	}
	return c.update(ctx, t, pk, changes)
}

func (c *Conn) update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if len(pk) != len(t.PK) {
		return false, fmt.Errorf("update %s: key has %d values, primary key has %d columns", t.Name, len(pk), len(t.PK))
	}
	if err := checkChanges(t, changes); err != nil {
		return false, err
	}
	c.keyStart(kindUpdate, t)
	for _, ch := range changes {
		c.keyInt(ch.Col)
		c.keyInt(int(ch.Op))
	}
	p := c.cached()
	if p == nil {
		var err error
		if p, err = c.prepare(ctx, updateSQL(c.d, t, changes), &prepared{}); err != nil {
			return false, fmt.Errorf("update %s: %w", t.Name, err)
		}
	}
	args := c.args[:0]
	for _, ch := range changes {
		args = bindValue(args, t.Columns[ch.Col].Type, ch.Value)
	}
	for j, v := range pk {
		args = bindValue(args, t.Columns[t.PK[j]].Type, v)
	}
	n, err := c.execStmt(ctx, p, args)
	if err != nil {
		// A change onto another row's unique index values, as on Insert.
		if dk, ok := c.d.(DuplicateKeyDetector); ok && dk.IsDuplicateKey(err) {
			return false, fmt.Errorf("update %s: %w: %w", t.Name, model.ErrDuplicateKey, err)
		}
		return false, fmt.Errorf("update %s: %w", t.Name, err)
	}
	return n > 0, nil
}

// Delete deletes the row with primary key pk.
func (c *Conn) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if c.tx != nil {
		return false, errInTx
	}
	return c.del(ctx, t, pk)
}

func (c *Conn) del(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if len(pk) != len(t.PK) {
		return false, fmt.Errorf("delete from %s: key has %d values, primary key has %d columns", t.Name, len(pk), len(t.PK))
	}
	c.keyStart(kindDeletePK, t)
	p := c.cached()
	if p == nil {
		var err error
		if p, err = c.prepare(ctx, deleteSQL(c.d, t), &prepared{}); err != nil {
			return false, fmt.Errorf("delete from %s: %w", t.Name, err)
		}
	}
	args := c.args[:0]
	for j, v := range pk {
		args = bindValue(args, t.Columns[t.PK[j]].Type, v)
	}
	n, err := c.execStmt(ctx, p, args)
	if err != nil {
		return false, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	return n > 0, nil
}

// Upsert inserts row or applies changes to the row with its primary key, in
// one statement.
func (c *Conn) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if c.tx != nil {
		return errInTx
	}
	return c.upsert(ctx, t, row, changes)
}

func (c *Conn) upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if len(row) != len(t.Columns) {
		return fmt.Errorf("upsert into %s: row has %d values, table has %d columns", t.Name, len(row), len(t.Columns))
	}
	if err := checkChanges(t, changes); err != nil {
		return err
	}
	c.keyStart(kindUpsert, t)
	for _, ch := range changes {
		c.keyInt(ch.Col)
		c.keyInt(int(ch.Op))
	}
	p := c.cached()
	if p == nil {
		var text string
		if u, ok := c.d.(Upserter); ok {
			text = u.Upsert(t, changes)
		} else {
			text = StdUpsert(c.d, t, changes)
		}
		var err error
		if p, err = c.prepare(ctx, text, &prepared{}); err != nil {
			return fmt.Errorf("upsert into %s: %w", t.Name, err)
		}
	}
	args := c.args[:0]
	for i, v := range row {
		args = bindValue(args, t.Columns[i].Type, v)
	}
	for _, ch := range changes {
		args = bindValue(args, t.Columns[ch.Col].Type, ch.Value)
	}
	if _, err := c.execStmt(ctx, p, args); err != nil {
		return fmt.Errorf("upsert into %s: %w", t.Name, err)
	}
	return nil
}

// Begin starts a write transaction on the connection. Until it ends, the
// Conn's own operations fail; use the Tx.
func (c *Conn) Begin(ctx context.Context) (model.Tx, error) {
	if c.tx != nil {
		return nil, errInTx
	}
	if err := c.exec(ctx, c.d.BeginWrite()); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	c.tx = &Tx{c: c}
	return c.tx, nil
}

// Tx is a transaction opened with the dialect's BEGIN on a Conn. Its
// operations use the Conn's statement cache.
type Tx struct {
	c    *Conn
	done bool
}

func (tx *Tx) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if tx.done {
		return ErrTxDone
	}
	return tx.c.insert(ctx, t, rows, true)
}

func (tx *Tx) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if tx.done {
		return 0, ErrTxDone
	}
	return tx.c.deleteOldest(ctx, t, from, n)
}

func (tx *Tx) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	if tx.done {
		return 0, ErrTxDone
	}
	return tx.c.get(ctx, t, keys, fn)
}

func (tx *Tx) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if tx.done {
		return 0, ErrTxDone
	}
	return tx.c.scan(ctx, t, spec, fn)
}

func (tx *Tx) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if tx.done {
		return false, ErrTxDone
	}
	return tx.c.update(ctx, t, pk, changes)
}

func (tx *Tx) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if tx.done {
		return false, ErrTxDone
	}
	return tx.c.del(ctx, t, pk)
}

func (tx *Tx) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if tx.done {
		return ErrTxDone
	}
	return tx.c.upsert(ctx, t, row, changes)
}

// Commit commits; if that fails the transaction is rolled back.
func (tx *Tx) Commit(ctx context.Context) error {
	if tx.done {
		return ErrTxDone
	}
	tx.done = true
	tx.c.tx = nil
	if err := tx.c.exec(ctx, "COMMIT"); err != nil {
		tx.c.rollback(ctx)
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Rollback rolls back. After Commit or Rollback it does nothing, so it can
// be deferred.
func (tx *Tx) Rollback(ctx context.Context) error {
	if tx.done {
		return nil
	}
	tx.done = true
	tx.c.tx = nil
	if err := tx.c.s.ExecText(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// reader decodes result rows into a reused model.Row. Int columns scan into
// `any` (database/sql stores the driver's value as is) and String columns
// into sql.RawBytes (no copy), so reading adds no allocation of its own.
type reader struct {
	types []model.Type
	anys  []any
	raws  []stdsql.RawBytes
	dest  []any
	row   model.Row
}

func newReader(types []model.Type) *reader {
	n := len(types)
	r := &reader{
		types: types,
		anys:  make([]any, n),
		raws:  make([]stdsql.RawBytes, n),
		dest:  make([]any, n),
		row:   make(model.Row, n),
	}
	for i := range types {
		if r.types[i] == model.String {
			r.dest[i] = &r.raws[i]
		} else {
			r.dest[i] = &r.anys[i]
		}
	}
	return r
}

// read scans the current row. The result is valid until the next call.
func (r *reader) read(rows *stdsql.Rows) (model.Row, error) {
	if err := rows.Scan(r.dest...); err != nil {
		return nil, err
	}
	for i, typ := range r.types {
		if typ == model.String {
			r.row[i] = model.Value{Bytes: r.raws[i]}
			continue
		}
		v, err := asInt(r.anys[i])
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", i, err)
		}
		r.row[i] = model.Value{Int: v}
	}
	return r.row, nil
}

// asInt converts what drivers return for integer columns.
func asInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	case int:
		return int64(x), nil
	case uint64:
		return int64(x), nil
	case []byte: // text protocols (MySQL without prepared statements)
		return strconv.ParseInt(string(x), 10, 64)
	case string:
		return strconv.ParseInt(x, 10, 64)
	case nil:
		return 0, errors.New("unexpected NULL")
	}
	return 0, fmt.Errorf("unexpected %T for an integer column", v)
}
