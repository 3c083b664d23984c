package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// cacheBudget divides one page-cache budget over every open connection of
// a database: SQLite's cache_size is per connection, and a budget per
// connection would give a run with more workers more memory. Whenever a
// connection opens or closes, every open one is set to an equal share
// (the remainder's KiB to the first ones, so the shares add up to the
// budget exactly), and each share is read back from SQLite. A shrunk cache
// frees its unpinned pages at once.
//
// Setting a share runs a pragma on a connection another goroutine is
// using. SQLite's serialized mode makes each call safe, but a connection
// keeps one last error: a pragma run between a worker's failed step and
// the driver reading that step's error replaces the error with "not an
// error" (or with none). So every call into a budgetConn, its statements,
// rows and transactions holds the connection's use lock, and a share is
// set between calls, never inside one.
type cacheBudget struct {
	totalKiB int64

	setMu sync.Mutex // one rebalance at a time, in the order asked

	mu    sync.Mutex // guards conns, err and closed; never held while waiting for a conn
	conns []*budgetConn
	err   error // the last failure to set or read a share
	// closed: the sqlite3_db_status counters of the connections that
	// have closed (see status).
	closed [len(dbStatusOps)]int64
}

// budgetConn is a go-sqlite3 connection counted in a budget. Embedding the
// concrete type keeps every optional driver interface it implements.
type budgetConn struct {
	*sqlite3.SQLiteConn
	b *cacheBudget
	// use is held through each call into the connection (see cacheBudget).
	use sync.Mutex
	// kib is the cache_size SQLite reported after its share was set.
	kib atomic.Int64
	// handle is the connection's sqlite3*, nil when it could not be had;
	// status its sqlite3_db_status counters so far (guarded by b.mu).
	handle unsafe.Pointer
	status [len(dbStatusOps)]int64
}

// add counts a new connection in and rebalances.
func (b *cacheBudget) add(c *budgetConn) error {
	b.setMu.Lock()
	defer b.setMu.Unlock()
	b.mu.Lock()
	b.conns = append(b.conns, c)
	conns := slices.Clone(b.conns)
	b.mu.Unlock()
	if err := b.rebalance(conns); err != nil {
		b.mu.Lock()
		b.conns = slices.DeleteFunc(b.conns, func(o *budgetConn) bool { return o == c })
		b.mu.Unlock()
		return err
	}
	return nil
}

func (b *cacheBudget) remove(c *budgetConn) {
	b.setMu.Lock()
	defer b.setMu.Unlock()
	b.mu.Lock()
	b.conns = slices.DeleteFunc(b.conns, func(o *budgetConn) bool { return o == c })
	conns := slices.Clone(b.conns)
	b.mu.Unlock()
	if err := b.rebalance(conns); err != nil {
		b.mu.Lock()
		b.err = err
		b.mu.Unlock()
	}
}

// rebalance sets every connection's share, each between two of its
// owner's calls, and reads it back. b.setMu is held.
func (b *cacheBudget) rebalance(conns []*budgetConn) error {
	n := int64(len(conns))
	for i, c := range conns {
		share := b.totalKiB / n
		if int64(i) < b.totalKiB%n {
			share++
		}
		if err := c.setShare(share); err != nil {
			return err
		}
	}
	return nil
}

func (c *budgetConn) setShare(kib int64) error {
	c.use.Lock()
	defer c.use.Unlock()
	// A negative cache_size is in KiB rather than pages.
	if _, err := c.SQLiteConn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA cache_size = %d", -max(1, kib)), nil); err != nil {
		return fmt.Errorf("sqlite: set cache_size: %w", err)
	}
	got, err := readCacheKiB(c.SQLiteConn)
	if err != nil {
		return err
	}
	c.kib.Store(got)
	return nil
}

// Close takes the connection out of the budget (the others grow) and
// closes it.
func (c *budgetConn) Close() error {
	c.b.retire(c)
	c.b.remove(c)
	c.use.Lock()
	defer c.use.Unlock()
	return c.SQLiteConn.Close()
}

