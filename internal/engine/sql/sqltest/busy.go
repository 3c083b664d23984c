// Package sqltest holds checks that the SQL engines' session tests share.
package sqltest

import (
	"context"
	"testing"
	"time"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// BusyConnectionBlocks checks a session's client_io=blocking rule for one
// kind of statement ("write" runs q with Exec, "query" with Query): four
// statements 20 ms apart leave the connection in Go's netpoller, four back
// to back move it to blocking mode (blocking reports which), and a
// statement still runs after that. q takes one integer argument.
func BusyConnectionBlocks(t *testing.T, s sqleng.Session, q, kind string, blocking func() bool) {
	t.Helper()
	ctx := context.Background()
	st, err := s.Prepare(ctx, q, []model.Type{model.Int})
	if err != nil {
		t.Fatal(err)
	}
	args := []sqleng.Arg{{Type: model.Int, Value: model.Value{Int: 7}}}
	statement := func() {
		t.Helper()
		var err error
		if kind == "write" {
			_, err = s.Exec(ctx, st, args)
		} else {
			_, err = s.Query(ctx, st, args, func(model.Row) bool { return true })
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		statement()
		time.Sleep(20 * time.Millisecond)
	}
	if blocking() {
		t.Fatalf("%ss 20 ms apart: the connection is in blocking mode", kind)
	}
	for range 4 {
		statement()
	}
	if !blocking() {
		t.Fatalf("%ss back to back: the connection is not in blocking mode", kind)
	}
	statement()
}
