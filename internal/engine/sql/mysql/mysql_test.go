package mysql

import (
	"context"
	stdsql "database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"rumbench/internal/engine"
	"rumbench/internal/engine/dbserver"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/testdb"
)

// These tests use the server at $RUMBENCH_MYSQL_DSN (default DefaultDSN) as
// a user allowed to create databases and users; myrocks needs the server
// started with the ROCKSDB plugin loaded. They skip when the server is
// unreachable, unless CI or RUMBENCH_REQUIRE_SERVERS is set.

func dsn() string { return dbserver.DSN("", EnvDSN, DefaultDSN) }

func admin(t *testing.T) *stdsql.DB {
	t.Helper()
	mc, err := mysql.ParseDSN(dsn())
	if err != nil {
		t.Fatal(err)
	}
	mc.DBName = ""
	c, err := mysql.NewConnector(mc)
	if err != nil {
		t.Fatal(err)
	}
	db := stdsql.OpenDB(c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		if enginetest.RequireServers() {
			t.Fatalf("mariadb unreachable: %v", err)
		}
		t.Skipf("mariadb unreachable (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func dbExists(t *testing.T, a *stdsql.DB, name string) bool {
	t.Helper()
	var n int
	if err := a.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func steps(t *testing.T, eng string, opts map[string]string) {
	a := admin(t)
	base := "rumbench_test_" + eng + "_steps"
	if opts["prepare"] == "true" {
		base += "_prep"
	}
	tg := enginetest.Target{Engine: eng, DSN: dsn(), Database: testdb.Name(t, base), Options: opts}
	db := enginetest.OpenServer(t, tg)
	info := db.Info()
	want := []string{"server_version", "innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_flush_method", "innodb_doublewrite"}
	if eng == "myrocks" {
		want = []string{"server_version", "rocksdb_block_cache_size", "rocksdb_flush_log_at_trx_commit", "rocksdb_default_cf_options"}
	}
	for _, k := range want {
		if _, ok := info.Settings[k]; !ok {
			t.Errorf("setting %s not recorded: %v", k, info.Settings)
		}
	}
	db.Close()
	enginetest.ServerSteps(t, tg)

	// The tables are in the engine asked for.
	var wrong int
	if err := a.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'pi%' AND ENGINE <> ?",
		tg.Database, map[string]string{"innodb": "InnoDB", "myrocks": "ROCKSDB"}[eng]).Scan(&wrong); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Errorf("%d tables are not in %s", wrong, eng)
	}
	ctx := context.Background()
	db, err := engine.Open(ctx, eng, model.Config{DSN: tg.DSN, Database: tg.Database})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.Size(ctx); err != nil || n <= 0 {
		t.Errorf("Size = %d, %v", n, err)
	}
	if pid, dir, err := db.(model.ProcessOwner).ServerProcess(ctx); err != nil {
		t.Logf("server process not found (allowed when the pid file is not readable): %v", err)
	} else if pid <= 0 || dir == "" {
		t.Errorf("ServerProcess = %d, %q", pid, dir)
	}
	if err := db.(model.Maintainer).Maintain(ctx); err != nil {
		t.Errorf("Maintain: %v", err)
	}
	qctx, cancel := context.WithTimeout(ctx, time.Minute)
	waits, err := db.(model.Quiescer).Quiesce(qctx)
	cancel()
	if err != nil || len(waits) == 0 {
		t.Errorf("Quiesce = %+v, %v", waits, err)
	}
	for _, w := range waits {
		// Purge and MyRocks' compactions are the server's, shared with
		// other tests' databases: a wait that ran out is logged; a
		// reading that is missing is an error.
		if w.Before == "" || w.After == "" {
			t.Errorf("quiesce wait without readings: %+v", w)
		} else if !w.Reached {
			t.Logf("quiesce wait not reached within a minute (a busy shared server): %+v", w)
		}
	}
	if eng == "innodb" && (len(waits) != 2 || !strings.Contains(waits[1].What, "FOR EXPORT")) && waits[0].Reached {
		t.Errorf("innodb quiesce: want the purge wait then the tables' flush: %+v", waits)
	}
	db.Close()
	enginetest.DropDatabase(t, tg)
	if dbExists(t, a, tg.Database) {
		t.Fatalf("database %s still exists after DropDatabase", tg.Database)
	}
}

func TestInnoDBSteps(t *testing.T)         { steps(t, "innodb", nil) }
func TestInnoDBStepsPrepared(t *testing.T) { steps(t, "innodb", map[string]string{"prepare": "true"}) }
func TestMyRocksSteps(t *testing.T)        { steps(t, "myrocks", nil) }

// TestDeleteOldest covers fewer rows than asked and the drop at Close.
func TestDeleteOldest(t *testing.T) {
	a := admin(t)
	ctx := context.Background()
	tg := enginetest.Target{Engine: "innodb", DSN: dsn(), Database: testdb.Name(t, "rumbench_test_innodb_del"), Options: map[string]string{"drop_database": "true"}}
	db := enginetest.OpenServer(t, tg)
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
	found, err := c.Update(ctx, tbl, model.Row{{Int: 5}}, []model.Change{{Col: 1, Value: model.Value{Bytes: []byte("x")}}})
	if err != nil || !found {
		t.Fatalf("update to the same value: found=%v, %v (clientFoundRows must be on)", found, err)
	}
	if n, err := c.DeleteOldest(ctx, tbl, nil, 100); err != nil || n != 7 {
		t.Fatalf("DeleteOldest(100) on 7 rows = %d, %v", n, err)
	}
	c.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if dbExists(t, a, tg.Database) {
		t.Fatalf("database %s still exists after Close with drop_database=true", tg.Database)
	}
}

// TestForeignDatabase: a database with tables but no rumbench catalog is
// refused, and left alone.
func TestForeignDatabase(t *testing.T) {
	a := admin(t)
	ctx := context.Background()
	name := testdb.Name(t, "rumbench_test_foreign")
	a.Exec("DROP DATABASE IF EXISTS " + name)
	if _, err := a.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Exec("DROP DATABASE IF EXISTS " + name) })
	if _, err := a.Exec("CREATE TABLE " + name + ".precious (x int)"); err != nil {
		t.Fatal(err)
	}
	_, err := engine.Open(ctx, "innodb", model.Config{DSN: dsn(), Database: name})
	if err == nil || !strings.Contains(err.Error(), "not created by rumbench") {
		t.Fatalf("open of a foreign database: %v", err)
	}
	var n int
	a.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", name).Scan(&n)
	if n != 1 {
		t.Fatalf("foreign database has %d tables, want 1", n)
	}
}

