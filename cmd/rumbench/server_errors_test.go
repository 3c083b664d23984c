package main

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"rumbench/internal/testdb"
)

// An address that accepts connections but never greets (a firewall, a
// proxy, another service): the driver alone waited 10 s and said "invalid
// connection" (exit 1); now one line names the address and the fix, exit 2,
// after the DSN's timeout.
func TestMariaDBSilentAddress(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	addr := l.Addr().String()
	out := filepath.Join(t.TempDir(), "r")
	start := time.Now()
	wantExactBadInput(t, "rumbench: innodb: no MariaDB server answered at tcp("+addr+") (it accepted the connection but sent nothing in 1s): check the host and port in --dsn or $RUMBENCH_MYSQL_DSN (e.g. root@tcp(127.0.0.1:3306)/)",
		"run", "--engine", "innodb", "--dsn", "root@tcp("+addr+")/?timeout=1s", "--rows", "100", "--quiet", "--out", out)
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("refused after %v, want about the DSN's 1 s timeout", d)
	}
}

// A --database that is someone else's (MariaDB's own mysql) is the user's
// to change: exit 2, naming the server.
func TestForeignDatabaseRefused(t *testing.T) {
	t.Parallel()
	_, dsn := mariaAdmin(t)
	mc, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r")
	// --quiet puts the banner on stderr, before the error.
	_, stderr, code := rb(t, "run", "--engine", "innodb", "--database", "mysql", "--rows", "100", "--quiet", "--out", out)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if code != 2 || len(lines) != 2 || !strings.HasPrefix(last, "rumbench: innodb: database mysql at "+mc.Net+"("+mc.Addr+") exists and was not created by rumbench (") ||
		!strings.HasSuffix(last, " tables, no rumbench_catalog): choose another --database") {
		t.Fatalf("--database mysql: exit %d, stderr %q; want exit 2, the banner and one line naming the server", code, stderr)
	}
}

// A run that needs more connections than the server has left is refused
// before it creates anything: one line with the figures and the fix, exit 2.
func TestConnectionRoomChecked(t *testing.T) {
	t.Parallel()
	admin := pgAdmin(t)
	name := testdb.Name(t, "rb_room")
	freshDB(t, admin, name)
	mdb, _ := mariaAdmin(t)
	freshMariaDB(t, mdb, name)
	for _, c := range []struct{ engine, want string }{
		{"postgres", "rumbench: postgres: the run needs 603 connections at once (600 for the workload's clients, 3 for the engine), the server has room for "},
		{"innodb", "rumbench: innodb: the run needs 603 connections at once (600 for the workload's clients, 3 for the engine), the server has room for "},
	} {
		out := filepath.Join(t.TempDir(), "r")
		stdout, stderr, code := rb(t, "run", "--engine", c.engine, "--database", name, "--clients", "200", "--rows", "10", "--quiet", "--out", out)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], c.want) || !strings.Contains(lines[0], "max_connections") ||
			!strings.HasSuffix(lines[0], "in use): use fewer --clients, raise its max_connections, or end other sessions") || stdout != "" {
			t.Fatalf("%s with 200 clients: exit %d, stdout %q, stderr %q; want exit 2 and one line %q...", c.engine, code, stdout, stderr, c.want)
		}
	}
	var n int
	if err := admin.QueryRow(context.Background(), "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil || n != 0 {
		t.Errorf("the refused run created database %s on postgres (%d, %v)", name, n, err)
	}
	if err := mdb.QueryRow("SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil || n != 0 {
		t.Errorf("the refused run created database %s on mariadb (%d, %v)", name, n, err)
	}
}
