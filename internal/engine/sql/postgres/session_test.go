package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/engine/sql/sqltest"
	"rumbench/internal/model"
)

func testSession(t *testing.T) *session {
	t.Helper()
	adminConn(t) // skips when the server is unreachable
	cfg, err := pgx.ParseConfig(dsn())
	if err != nil {
		t.Fatal(err)
	}
	s, err := openSession(context.Background(), cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSessionEncoding: parameters of every integer width the server may
// infer, text and bytea, bound in binary or text as the statement's
// parameter types need, and results decoded from binary.
func TestSessionEncoding(t *testing.T) {
	s := testSession(t)
	ctx := context.Background()
	st, err := s.Prepare(ctx, "SELECT $1::int8, $2::int4::int8, $3::int2, length($4::text)::int8, $5::bytea, $6::numeric::int8",
		[]model.Type{model.Int, model.Int, model.Int, model.Int, model.String, model.Int})
	if err != nil {
		t.Fatal(err)
	}
	args := []sqleng.Arg{
		{Type: model.Int, Value: model.Value{Int: -1 << 40}},
		{Type: model.Int, Value: model.Value{Int: -123456}},
		{Type: model.Int, Value: model.Value{Int: -321}},
		{Type: model.String, Value: model.Value{Bytes: []byte("héllo")}},
		{Type: model.String, Value: model.Value{Bytes: []byte{0, 1, 255}}},
		{Type: model.Int, Value: model.Value{Int: 987654321}},
	}
	var got model.Row
	n, err := s.Query(ctx, st, args, func(r model.Row) bool { got = model.CopyRow(nil, r); return true })
	if err != nil || n != 1 {
		t.Fatalf("query: %d rows, %v", n, err)
	}
	want := []int64{-1 << 40, -123456, -321, 5, 0, 987654321}
	for i, w := range want {
		if i == 4 {
			if string(got[i].Bytes) != "\x00\x01\xff" {
				t.Errorf("bytea: got %q", got[i].Bytes)
			}
			continue
		}
		if got[i].Int != w {
			t.Errorf("column %d: got %d, want %d", i, got[i].Int, w)
		}
	}
	// A nil string binds as an empty value, not NULL.
	st2, err := s.Prepare(ctx, "SELECT length($1::bytea)::int8", []model.Type{model.Int})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Query(ctx, st2, []sqleng.Arg{{Type: model.String}}, func(r model.Row) bool { got = model.CopyRow(nil, r); return true }); err != nil || got[0].Int != 0 {
		t.Fatalf("nil bytes: %v, %v", got, err)
	}
	// Wrong argument count and result width are errors, not panics.
	if _, err := s.Query(ctx, st2, nil, func(model.Row) bool { return true }); err == nil {
		t.Error("missing argument accepted")
	}
	if _, err := s.Prepare(ctx, "SELECT 1::int8, 2::int8", []model.Type{model.Int}); err == nil {
		t.Error("column count mismatch accepted")
	}
}

// TestSessionCancel: cancelling the context of a running statement ends it
// promptly with an error that is context.Canceled, and a context already
// done fails before anything is sent.
func TestSessionCancel(t *testing.T) {
	s := testSession(t)
	st, err := s.Prepare(context.Background(), "SELECT 1::int8 FROM pg_sleep(10)", []model.Type{model.Int})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = s.Query(ctx, st, nil, func(model.Row) bool { return true })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	if _, err := s.Exec(ctx, st, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("done context: got %v", err)
	}

	// A watched context that ends between statements does not break a
	// session that has moved on to another context.
	s2 := testSession(t)
	st2, err := s2.Prepare(context.Background(), "SELECT 1::int8", []model.Type{model.Int})
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	if _, err := s2.Query(ctx2, st2, nil, func(model.Row) bool { return true }); err != nil {
		t.Fatal(err)
	}
	ctx3, cancel3 := context.WithCancel(context.Background())
	defer cancel3()
	if _, err := s2.Query(ctx3, st2, nil, func(model.Row) bool { return true }); err != nil {
		t.Fatal(err)
	}
	cancel2()
	time.Sleep(50 * time.Millisecond)
	if n, err := s2.Query(ctx3, st2, nil, func(model.Row) bool { return true }); err != nil || n != 1 {
		t.Fatalf("after an old context ended: %d rows, %v", n, err)
	}
}

// With client_io=blocking (the default) a connection that runs statements
// back to back, writes or queries, waits blocked in the kernel (blockconn);
// one that waits between statements stays in Go's netpoller.
func TestBusyConnectionsBlock(t *testing.T) {
	for _, kind := range []string{"write", "query"} {
		t.Run(kind, func(t *testing.T) {
			s := testSession(t)
			sqltest.BusyConnectionBlocks(t, s, "SELECT $1::int8", kind, func() bool { return blockconn.Blocking(s.bc) })
		})
	}
}

// TestStatementsAllocateNothing: a 100-row insert of the insert
// benchmark's rows and a 10-row query run without allocating (the garbage
// collector's work was a tenth of the client's CPU on l.i0, issue 39).
func TestStatementsAllocateNothing(t *testing.T) {
	s := testSession(t)
	ctx := context.Background()
	if err := s.ExecText(ctx, "CREATE TEMP TABLE alloc_free (a int8 PRIMARY KEY, b int8, c int4, d int2, e bytea, f text)"); err != nil {
		t.Fatal(err)
	}
	const rows, cols = 100, 6
	var text strings.Builder
	text.WriteString("INSERT INTO alloc_free VALUES ")
	for r := range rows {
		if r > 0 {
			text.WriteString(",")
		}
		fmt.Fprintf(&text, "($%d,$%d,$%d,$%d,$%d,$%d)", r*cols+1, r*cols+2, r*cols+3, r*cols+4, r*cols+5, r*cols+6)
	}
	ins, err := s.Prepare(ctx, text.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	get, err := s.Prepare(ctx, "SELECT a, b, c, d, e, f FROM alloc_free WHERE a >= $1 ORDER BY a LIMIT 10",
		[]model.Type{model.Int, model.Int, model.Int, model.Int, model.String, model.String})
	if err != nil {
		t.Fatal(err)
	}
	pad := []byte("abcdefghijxxxxxxxxxx")
	args := make([]sqleng.Arg, 0, rows*cols)
	next := int64(0)
	insert := func() {
		args = args[:0]
		for range rows {
			next++
			for _, v := range []int64{next, next * 3, next % 1000, next % 100} {
				args = append(args, sqleng.Arg{Type: model.Int, Value: model.Value{Int: v}})
			}
			args = append(args, sqleng.Arg{Type: model.String, Value: model.Value{Bytes: pad}},
				sqleng.Arg{Type: model.String, Value: model.Value{Bytes: pad[:10]}})
		}
		if n, err := s.Exec(ctx, ins, args); err != nil || n != rows {
			t.Fatalf("insert: %d rows, %v", n, err)
		}
	}
	var sum int64
	onRow := func(r model.Row) bool { sum += r[0].Int + int64(len(r[4].Bytes)); return true }
	queryArgs := []sqleng.Arg{{Type: model.Int, Value: model.Value{Int: 1}}}
	query := func() {
		if n, err := s.Query(ctx, get, queryArgs, onRow); err != nil || n != 10 {
			t.Fatalf("query: %d rows, %v", n, err)
		}
	}
	if a := testing.AllocsPerRun(20, insert); a != 0 {
		t.Errorf("a 100-row insert allocates %.1f times", a)
	}
	if a := testing.AllocsPerRun(20, query); a != 0 {
		t.Errorf("a 10-row query allocates %.1f times", a)
	}
}
