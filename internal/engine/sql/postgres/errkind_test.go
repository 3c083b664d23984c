package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestErrorKinds: PostgreSQL's real deadlock, lock timeout and
// serialization failure carry their model kinds.
func TestErrorKinds(t *testing.T) {
	tg := target(t, "rumbench_test_pg_errkinds")
	name := tg.Database
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	enginetest.CheckKind(t, "crossed updates", enginetest.CrossedUpdates(t, db, "ek"), model.ErrDeadlock)

	// The other two from statements of our own, through the dialect.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg, err := pgx.ParseConfig(dsn())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = name
	var cs [2]*pgx.Conn
	for i := range cs {
		if cs[i], err = pgx.ConnectConfig(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		defer cs[i].Close(context.Background())
	}
	must := func(c *pgx.Conn, q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must(cs[0], "CREATE TABLE ek2 (id int PRIMARY KEY, n int)")
	must(cs[0], "INSERT INTO ek2 VALUES (1, 0)")

	// Lock timeout: the second waits 100 ms for the first's row lock.
	must(cs[0], "BEGIN")
	must(cs[0], "UPDATE ek2 SET n = n + 1 WHERE id = 1")
	must(cs[1], "SET lock_timeout = '100ms'")
	_, err = cs[1].Exec(ctx, "UPDATE ek2 SET n = n + 1 WHERE id = 1")
	enginetest.CheckKind(t, "lock timeout", model.WithKind(err, Dialect{}.ErrorKind(err)), model.ErrLockTimeout)
	must(cs[0], "ROLLBACK")

	// Serialization failure: a repeatable-read transaction updates a row
	// changed since its snapshot.
	must(cs[1], "BEGIN ISOLATION LEVEL REPEATABLE READ")
	must(cs[1], "SELECT * FROM ek2")
	must(cs[0], "UPDATE ek2 SET n = n + 1 WHERE id = 1")
	_, err = cs[1].Exec(ctx, "UPDATE ek2 SET n = n + 1 WHERE id = 1")
	enginetest.CheckKind(t, "serialization failure", model.WithKind(err, Dialect{}.ErrorKind(err)), model.ErrSerialization)
	must(cs[1], "ROLLBACK")
	if k := (Dialect{}).ErrorKind(context.Canceled); k != nil {
		t.Errorf("a non-PostgreSQL error has kind %v", k)
	}
}
