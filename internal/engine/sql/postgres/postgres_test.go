package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"rumbench/internal/engine"
	"rumbench/internal/engine/dbserver"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/testdb"
)

// These tests use the server at $RUMBENCH_PG_DSN (default DefaultDSN) as a
// user allowed to create databases and roles. They skip when it is
// unreachable, unless CI or RUMBENCH_REQUIRE_SERVERS is set.

func dsn() string { return dbserver.DSN("", EnvDSN, DefaultDSN) }

// target is the local server with a database of this process's own,
// base with testdb's suffix.
func target(t *testing.T, base string) enginetest.Target {
	t.Helper()
	return enginetest.Target{Engine: "postgres", DSN: dsn(), Database: testdb.Name(t, base)}
}

// adminConn connects to the DSN's database for setup statements.
func adminConn(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn())
	if err != nil {
		if enginetest.RequireServers() {
			t.Fatalf("postgres unreachable: %v", err)
		}
		t.Skipf("postgres unreachable (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func dbExists(t *testing.T, c *pgx.Conn, name string) bool {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func TestWriteAndQuerySteps(t *testing.T) {
	tg := target(t, "rumbench_test_pg_steps")
	admin := adminConn(t)
	enginetest.OpenServer(t, tg).Close()
	enginetest.ServerSteps(t, tg)
	enginetest.DropDatabase(t, tg)
	if dbExists(t, admin, tg.Database) {
		t.Fatalf("database %s still exists after DropDatabase", tg.Database)
	}
}

// TestSizes: on the local server (not managed by rumbench) the on-disk
// footprint is the database's own directory, base/<oid>, and the live
// size is the tables' pg_total_relation_size (issue 34).
func TestSizes(t *testing.T) {
	tg := target(t, "rumbench_test_pg_sizes")
	enginetest.OpenServer(t, tg).Close()
	enginetest.Sizes(t, tg, results.DiskDatabaseDir)
}

func TestOpenCreatesAndDrops(t *testing.T) {
	admin := adminConn(t)
	tg := target(t, "rumbench_test_pg_drop")
	ctx := context.Background()
	db := enginetest.OpenServer(t, tg)
	if !dbExists(t, admin, tg.Database) {
		t.Fatalf("Open did not create database %s", tg.Database)
	}
	info := db.Info()
	for _, k := range []string{"server_version", "shared_buffers", "synchronous_commit", "fsync", "wal_level", "max_wal_size"} {
		if info.Settings[k] == "" {
			t.Errorf("setting %s not recorded: %v", k, info.Settings)
		}
	}
	tbl := &model.Table{Name: "t1", Columns: []model.Column{{Name: "k", Type: model.Int}, {Name: "v", Type: model.String, MaxLen: 10}}, PK: []int{0}}
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []model.Row
	for i := range 10 {
		rows = append(rows, model.Row{{Int: int64(i)}, {Bytes: []byte("x")}})
	}
	if err := c.Insert(ctx, tbl, rows); err != nil {
		t.Fatal(err)
	}
	if n, err := c.DeleteOldest(ctx, tbl, nil, 3); err != nil || n != 3 {
		t.Fatalf("DeleteOldest(3) = %d, %v", n, err)
	}
	if n, err := c.DeleteOldest(ctx, tbl, nil, 100); err != nil || n != 7 {
		t.Fatalf("DeleteOldest(100) on 7 rows = %d, %v", n, err)
	}
	c.Close()
	if n, err := db.Size(ctx); err != nil || n <= 0 {
		t.Errorf("Size = %d, %v", n, err)
	}
	if pid, dir, err := db.(model.ProcessOwner).ServerProcess(ctx); err != nil {
		t.Logf("server process not found (allowed when not running as the server's owner or root): %v", err)
	} else if pid <= 0 || dir == "" {
		t.Errorf("ServerProcess = %d, %q", pid, dir)
	}
	if err := db.(model.Maintainer).Maintain(ctx); err != nil {
		t.Errorf("Maintain: %v", err)
	}
	if err := db.(dbserver.DatabaseDropper).DropDatabase(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if dbExists(t, admin, tg.Database) {
		t.Fatalf("database %s still exists", tg.Database)
	}

	// drop_database=true drops at Close.
	tg.Options = map[string]string{"drop_database": "true"}
	db2, err := engine.Open(ctx, "postgres", model.Config{DSN: tg.DSN, Database: tg.Database, Options: tg.Options})
	if err != nil {
		t.Fatal(err)
	}
	if err := db2.Close(); err != nil {
		t.Fatal(err)
	}
	if dbExists(t, admin, tg.Database) {
		t.Fatalf("database %s still exists after Close with drop_database=true", tg.Database)
	}
}

// TestForeignDatabase: a database with tables but no rumbench catalog is
// refused, and left alone.
func TestForeignDatabase(t *testing.T) {
	admin := adminConn(t)
	ctx := context.Background()
	name := testdb.Name(t, "rumbench_test_pg_foreign")
	admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name) })
	cfg, _ := pgx.ParseConfig(dsn())
	cfg.Database = name
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "CREATE TABLE precious (x int)")
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.Open(ctx, "postgres", model.Config{DSN: dsn(), Database: name})
	if err == nil || !strings.Contains(err.Error(), "not created by rumbench") {
		t.Fatalf("open of a foreign database: %v", err)
	}
}

