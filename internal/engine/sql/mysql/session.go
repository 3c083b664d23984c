package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/go-sql-driver/mysql"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/model"
)

// session is a worker's connection on go-sql-driver/mysql's driver.Conn
// itself, without database/sql's pool, locks and goroutine per query: text
// statements with their arguments written in by the session as the
// driver's client-side interpolation writes them (interpolate), or, with
// prepare=true, server-side prepared statements with arguments in a reused
// []driver.Value. Statements run through the driver's context-free
// methods, so the driver does not hand each statement's context to its
// watcher goroutine; cancellation is watched once per worker context
// (sqleng.CtxWatch) and interrupts the socket.
type session struct {
	c    driver.Conn
	nc   net.Conn
	w    sqleng.CtxWatch
	text bool
	// noBackslashEscapes: the session's sql_mode, read once it connected,
	// has NO_BACKSLASH_ESCAPES, so strings are escaped by doubling quotes
	// (as the driver does, from the status of every reply; no workload
	// changes sql_mode after connecting).
	noBackslashEscapes bool
	q                  []byte // a text statement with its arguments
	vals               []driver.Value
	dest               []driver.Value
	row                model.Row
}

// openSession connects with cfg (which it does not modify), keeping the
// socket so a cancelled context can interrupt it.
func openSession(ctx context.Context, cfg *mysql.Config, text, blocking bool) (*session, error) {
	s := &session{text: text}
	c := cfg.Clone()
	timeout := c.Timeout
	c.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: timeout}
		nc, err := d.DialContext(ctx, network, addr)
		if err == nil && blocking {
			nc, err = blockconn.Wrap(nc)
		}
		s.nc = nc
		return nc, err
	}
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	if s.c, err = conn.Connect(ctx); err != nil {
		return nil, err
	}
	s.w.Interrupt = func() { s.nc.SetDeadline(time.Unix(1, 0)) } //nolint:errcheck // a closed socket is interrupted already
	if text {
		mode, err := s.sqlMode()
		if err != nil {
			s.c.Close()
			return nil, fmt.Errorf("read sql_mode: %w", err)
		}
		s.noBackslashEscapes = strings.Contains(mode, "NO_BACKSLASH_ESCAPES")
	}
	return s, nil
}

// sqlMode reads the session's sql_mode, which decides how strings are
// escaped in text statements.
func (s *session) sqlMode() (string, error) {
	rows, err := s.c.(driver.Queryer).Query("SELECT @@SESSION.sql_mode", nil) //nolint:staticcheck // the context-free method: see session
	if err != nil {
		return "", err
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		return "", err
	}
	switch v := dest[0].(type) {
	case []byte:
		return string(v), nil
	case string:
		return v, nil
	}
	return "", nil
}

type stmt struct {
	text  string
	parts []string     // text statements: the text split at its placeholders
	ds    driver.Stmt  // nil for text statements
	cols  []model.Type // result columns of a query
}

func (st *stmt) Close() error {
	if st.ds != nil {
		return st.ds.Close()
	}
	return nil
}

func (s *session) Prepare(ctx context.Context, text string, cols []model.Type) (sqleng.Stmt, error) {
	if err := s.w.Watch(ctx); err != nil {
		return nil, err
	}
	st := &stmt{text: text, cols: cols}
	if s.text {
		st.parts = splitPlaceholders(text, s.noBackslashEscapes)
	} else {
		var err error
		if st.ds, err = s.c.Prepare(text); err != nil {
			return nil, sqleng.CtxErr(ctx, err)
		}
	}
	return st, nil
}

var emptyBytes = []byte{}

func (s *session) bind(args []sqleng.Arg) []driver.Value {
	v := s.vals[:0]
	for _, a := range args {
		if a.Type == model.String {
			b := a.Value.Bytes
			if b == nil {
				b = emptyBytes // nil binds as NULL; every column is NOT NULL
			}
			v = append(v, b)
			continue
		}
		v = append(v, a.Value.Int)
	}
	s.vals = v
	return v
}

func (s *session) done() {
	clear(s.vals) // do not keep the caller's buffers reachable
	s.vals = s.vals[:0]
}