// TestErrors checks the one-line errors and that no password leaks.
func TestErrors(t *testing.T) {
	a := admin(t)
	ctx := context.Background()
	const pw = "Sekr3tPassw0rd"
	// Never created: every open below must fail before that. Dropped all
	// the same should one be made, so a failure leaves nothing behind.
	x, nopriv := testdb.Name(t, "rumbench_test_x"), testdb.Name(t, "rumbench_test_nopriv")
	t.Cleanup(func() {
		for _, n := range []string{x, nopriv} {
			a.Exec("DROP DATABASE IF EXISTS " + n)
		}
	})
	open := func(eng, dsn, db string) error {
		_, err := engine.Open(ctx, eng, model.Config{DSN: dsn, Database: db})
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

	expect(open("innodb", "root:"+pw+"@tcp(127.0.0.1:1)/?timeout=5s", x), "cannot reach the server")
	expect(open("myrocks", "root@unix(/nonexistent/mysqld.sock)/", x), "cannot reach the server")

	mc, err := mysql.ParseDSN(dsn())
	if err != nil {
		t.Fatal(err)
	}
	if mc.Net != "tcp" {
		t.Skip("user tests need a TCP DSN")
	}
	// Users made for the test (host %: the server sees 127.0.0.1 or ::1),
	// dropped after; users are the whole server's, so their names are this
	// process's too.
	pwUser, noprivUser := testdb.Name(t, "rumbench_test_pw"), testdb.Name(t, "rumbench_test_nopriv")
	users := []string{pwUser, noprivUser}
	drop := func() {
		for _, u := range users {
			a.Exec("DROP USER IF EXISTS '" + u + "'@'%'")
		}
	}
	drop()
	t.Cleanup(drop)
	for _, u := range users {
		if _, err := a.Exec("CREATE USER '" + u + "'@'%' IDENTIFIED BY '" + pw + "'"); err != nil {
			t.Fatal(err)
		}
	}
	// A wrong password.
	expect(open("innodb", pwUser+":wrong"+pw+"@tcp("+mc.Addr+")/", x), "authentication failed")
	// No privilege to create the database.
	err = open("innodb", noprivUser+":"+pw+"@tcp("+mc.Addr+")/", nopriv)
	expect(err, "lacks a privilege")
	if dbExists(t, a, nopriv) {
		t.Error("a database was created without the privilege")
	}
	// Bad input.
	expect(open("innodb", dsn(), "bad-name;"), "bad --database")
	expect(open("innodb", "postgres://postgres@127.0.0.1:5432/", x), "looks like a URL")
}

func TestCheckVersion(t *testing.T) {
	for v, ok := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": true, "11.4.2-MariaDB": true, "10.4.30-MariaDB": false,
		"8.0.36": true, "5.7.44-log": false, "garbage": false,
	} {
		if err := checkVersion(v); (err == nil) != ok {
			t.Errorf("checkVersion(%q) = %v, want ok=%v", v, err, ok)
		}
	}
}