// TestPlans checks that every scan shape is an index (only) scan without a
// sort and that DeleteOldest is a primary key range.
func TestPlans(t *testing.T) {
	tg := target(t, "rumbench_test_pg_plans")
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	ctx := context.Background()
	tbl := &model.Table{
		Name: "pi1",
		Columns: []model.Column{
			{Name: "transactionid", Type: model.Int}, {Name: "dateandtime", Type: model.Time},
			{Name: "cashregisterid", Type: model.Int}, {Name: "productid", Type: model.Int},
			{Name: "customerid", Type: model.Int}, {Name: "price", Type: model.Int},
			{Name: "data", Type: model.String, MaxLen: 20},
		},
		PK: []int{0},
		Indexes: []model.Index{
			{Name: "marketsegment", Columns: []int{3, 4, 5}},
			{Name: "registersegment", Columns: []int{2, 4, 5}},
			{Name: "pdc", Columns: []int{5, 1, 4}},
		},
	}
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	sdb := db.(*DB).SQL()
	if _, err := sdb.ExecContext(ctx, `INSERT INTO pi1 SELECT g, 1700000000 + g / 100, g % 1000, g % 10000, g % 100000, g % 500, 'xxxxxxxxxx'::bytea
		FROM generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if err := db.(model.Maintainer).Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	// The quiesce waits for autovacuum in this database and checkpoints
	// (the test's user is a superuser).
	qctx, cancel := context.WithTimeout(ctx, time.Minute)
	waits, err := db.(model.Quiescer).Quiesce(qctx)
	cancel()
	if err != nil || len(waits) != 2 || !waits[0].Reached || !waits[1].Reached || waits[1].What != "postgres CHECKPOINT" {
		t.Fatalf("Quiesce = %+v, %v", waits, err)
	}
	for _, q := range sqleng.QueryShapes(Dialect{}, tbl) {
		n := strings.Count(q, "$")
		args := make([]any, n)
		for i := range args {
			args[i] = int64(5)
		}
		rows, err := sdb.QueryContext(ctx, "EXPLAIN "+q, args...)
		if err != nil {
			t.Fatalf("EXPLAIN %s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			rows.Scan(&line)
			plan = append(plan, line)
		}
		rows.Close()
		p := strings.Join(plan, "\n")
		if strings.Contains(p, "Sort") || strings.Contains(p, "Seq Scan") {
			t.Errorf("plan of %s sorts or scans the heap:\n%s", q, p)
		}
		if strings.HasPrefix(q, "SELECT") && !strings.Contains(q, " IN (") && !strings.Contains(p, "Index Only Scan") {
			t.Errorf("scan %s is not index-only:\n%s", q, p)
		}
	}
}

// TestErrors checks the one-line errors and that no password leaks.
func TestErrors(t *testing.T) {
	admin := adminConn(t)
	ctx := context.Background()
	const pw = "Sekr3tPassw0rd"
	// Never created: every open below must fail before that. Dropped all
	// the same should one be made, so a failure leaves nothing behind.
	x, nopriv := testdb.Name(t, "rumbench_test_x"), testdb.Name(t, "rumbench_test_nopriv")
	t.Cleanup(func() {
		for _, n := range []string{x, nopriv} {
			admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)")
		}
	})
	open := func(dsn, db string) error {
		_, err := engine.Open(ctx, "postgres", model.Config{DSN: dsn, Database: db})
		if err == nil {
			t.Fatalf("open %s succeeded", strings.ReplaceAll(dsn, pw, "xxxxx"))
		}
		if strings.Contains(err.Error(), pw) {
			t.Fatalf("error shows the password: %v", err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
		return err
	}
	expect := func(err error, want string) {
		t.Helper()
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	// A closed port.
	expect(open("postgres://postgres:"+pw+"@127.0.0.1:1/postgres?connect_timeout=5", x), "cannot reach the server")

	cfg, err := pgx.ParseConfig(dsn())
	if err != nil {
		t.Fatal(err)
	}
	host := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	if strings.HasPrefix(cfg.Host, "/") {
		t.Skip("role tests need a TCP DSN")
	}
	// Roles made for the test, dropped after; roles are the whole
	// server's, so their names are this process's too.
	nologin, nocreatedb := testdb.Name(t, "rumbench_test_nologin"), testdb.Name(t, "rumbench_test_nocreatedb")
	roles := []string{nologin, nocreatedb}
	drop := func() {
		for _, r := range roles {
			admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+r)
		}
	}
	drop()
	t.Cleanup(drop)
	if _, err := admin.Exec(ctx, "CREATE ROLE "+nologin+" NOLOGIN PASSWORD '"+pw+"'"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE ROLE "+nocreatedb+" LOGIN NOCREATEDB PASSWORD '"+pw+"'"); err != nil {
		t.Fatal(err)
	}

	// Authentication: a role that does not exist, and a NOLOGIN role. (With
	// trust authentication a wrong password still logs in, so a bad password
	// itself can only be tested against a server that checks passwords.)
	expect(open("postgres://rumbench_test_nosuchrole:"+pw+"@"+host+"/postgres", x), "authentication failed")
	expect(open("postgres://"+nologin+":"+pw+"@"+host+"/postgres", x), "authentication failed")

	// Missing privilege: CREATE DATABASE without CREATEDB.
	err = open("postgres://"+nocreatedb+":"+pw+"@"+host+"/postgres", nopriv)
	expect(err, "lacks a privilege")
	expect(err, "CREATEDB")
	if dbExists(t, admin, nopriv) {
		t.Error("a database was created without the privilege")
	}

	// Bad input.
	expect(open(dsn(), "bad-name;"), "bad --database")
	expect(open("root@tcp(127.0.0.1:3306)/", x), "MySQL DSN")
}

// TestConformance runs the conformance suite every engine runs, each part
// in a database of its own.
func TestConformance(t *testing.T) {
	enginetest.Conformance(t, enginetest.ServerOpener(target(t, "rumbench_test_pg_conf")))
}

// TestLinkBenchCounts: counts equal visible links after concurrent
// linkbench requests (issue 19).
func TestLinkBenchCounts(t *testing.T) {
	tg := target(t, "rumbench_test_pg_lb")
	enginetest.OpenServer(t, tg).Close()
	enginetest.LinkBenchCounts(t, tg)
}

// TestInternals: PostgreSQL's own counters over a load, per inserted row:
// every row is counted as inserted by pg_stat_user_tables (exact: the
// workers' statistics are flushed before the step's counters are read),
// each row is WAL-logged (a heap tuple of ~60 bytes and a PK entry, plus
// the records' headers: from 0.05 KB; the WAL is the server's, so other
// databases' work can add to it), and full-page images are at most one
// per row.
func TestInternals(t *testing.T) {
	adminConn(t)
	tg := target(t, "rumbench_test_pg_internals")
	enginetest.OpenServer(t, tg).Close()
	defer enginetest.DropDatabase(t, tg)
	enginetest.Internals(t, tg, map[string]enginetest.Bounds{
		model.InternalLogKB: {Lo: 0.05, Hi: 10},
		model.InternalFPI:   {Lo: 0, Hi: 1},
	}, map[string]enginetest.Bounds{"pg_stat_user_tables.n_tup_ins": {Lo: 1, Hi: 1}})
}

// TestInternalsWaitsOnlyForClosedSessions: reading the counters waits for
// the backends of the worker sessions this process closed (they flush
// their statistics as they exit), and not for sessions still open: a
// query step's, opened before its start, or another shard's in the same
// database. Waiting for those held every read for its whole bound, and a
// shard of a sharded run reads after the start the shards agreed on, so a
// 1.5 s query step of a loaded host lost a second and could end with no
// work done.
func TestInternalsWaitsOnlyForClosedSessions(t *testing.T) {
	admin := adminConn(t)
	tg := target(t, "rumbench_test_pg_internals_wait")
	db := enginetest.OpenServer(t, tg)
	t.Cleanup(func() { db.Close() })
	pg, ok := db.(*DB)
	if !ok {
		t.Fatalf("engine.Open returned %T, want *postgres.DB", db)
	}
	ctx := context.Background()
	backends := func() map[int64]bool {
		rows, err := admin.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'rumbench'", tg.Database)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		pids := map[int64]bool{}
		for rows.Next() {
			var pid int64
			if err := rows.Scan(&pid); err != nil {
				t.Fatal(err)
			}
			pids[pid] = true
		}
		return pids
	}
	held, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	closing, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := backends()
	if err := closing.Close(); err != nil {
		t.Fatal(err)
	}
	const bound = 10 * time.Second
	start := time.Now()
	pg.waitWorkersGone(ctx, bound)
	if took := time.Since(start); took > bound/2 {
		t.Fatalf("waitWorkersGone took %s with a session still open: it waited for the open session, not only the closed one", took)
	}
	gone := 0
	after := backends()
	for pid := range before {
		if !after[pid] {
			gone++
		}
	}
	if gone != 1 {
		t.Fatalf("%d of the backends before the close are gone after the wait, want the closed session's one (before %v, after %v)", gone, before, after)
	}
}
