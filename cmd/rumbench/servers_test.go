package main

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	sqleng "rumbench/internal/engine/sql"
	mysqleng "rumbench/internal/engine/sql/mysql"
	"rumbench/internal/enginetest"
)

// mariaDSN is the local MariaDB's DSN without a default database.
func mariaDSN() (string, error) {
	mc, err := mysqldrv.ParseDSN(sqleng.DSN("", mysqleng.EnvDSN, mysqleng.DefaultDSN))
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

// freshMariaDB drops database name now and when the test ends, pass or
// fail.
func freshMariaDB(t *testing.T, admin *stdsql.DB, name string) {
	t.Helper()
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

// testDatabasePrefixes start the names of the databases this package's
// tests create on the local servers.
var testDatabasePrefixes = []string{"rb_", "rbtest_", "rumbench_"}

// testDatabases lists the databases on the local PostgreSQL and MariaDB
// (those reachable) whose names start with a test prefix, as
// "engine:name".
func testDatabases() map[string]bool {
	out := map[string]bool{}
	keep := func(server, name string) {
		for _, p := range testDatabasePrefixes {
			if strings.HasPrefix(name, p) {
				out[server+":"+name] = true
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c, err := pgx.Connect(ctx, pgDSN()); err == nil {
		if rows, err := c.Query(ctx, "SELECT datname FROM pg_database"); err == nil {
			for rows.Next() {
				var n string
				if rows.Scan(&n) == nil {
					keep("postgres", n)
				}
			}
			rows.Close()
		}
		c.Close(ctx)
	}
	if db, err := mariaPing(); err == nil {
		if rows, err := db.QueryContext(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA"); err == nil {
			for rows.Next() {
				var n string
				if rows.Scan(&n) == nil {
					keep("mariadb", n)
				}
			}
			rows.Close()
		}
		db.Close()
	}
	return out
}

// newDatabases lists what is in after and not in before, sorted.
func newDatabases(before, after map[string]bool) []string {
	var out []string
	for n := range after {
		if !before[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
