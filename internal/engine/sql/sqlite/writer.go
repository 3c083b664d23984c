package sqlite

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// Writers are queued in Go rather than in SQLite's busy handler.
//
// SQLite has one write lock per database. A writer that finds it taken
// sleeps in the busy handler (1, 2, 5, 10, ... up to 100 ms) and retries, so
// under contention a short insert waits tens to hundreds of milliseconds
// although the lock was free most of that time. Worse, in WAL mode the
// automatic checkpoint runs in the committing connection after it has
// released the write lock: the next writer starts its transaction while the
// checkpoint is still copying, so it snapshots a WAL that is not fully
// backfilled and appends to it instead of starting it over. With writers
// always queued the WAL is never found complete and idle at a transaction
// start, it grows without bound, and every commit runs another checkpoint
// because the WAL stays past wal_autocheckpoint.
//
// writeLock is held by every write transaction of the DB's Conns from
// before BEGIN until after COMMIT has returned, which includes SQLite's
// automatic checkpoint and the size-triggered one below, so the next writer
// starts after the checkpoint and can reset the WAL. Waiters queue on a
// channel, which wakes them in FIFO order without sleeping.
type writeLock struct {
	ch   chan struct{}
	wait time.Duration // busy_timeout: how long a writer waits before failing
}

func newWriteLock(wait time.Duration) *writeLock {
	return &writeLock{ch: make(chan struct{}, 1), wait: wait}
}

// lock takes the write lock, failing like SQLite would (SQLITE_BUSY, of
// kind model.ErrBusy) after busy_timeout, or when ctx ends.
func (l *writeLock) lock(ctx context.Context) error {
	select {
	case l.ch <- struct{}{}:
		return nil
	default:
	}
	if l.wait <= 0 {
		return model.WithKind(fmt.Errorf("write lock taken and busy_timeout is 0: %w", sqlite3.ErrBusy), model.ErrBusy)
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for the write lock: %w", ctx.Err())
	case <-t.C:
		return model.WithKind(fmt.Errorf("waited busy_timeout (%v) for the write lock: %w", l.wait, sqlite3.ErrBusy), model.ErrBusy)
	}
}

func (l *writeLock) unlock() { <-l.ch }

// Checkpoint policies (the wal_checkpoint option).
const (
	ckptAuto     = "auto"
	ckptRestart  = "restart"
	ckptTruncate = "truncate"
)

// ckptStats counts the checkpoints the writers ran (Stats reports them).
type ckptStats struct {
	runs, busy, failed atomic.Int64
	lastErr            atomic.Pointer[string]
}

// unlockWrite ends a write: it runs the checkpoint policy while still
// holding the lock, so no other writer can extend the WAL meanwhile, then
// lets the next writer in.
func (db *DB) unlockWrite(ctx context.Context) {
	defer db.wl.unlock()
	if db.ckptMode == ckptAuto || db.journalMode != "wal" {
		return
	}
	size, err := fileSize(db.path + "-wal")
	if err != nil || size <= db.ckptBytes {
		return
	}
	db.checkpoint(ctx)
}

// checkpoint runs wal_checkpoint(RESTART or TRUNCATE). Unlike the automatic
// PASSIVE checkpoint it waits (busy_timeout) for readers still using old WAL
// frames, so it copies everything and leaves the WAL to be started over by
// the next writer (RESTART, whose first commit trims the file to
// journal_size_limit) or truncated to zero bytes right away (TRUNCATE). Its
// failure does not fail the write that triggered it: the write is
// committed, and the next write will try again.
func (db *DB) checkpoint(ctx context.Context) {
	db.ckpt.runs.Add(1)
	var busy, logFrames, done int64
	q := "PRAGMA wal_checkpoint(" + db.ckptMode + ")"
	err := db.SQL().QueryRowContext(context.WithoutCancel(ctx), q).Scan(&busy, &logFrames, &done)
	switch {
	case err != nil:
		db.ckpt.failed.Add(1)
		msg := err.Error()
		db.ckpt.lastErr.Store(&msg)
	case busy != 0:
		db.ckpt.busy.Add(1)
	}
}