func (s *session) Exec(ctx context.Context, st sqleng.Stmt, args []sqleng.Arg) (int64, error) {
	p := st.(*stmt)
	if err := s.w.Watch(ctx); err != nil {
		return 0, err
	}
	if err := blockconn.Busy(s.nc); err != nil {
		return 0, err
	}
	var res driver.Result
	var err error
	if p.ds != nil {
		res, err = p.ds.Exec(s.bind(args)) //nolint:staticcheck // the context-free method: see session
		s.done()
	} else {
		var q string
		if q, err = s.interpolate(p, args); err != nil {
			return 0, err
		}
		res, err = s.c.(driver.Execer).Exec(q, nil) //nolint:staticcheck // as above
	}
	if err != nil {
		return 0, sqleng.CtxErr(ctx, err)
	}
	return res.RowsAffected()
}

func (s *session) Query(ctx context.Context, st sqleng.Stmt, args []sqleng.Arg, fn func(model.Row) bool) (n int, err error) {
	p := st.(*stmt)
	if err := s.w.Watch(ctx); err != nil {
		return 0, err
	}
	if err := blockconn.Busy(s.nc); err != nil {
		return 0, err
	}
	var rows driver.Rows
	if p.ds != nil {
		rows, err = p.ds.Query(s.bind(args)) //nolint:staticcheck // the context-free method: see session
		s.done()
	} else {
		var q string
		if q, err = s.interpolate(p, args); err != nil {
			return 0, err
		}
		rows, err = s.c.(driver.Queryer).Query(q, nil) //nolint:staticcheck // as above
	}
	if err != nil {
		return 0, sqleng.CtxErr(ctx, err)
	}
	defer func() {
		if cerr := rows.Close(); cerr != nil && err == nil {
			err = sqleng.CtxErr(ctx, cerr)
		}
	}()
	ncol := len(rows.Columns())
	if ncol != len(p.cols) {
		return 0, fmt.Errorf("statement returns %d columns, want %d", ncol, len(p.cols))
	}
	if cap(s.dest) < ncol {
		s.dest, s.row = make([]driver.Value, ncol), make(model.Row, ncol)
	}
	dest, row := s.dest[:ncol], s.row[:ncol]
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, sqleng.CtxErr(ctx, err)
		}
		for i, v := range dest {
			if row[i], err = value(p.cols[i], v); err != nil {
				return n, fmt.Errorf("column %d: %w", i, err)
			}
		}
		n++
		if !fn(row) {
			return n, nil
		}
	}
}

// interpolate writes p's text with args in place of its placeholders, as
// go-sql-driver/mysql's interpolateParams writes them (integers in
// decimal, byte strings as _binary'...' escaped for the session's
// sql_mode), into a buffer the session reuses, and returns it as a string
// that is valid until the next statement: the driver copies a statement
// into its packet buffer and keeps no reference to it. Doing it here
// rather than in the driver saves boxing every argument in a
// driver.Value and a copy of the whole text per statement.
func (s *session) interpolate(p *stmt, args []sqleng.Arg) (string, error) {
	if len(args) != len(p.parts)-1 {
		return "", fmt.Errorf("statement has %d parameters, got %d arguments", len(p.parts)-1, len(args))
	}
	q := s.q[:0]
	for i, a := range args {
		q = append(q, p.parts[i]...)
		if a.Type == model.String {
			q = appendBinary(q, a.Value.Bytes, s.noBackslashEscapes)
		} else {
			q = strconv.AppendInt(q, a.Value.Int, 10)
		}
	}
	q = append(q, p.parts[len(args)]...)
	s.q = q
	return unsafe.String(unsafe.SliceData(q), len(q)), nil
}

func (s *session) ExecText(ctx context.Context, q string) error {
	if err := s.w.Watch(ctx); err != nil {
		return err
	}
	_, err := s.c.(driver.Execer).Exec(q, nil) //nolint:staticcheck // the context-free method: see session
	return sqleng.CtxErr(ctx, err)
}

// BlocksInKernel reports whether the socket has moved to blocking mode
// (model.KernelWaiter).
func (s *session) BlocksInKernel() bool { return blockconn.Blocking(s.nc) }

func (s *session) Close() error {
	s.w.Stop()
	return s.c.Close()
}

// value converts what the driver returns: integers as int64 (binary
// protocol) or digits (text protocol), strings as bytes that stay valid
// until the next row, as model.Row allows.
func value(typ model.Type, v driver.Value) (model.Value, error) {
	switch x := v.(type) {
	case int64:
		if typ != model.String {
			return model.Value{Int: x}, nil
		}
	case []byte:
		if typ == model.String {
			return model.Value{Bytes: x}, nil
		}
		n, err := strconv.ParseInt(string(x), 10, 64)
		return model.Value{Int: n}, err
	case nil:
		return model.Value{}, errors.New("unexpected NULL")
	}
	return model.Value{}, fmt.Errorf("unexpected %T for a %s column", v, typ)
}
