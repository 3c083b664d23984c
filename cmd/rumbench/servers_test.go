package main

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"rumbench/internal/engine/dbserver"
	mysqleng "rumbench/internal/engine/sql/mysql"
	"rumbench/internal/enginetest"
	"rumbench/internal/testdb"
)

// mariaDSN is the local MariaDB's DSN without a default database.
func mariaDSN() (string, error) {
	mc, err := mysqldrv.ParseDSN(dbserver.DSN("", mysqleng.EnvDSN, mysqleng.DefaultDSN))
	if err != nil {
		return "", err
	}
	mc.DBName = ""
	return mc.FormatDSN(), nil
}

// mariaPing opens the local MariaDB and checks that it answers.
func mariaPing() (*stdsql.DB, error) {
	dsn, err := mariaDSN()
	if err != nil {
		return nil, err
	}
	db, err := stdsql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// mariaAdmin connects to the local MariaDB for the tests' own statements
// and returns the pool and the DSN; it is closed after every cleanup
// registered later (t.Cleanup runs last-in first-out), so those can still
// use it. The test skips when the server is unreachable, or fails under
// enginetest.RequireServers.
func mariaAdmin(t *testing.T) (*stdsql.DB, string) {
	t.Helper()
	db, err := mariaPing()
	if err != nil {
		if enginetest.RequireServers() {
			t.Fatalf("mariadb unreachable: %v", err)
		}
		t.Skipf("mariadb unreachable (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", err)
	}
	t.Cleanup(func() { db.Close() })
	dsn, _ := mariaDSN()
	return db, dsn
}

// freshMariaDB drops database name, made with testdb.Name, now and when
// the test ends, pass or fail.
func freshMariaDB(t *testing.T, admin *stdsql.DB, name string) {
	t.Helper()
	if !testdb.Owned(name) {
		t.Fatalf("database %s has no per-process suffix: name it with testdb.Name", name)
	}
	registerTestDB("mariadb", name)
	drop := func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	}
	drop()
	t.Cleanup(drop)
}

// pgReachable returns the local PostgreSQL's host:port when it answers
// over TCP, else "".
func pgReachable() string {
	cfg, err := pgx.ParseConfig(pgDSN())
	if err != nil || strings.HasPrefix(cfg.Host, "/") {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return ""
	}
	c.Close(ctx)
	return fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
}

// testDBs holds the databases this package's tests create, as
// "server:name", registered by freshDB and freshMariaDB: TestMain checks
// that none is left. (This process's names only, each with its testdb
// suffix: other test processes, of this package or others, may be running
// on the same servers with databases of their own.)
var testDBs struct {
	sync.Mutex
	names map[string]bool
}

func registerTestDB(server, name string) {
	testDBs.Lock()
	defer testDBs.Unlock()
	if testDBs.names == nil {
		testDBs.names = map[string]bool{}
	}
	testDBs.names[server+":"+name] = true
}

// leftDatabases lists the registered databases that still exist on the
// local servers, sorted.
func leftDatabases() []string {
	testDBs.Lock()
	defer testDBs.Unlock()
	if len(testDBs.names) == 0 {
		return nil
	}
	var left []string
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c, err := pgx.Connect(ctx, pgDSN()); err == nil {
		for n := range testDBs.names {
			name, ok := strings.CutPrefix(n, "postgres:")
			var exists bool
			if ok && c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists) == nil && exists {
				left = append(left, n)
			}
		}
		c.Close(ctx)
	}
	if db, err := mariaPing(); err == nil {
		for n := range testDBs.names {
			name, ok := strings.CutPrefix(n, "mariadb:")
			var count int
			if ok && db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&count) == nil && count > 0 {
				left = append(left, n)
			}
		}
		db.Close()
	}
	sort.Strings(left)
	return left
}