// conn is a model.Conn whose writes take the DB's write lock. Reads (Get,
// Scan) do not: in WAL mode they never wait for the writer.
type conn struct {
	*sqleng.Conn
	db *DB
	tx *tx // the open transaction; it holds the write lock
}

var (
	_ model.Conn       = (*conn)(nil)
	_ model.Transactor = (*conn)(nil)
	_ model.Tx         = (*tx)(nil)
)

// Conn opens a dedicated connection for one worker.
func (db *DB) Conn(ctx context.Context) (model.Conn, error) {
	mc, err := db.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := mc.(*sqleng.Conn)
	if !ok {
		mc.Close()
		return nil, fmt.Errorf("sqlite: unexpected connection type %T", mc)
	}
	return &conn{Conn: c, db: db}, nil
}

// With a transaction open the Conn's own operations fail (the Tx must be
// used); they are passed through without the lock, which the Tx holds.

func (c *conn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if c.tx != nil {
		return c.Conn.Insert(ctx, t, rows)
	}
	if err := c.db.wl.lock(ctx); err != nil {
		return fmt.Errorf("insert into %s: %w", t.Name, err)
	}
	defer c.db.unlockWrite(ctx)
	return c.Conn.Insert(ctx, t, rows)
}

func (c *conn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if c.tx != nil {
		return c.Conn.DeleteOldest(ctx, t, from, n)
	}
	if err := c.db.wl.lock(ctx); err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	defer c.db.unlockWrite(ctx)
	return c.Conn.DeleteOldest(ctx, t, from, n)
}

func (c *conn) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if c.tx != nil {
		return c.Conn.Update(ctx, t, pk, changes)
	}
	if err := c.db.wl.lock(ctx); err != nil {
		return false, fmt.Errorf("update %s: %w", t.Name, err)
	}
	defer c.db.unlockWrite(ctx)
	return c.Conn.Update(ctx, t, pk, changes)
}

func (c *conn) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if c.tx != nil {
		return c.Conn.Delete(ctx, t, pk)
	}
	if err := c.db.wl.lock(ctx); err != nil {
		return false, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	defer c.db.unlockWrite(ctx)
	return c.Conn.Delete(ctx, t, pk)
}

func (c *conn) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if c.tx != nil {
		return c.Conn.Upsert(ctx, t, row, changes)
	}
	if err := c.db.wl.lock(ctx); err != nil {
		return fmt.Errorf("upsert into %s: %w", t.Name, err)
	}
	defer c.db.unlockWrite(ctx)
	return c.Conn.Upsert(ctx, t, row, changes)
}

// Begin takes the write lock until the Tx commits or rolls back.
func (c *conn) Begin(ctx context.Context) (model.Tx, error) {
	if c.tx != nil {
		return c.Conn.Begin(ctx)
	}
	if err := c.db.wl.lock(ctx); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	inner, err := c.Conn.Begin(ctx)
	if err != nil {
		c.db.wl.unlock()
		return nil, err
	}
	c.tx = &tx{Tx: inner, c: c}
	return c.tx, nil
}

// Close rolls back an open transaction (releasing the lock) and closes the
// connection.
func (c *conn) Close() error {
	err := c.Conn.Close()
	if c.tx != nil {
		c.tx.end()
		c.db.wl.unlock()
	}
	return err
}

// tx is a transaction holding the write lock. Its operations go straight to
// the underlying Tx: taking the lock again would deadlock.
type tx struct {
	model.Tx
	c    *conn
	done bool
}

func (t *tx) end() {
	t.done = true
	t.c.tx = nil
}

func (t *tx) Commit(ctx context.Context) error {
	if t.done {
		return t.Tx.Commit(ctx)
	}
	err := t.Tx.Commit(ctx)
	t.end()
	t.c.db.unlockWrite(ctx)
	return err
}

func (t *tx) Rollback(ctx context.Context) error {
	if t.done {
		return t.Tx.Rollback(ctx)
	}
	err := t.Tx.Rollback(ctx)
	t.end()
	t.c.db.wl.unlock()
	return err
}
