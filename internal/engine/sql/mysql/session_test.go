package mysql

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engine/sql/blockconn"
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
			s := testSession(t, text)
			ctx := context.Background()
			q := mustPrepare(t, s, "SELECT CAST(? AS SIGNED)", []model.Type{model.Int})
			args := []sqleng.Arg{{Type: model.Int, Value: model.Value{Int: 7}}}
			statement := func() {
				t.Helper()
				var err error
				if kind == "write" {
					_, err = s.Exec(ctx, q, args)
				} else {
					_, err = s.Query(ctx, q, args, func(model.Row) bool { return true })
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			for range 4 {
				statement()
				time.Sleep(20 * time.Millisecond)
			}
			if blockconn.Blocking(s.nc) {
				t.Fatalf("text=%v: %ss 20 ms apart: the connection is in blocking mode", text, kind)
			}
			for range 4 {
				statement()
			}
			if !blockconn.Blocking(s.nc) {
				t.Fatalf("text=%v: %ss back to back: the connection is not in blocking mode", text, kind)
			}
			statement()
		}
	}
}
