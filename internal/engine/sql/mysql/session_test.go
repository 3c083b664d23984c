package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/engine/sql/sqltest"
	"rumbench/internal/model"
)

func testSession(t *testing.T, text bool) *session {
	t.Helper()
	admin(t) // skips when the server is unreachable
	mc, err := mysql.ParseDSN(dsn())
	if err != nil {
		t.Fatal(err)
	}
	mc.DBName = ""
	mc.InterpolateParams = text
	mc.Logger = discard{}
	s, err := openSession(context.Background(), mc, text, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSessionValues: integers and byte strings round-trip through text
// statements (digits in the result) and server-side prepared statements
// (binary results); nil bytes bind as an empty value, not NULL.
func TestSessionValues(t *testing.T) {
	for _, text := range []bool{true, false} {
		s := testSession(t, text)
		ctx := context.Background()
		st, err := s.Prepare(ctx, "SELECT CAST(? AS SIGNED), CAST(? AS BINARY), LENGTH(CAST(? AS BINARY))",
			[]model.Type{model.Int, model.String, model.Int})
		if err != nil {
			t.Fatal(err)
		}
		var got model.Row
		args := []sqleng.Arg{
			{Type: model.Int, Value: model.Value{Int: -1 << 40}},
			{Type: model.String, Value: model.Value{Bytes: []byte{'a', 0, 255}}},
			{Type: model.String},
		}
		n, err := s.Query(ctx, st, args, func(r model.Row) bool { got = model.CopyRow(nil, r); return true })
		if err != nil || n != 1 {
			t.Fatalf("text=%v: %d rows, %v", text, n, err)
		}
		if got[0].Int != -1<<40 || string(got[1].Bytes) != "a\x00\xff" || got[2].Int != 0 {
			t.Errorf("text=%v: got %v", text, got)
		}
		if _, err := s.Query(ctx, mustPrepare(t, s, "SELECT 1, 2", []model.Type{model.Int}), nil, func(model.Row) bool { return true }); err == nil {
			t.Errorf("text=%v: column count mismatch accepted", text)
		}
	}
}

func mustPrepare(t *testing.T, s *session, q string, cols []model.Type) sqleng.Stmt {
	st, err := s.Prepare(context.Background(), q, cols)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSessionCancel: cancelling the context of a running statement ends it
// promptly with an error that is context.Canceled.
func TestSessionCancel(t *testing.T) {
	s := testSession(t, true)
	st := mustPrepare(t, s, "SELECT SLEEP(10)", []model.Type{model.Int})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := s.Query(ctx, st, nil, func(model.Row) bool { return true })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	if _, err := s.Exec(ctx, st, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("done context: got %v", err)
	}
}

// With client_io=blocking (the default) a connection that runs statements
// back to back, writes or queries, waits blocked in the kernel (blockconn);
// one that waits between statements stays in Go's netpoller.
func TestBusyConnectionsBlock(t *testing.T) {
	for _, text := range []bool{true, false} {
		for _, kind := range []string{"write", "query"} {
			t.Run(fmt.Sprintf("text=%v/%s", text, kind), func(t *testing.T) {
				s := testSession(t, text)
				sqltest.BusyConnectionBlocks(t, s, "SELECT CAST(? AS SIGNED)", kind, func() bool { return blockconn.Blocking(s.nc) })
			})
		}
	}
}

// recorder keeps what a connection writes.
type recorder struct {
	net.Conn
	mu  sync.Mutex
	out []byte
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.out = append(r.out, p...)
	r.mu.Unlock()
	return r.Conn.Write(p)
}

// lastQuery is the text of the last COM_QUERY packet written.
func (r *recorder) lastQuery(t *testing.T) string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var q string
	for b := r.out; len(b) >= 4; {
		n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		if len(b) < 4+n {
			t.Fatalf("truncated packet")
		}
		if n > 0 && b[4] == 3 { // COM_QUERY
			q = string(b[5 : 4+n])
		}
		b = b[4+n:]
	}
	r.out = r.out[:0]
	return q
}

// TestInterpolationIsTheDriversOwn: the text statements the session writes
// with its arguments are byte for byte those go-sql-driver/mysql writes
// with interpolateParams, with backslash escapes and, under sql_mode
// NO_BACKSLASH_ESCAPES, with doubled quotes; and the server accepts them.
func TestInterpolationIsTheDriversOwn(t *testing.T) {
	admin(t) // skips when the server is unreachable
	const text = "SELECT ? AS `a?b`, 'x?''y?', 'a\\\\b?', \"?\", ? /* ? */, ? -- ?\n, ? # ?\n, ?"
	args := []sqleng.Arg{
		{Type: model.Int, Value: model.Value{Int: -1 << 62}},
		{Type: model.String, Value: model.Value{Bytes: []byte("a'b\"c\\d\x00e\nf\rg\x1ah?")}},
		{Type: model.String},
		{Type: model.Int, Value: model.Value{Int: 42}},
		{Type: model.String, Value: model.Value{Bytes: []byte{255, 0, '\''}}},
	}
	for _, mode := range []string{"", "NO_BACKSLASH_ESCAPES"} {
		mc, err := mysql.ParseDSN(dsn())
		if err != nil {
			t.Fatal(err)
		}
		mc.DBName = ""
		mc.InterpolateParams = true
		mc.Logger = discard{}
		mc.Params = map[string]string{"sql_mode": "'" + mode + "'"}
		// The driver's own interpolation, recorded on the wire.
		rec := &recorder{}
		dc := mc.Clone()
		dc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			rec.Conn = c
			return rec, err
		}
		conn, err := mysql.NewConnector(dc)
		if err != nil {
			t.Fatal(err)
		}
		c, err := conn.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		vals := make([]driver.Value, len(args))
		for i, a := range args {
			if a.Type == model.String {
				b := a.Value.Bytes
				if b == nil {
					b = []byte{}
				}
				vals[i] = b
			} else {
				vals[i] = a.Value.Int
			}
		}
		rec.lastQuery(t)
		rows, err := c.(driver.Queryer).Query(text, vals) //nolint:staticcheck // the driver's path under test
		if err != nil {
			t.Fatalf("sql_mode %q: the driver's statement: %v", mode, err)
		}
		rows.Close()
		want := rec.lastQuery(t)

		s, err := openSession(context.Background(), mc, true, true)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.noBackslashEscapes != (mode != "") {
			t.Fatalf("sql_mode %q read as noBackslashEscapes=%v", mode, s.noBackslashEscapes)
		}
		st := mustPrepare(t, s, text, []model.Type{model.Int, model.String, model.String, model.String, model.String, model.String, model.Int, model.String})
		got, err := s.interpolate(st.(*stmt), args)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("sql_mode %q:\n session %q\n driver  %q", mode, got, want)
		}
		if _, err := s.Query(context.Background(), st, args, func(model.Row) bool { return true }); err != nil {
			t.Errorf("sql_mode %q: the session's statement: %v", mode, err)
		}
	}
}

// TestInterpolateAllocatesNothing: a 100-row insert's text is built in
// the session's buffer, without boxing an argument.
func TestInterpolateAllocatesNothing(t *testing.T) {
	var text strings.Builder
	text.WriteString("INSERT INTO t VALUES ")
	for r := range 100 {
		if r > 0 {
			text.WriteString(",")
		}
		text.WriteString("(?,?,?,?,?,?,?)")
	}
	s := &session{}
	st := &stmt{parts: splitPlaceholders(text.String(), false)}
	var args []sqleng.Arg
	for r := range 100 {
		for c := range 6 {
			args = append(args, sqleng.Arg{Type: model.Int, Value: model.Value{Int: int64(r*1000 + c*100000)}})
		}
		args = append(args, sqleng.Arg{Type: model.String, Value: model.Value{Bytes: []byte("abcdexxxxx")}})
	}
	s.interpolate(st, args) //nolint:errcheck // the first call sizes the buffer
	if a := testing.AllocsPerRun(10, func() {
		if _, err := s.interpolate(st, args); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("interpolating a 100-row insert allocates %.1f times", a)
	}
	if _, err := s.interpolate(st, args[:5]); err == nil {
		t.Error("too few arguments accepted")
	}
}