// TestConformance runs the conformance suite every engine runs on InnoDB
// and MyRocks, each part in a database of its own.
func TestConformance(t *testing.T) {
	for _, eng := range []string{"innodb", "myrocks"} {
		t.Run(eng, func(t *testing.T) {
			enginetest.Conformance(t, enginetest.ServerOpener(enginetest.Target{Engine: eng, DSN: dsn(), Database: testdb.Name(t, "rumbench_test_"+eng+"_conf")}))
		})
	}
}

// TestLinkBenchCounts: counts equal visible links after concurrent
// linkbench requests, on InnoDB and MyRocks (issue 19).
func TestLinkBenchCounts(t *testing.T) {
	for _, eng := range []string{"innodb", "myrocks"} {
		t.Run(eng, func(t *testing.T) {
			tg := enginetest.Target{Engine: eng, DSN: dsn(), Database: testdb.Name(t, "rumbench_test_"+eng+"_lb")}
			enginetest.OpenServer(t, tg).Close()
			enginetest.LinkBenchCounts(t, tg)
		})
	}
}

// TestSizes: on the local server (not managed by rumbench) InnoDB's on-disk
// footprint is the database's directory (<datadir>/<name>, its .ibd files)
// and its live size the .ibd files less their free extents (issue 34).
func TestSizes(t *testing.T) {
	tg := enginetest.Target{Engine: "innodb", DSN: dsn(), Database: testdb.Name(t, "rumbench_test_innodb_sizes")}
	enginetest.OpenServer(t, tg).Close()
	enginetest.Sizes(t, tg, results.DiskDatabaseDir)
}

// TestInternals: the server's own counters over a load, per inserted row
// (global counters: other databases' work can only add): InnoDB logs each
// row in its redo (from 0.05 KB) and reads few pages from outside its
// buffer pool on a fresh table (< 1 per row); MyRocks counts every row
// inserted, logs it in its WAL and has no full-page images.
func TestInternals(t *testing.T) {
	admin(t)
	for _, eng := range []string{"innodb", "myrocks"} {
		t.Run(eng, func(t *testing.T) {
			tg := enginetest.Target{Engine: eng, DSN: dsn(), Database: testdb.Name(t, "rumbench_test_"+eng+"_internals")}
			enginetest.OpenServer(t, tg).Close()
			defer enginetest.DropDatabase(t, tg)
			per := map[string]enginetest.Bounds{model.InternalLogKB: {Lo: 0.05, Hi: 20}, model.InternalCacheMiss: {Lo: 0, Hi: 1}}
			raw := map[string]enginetest.Bounds{}
			if eng == "myrocks" {
				per[model.InternalStallS] = enginetest.Bounds{Lo: 0, Hi: 1}
				raw["rocksdb_rows_inserted"] = enginetest.Bounds{Lo: 1, Hi: 100}
			} else {
				raw["innodb_os_log_written"] = enginetest.Bounds{Lo: 50, Hi: 20 << 10}
			}
			s := enginetest.Internals(t, tg, per, raw)
			if _, ok := s.Metrics.InternalsPerOp[model.InternalFPI]; ok {
				t.Errorf("%s has no full-page images, yet fpi is recorded", eng)
			}
		})
	}
}
