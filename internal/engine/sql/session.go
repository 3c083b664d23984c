package sql

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"

	"rumbench/internal/model"
)

// Arg is one bind argument: the value and the column type it is bound as.
// Sessions encode it for their driver, so the Conn boxes nothing.
type Arg struct {
	Type  model.Type
	Value model.Value
}

// Stmt is a statement a Session prepared (or, for text statements, just
// kept).
type Stmt interface {
	Close() error
}

// Session is the server session under one Conn: how its statements reach
// the driver. The default goes through database/sql; server engines supply
// sessions on their driver's own interface (NewWithSessions), which saves
// database/sql's pool, locks and goroutine per query on every statement.
// A Session is used by one goroutine at a time.
type Session interface {
	// Prepare readies text. cols are the types of the result columns of a
	// query (nil for statements that return no rows).
	Prepare(ctx context.Context, text string, cols []model.Type) (Stmt, error)
	// Exec runs st and returns the rows it affected.
	Exec(ctx context.Context, st Stmt, args []Arg) (int64, error)
	// Query runs st and hands each row to fn until fn returns false. The
	// row is valid only during the call.
	Query(ctx context.Context, st Stmt, args []Arg, fn func(model.Row) bool) (int, error)
	// ExecText runs a statement without arguments (BEGIN, COMMIT,
	// ROLLBACK).
	ExecText(ctx context.Context, q string) error
	// Close ends the session (statements are closed first).
	Close() error
}

// SessionOpener opens one Session per Conn.
type SessionOpener func(ctx context.Context) (Session, error)

// stdSession is a Session on a database/sql connection.
type stdSession struct {
	c    *stdsql.Conn
	text bool // send statements as text (see TextStatements)
	args []any
}

type stdStmt struct {
	stmt *stdsql.Stmt // nil in text mode
	text string
	rd   *reader
}

func (s *stdStmt) Close() error {
	if s.stmt != nil {
		return s.stmt.Close()
	}
	return nil
}

func (s *stdSession) Prepare(ctx context.Context, text string, cols []model.Type) (Stmt, error) {
	st := &stdStmt{text: text}
	if cols != nil {
		st.rd = newReader(cols)
	}
	if !s.text {
		var err error
		if st.stmt, err = s.c.PrepareContext(ctx, text); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// box converts args for database/sql. Boxing an int64 allocates unless it
// is small: database/sql's []any interface forces that on every value.
func (s *stdSession) box(args []Arg) []any {
	out := s.args[:0]
	for _, a := range args {
		if a.Type == model.String {
			if a.Value.Bytes == nil {
				out = append(out, emptyBytes)
			} else {
				out = append(out, a.Value.Bytes)
			}
			continue
		}
		out = append(out, a.Value.Int)
	}
	s.args = out
	return out
}

func (s *stdSession) done() {
	clear(s.args) // do not keep the caller's buffers reachable
	s.args = s.args[:0]
}

func (s *stdSession) Exec(ctx context.Context, st Stmt, args []Arg) (int64, error) {
	p := st.(*stdStmt)
	defer s.done()
	return s.exec(ctx, p, args)
}

// errNoResult is a driver's answer of neither a result nor an error. It
// is a driver fault (go-sqlite3 answers so when its connection's last
// error is changed by another call between the step and the read, which
// the sqlite engine prevents), reported rather than left to panic.
var errNoResult = errors.New("the driver returned neither a result nor an error for the statement")

func (s *stdSession) exec(ctx context.Context, p *stdStmt, args []Arg) (n int64, err error) {
	var res stdsql.Result
	if p.stmt == nil {
		res, err = s.c.ExecContext(ctx, p.text, s.box(args)...)
	} else {
		res, err = p.stmt.ExecContext(ctx, s.box(args)...)
	}
	if err != nil {
		return 0, err
	}
	// database/sql wraps even a nil driver result, and panics reading it.
	defer func() {
		if recover() != nil {
			n, err = 0, errNoResult
		}
	}()
	if n, err = res.RowsAffected(); err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}

func (s *stdSession) Query(ctx context.Context, st Stmt, args []Arg, fn func(model.Row) bool) (n int, err error) {
	p := st.(*stdStmt)
	var rows *stdsql.Rows
	if p.stmt == nil {
		rows, err = s.c.QueryContext(ctx, p.text, s.box(args)...)
	} else {
		rows, err = p.stmt.QueryContext(ctx, s.box(args)...)
	}
	s.done()
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := rows.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	for rows.Next() {
		row, err := p.rd.read(rows)
		if err != nil {
			return n, err
		}
		n++
		if !fn(row) {
			return n, nil
		}
	}
	return n, rows.Err()
}

func (s *stdSession) ExecText(ctx context.Context, q string) error {
	_, err := s.c.ExecContext(ctx, q)
	return err
}

func (s *stdSession) Close() error { return s.c.Close() }

// CtxWatch interrupts a session's I/O when the context of its operations is
// cancelled. It registers once per context (context.AfterFunc), not once
// per statement as drivers do: a worker runs every statement of a step
// under one context, so the statements themselves run under
// context.Background and pay for no watching.
type CtxWatch struct {
	// Interrupt breaks the session's I/O (a deadline in the past on its
	// socket). The session is unusable afterwards, as a driver's is after
	// a cancelled statement.
	Interrupt func()
	done      <-chan struct{}
	stop      func() bool
}

// Watch returns ctx's error if it is done, else makes sure ctx is watched.
func (w *CtxWatch) Watch(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := ctx.Done()
	if d == w.done && (d == nil || w.stop != nil) {
		return nil
	}
	w.Stop()
	if d != nil {
		w.done, w.stop = d, context.AfterFunc(ctx, w.Interrupt)
	}
	return nil
}

// Stop stops watching.
func (w *CtxWatch) Stop() {
	if w.stop != nil {
		w.stop()
	}
	w.done, w.stop = nil, nil
}

// CtxErr wraps err with ctx's error when ctx ended (the interrupt is the
// likely cause), so callers see context.Canceled.
func CtxErr(ctx context.Context, err error) error {
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%w: %w", cerr, err)
		}
	}
	return err
}