// The calls database/sql makes, each under the use lock. The deprecated
// forms without a context are not used when these exist.

func (c *budgetConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.use.Lock()
	defer c.use.Unlock()
	return c.SQLiteConn.ExecContext(ctx, q, args)
}

func (c *budgetConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.use.Lock()
	defer c.use.Unlock()
	return c.rows(c.SQLiteConn.QueryContext(ctx, q, args))
}

func (c *budgetConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.use.Lock()
	defer c.use.Unlock()
	st, err := c.SQLiteConn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	ss, ok := st.(*sqlite3.SQLiteStmt)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("sqlite: unexpected driver statement %T", st)
	}
	return &budgetStmt{SQLiteStmt: ss, c: c}, nil
}

func (c *budgetConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.use.Lock()
	defer c.use.Unlock()
	tx, err := c.SQLiteConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &budgetTx{tx: tx, c: c}, nil
}

// rows wraps a driver's rows so each Next and Close holds the use lock.
func (c *budgetConn) rows(r driver.Rows, err error) (driver.Rows, error) {
	if err != nil {
		return nil, err
	}
	sr, ok := r.(*sqlite3.SQLiteRows)
	if !ok {
		r.Close()
		return nil, fmt.Errorf("sqlite: unexpected driver rows %T", r)
	}
	return &budgetRows{SQLiteRows: sr, c: c}, nil
}

type budgetStmt struct {
	*sqlite3.SQLiteStmt
	c *budgetConn
}

func (s *budgetStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.use.Lock()
	defer s.c.use.Unlock()
	return s.SQLiteStmt.ExecContext(ctx, args)
}

func (s *budgetStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.use.Lock()
	defer s.c.use.Unlock()
	return s.c.rows(s.SQLiteStmt.QueryContext(ctx, args))
}

func (s *budgetStmt) Close() error {
	s.c.use.Lock()
	defer s.c.use.Unlock()
	return s.SQLiteStmt.Close()
}

type budgetRows struct {
	*sqlite3.SQLiteRows
	c *budgetConn
}

func (r *budgetRows) Next(dest []driver.Value) error {
	r.c.use.Lock()
	defer r.c.use.Unlock()
	return r.SQLiteRows.Next(dest)
}

func (r *budgetRows) Close() error {
	r.c.use.Lock()
	defer r.c.use.Unlock()
	return r.SQLiteRows.Close()
}

type budgetTx struct {
	tx driver.Tx
	c  *budgetConn
}

func (t *budgetTx) Commit() error {
	t.c.use.Lock()
	defer t.c.use.Unlock()
	return t.tx.Commit()
}

func (t *budgetTx) Rollback() error {
	t.c.use.Lock()
	defer t.c.use.Unlock()
	return t.tx.Rollback()
}

// readCacheKiB reads a connection's cache_size in KiB.
func readCacheKiB(c *sqlite3.SQLiteConn) (int64, error) {
	rows, err := c.QueryContext(context.Background(), "PRAGMA cache_size", nil)
	if err != nil {
		return 0, fmt.Errorf("sqlite: read cache_size: %w", err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("no row")
		}
		return 0, fmt.Errorf("sqlite: read cache_size: %w", err)
	}
	v, ok := dest[0].(int64)
	if !ok {
		return 0, fmt.Errorf("sqlite: read cache_size: unexpected %T", dest[0])
	}
	if v >= 0 {
		return 0, fmt.Errorf("sqlite: cache_size is %d pages, not a size in KiB", v)
	}
	return -v, nil
}

// read returns the cache over all open connections in bytes, as SQLite
// reported it, and how many connections there are.
func (b *cacheBudget) read() (bytes int64, conns int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.conns {
		bytes += c.kib.Load() << 10
	}
	return bytes, len(b.conns), b.err
}
