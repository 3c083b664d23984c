package mongo

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"rumbench/internal/enginetest"
)

// These tests check scripts/ferretdb.sh itself: an instance it starts
// answers, and after stop — or after its owner process dies — nothing of it
// is left: no process, no listening port, no temp dir, no PostgreSQL
// database.

// instance is a FerretDB started by scripts/ferretdb.sh for one test.
type instance struct {
	dsn, dir string
	pid      int
	port     int
	pgDSN    string // postgresql backend: the server and the database
	pgDB     string
}

func startInstance(t *testing.T, backend string, owner int) *instance {
	t.Helper()
	dsn, dir, status, err := startFerret(backend, owner)
	if err != nil {
		switch {
		case enginetest.RequireServers():
			t.Fatalf("FerretDB (%s) did not start (CI or RUMBENCH_REQUIRE_SERVERS is set): %v", backend, err)
		case status == 3:
			t.Skipf("FerretDB is not available here: %v", err)
		default:
			t.Skipf("FerretDB (%s) did not start: %v", backend, err)
		}
	}
	in := &instance{dsn: dsn, dir: dir}
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(dir, "pid")); err == nil {
			exec.Command(script(), "stop", dir).Run() //nolint:errcheck // best effort after a failed test
		}
	})
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	if in.pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		t.Fatalf("pid file: %v", err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if in.port, err = strconv.Atoi(u.Port()); err != nil {
		t.Fatalf("DSN %s has no port", dsn)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "pg_db")); err == nil {
		in.pgDB = strings.TrimSpace(string(b))
		b, _ = os.ReadFile(filepath.Join(dir, "pg_dsn"))
		in.pgDSN = strings.TrimSpace(string(b))
	}
	return in
}

// processAlive: the process exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) S ...": the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

func pgHasDatabase(t *testing.T, pgDSN, db string) bool {
	t.Helper()
	out, err := exec.Command("psql", pgDSN, "-Atc", "SELECT count(*) FROM pg_database WHERE datname = '"+db+"'").CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out)) == "1"
}

// checkRunning: the instance answers on its port from its own process.
func (in *instance) checkRunning(t *testing.T) {
	t.Helper()
	if !processAlive(in.pid) {
		t.Fatalf("FerretDB pid %d is not running", in.pid)
	}
	if pid, err := listenerPid(in.port); err != nil || pid != in.pid {
		t.Fatalf("port %d is held by pid %d (%v), want FerretDB's %d", in.port, pid, err, in.pid)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(in.dsn).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	ctx := context.Background()
	coll := c.Database("rumbench_test_mongo_script").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(1)}, {Key: "v", Value: "x"}}); err != nil {
		t.Fatalf("insert into FerretDB at %s: %v", in.dsn, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("FerretDB at %s counts %d documents (%v), want 1", in.dsn, n, err)
	}
	if in.pgDB != "" && !pgHasDatabase(t, in.pgDSN, in.pgDB) {
		t.Fatalf("PostgreSQL has no database %s for FerretDB", in.pgDB)
	}
}

// checkGone: no process, no listener on the port, no dir, no database.
// within bounds the wait for a watchdog, which polls its owner.
func (in *instance) checkGone(t *testing.T, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for processAlive(in.pid) || dirExists(in.dir) {
		if time.Now().After(deadline) {
			t.Fatalf("FerretDB pid %d alive %v, dir %s exists %v, %v after it should have stopped", in.pid, processAlive(in.pid), in.dir, dirExists(in.dir), within)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if pid, err := listenerPid(in.port); err == nil {
		t.Errorf("port %d still has a listener, pid %d", in.port, pid)
	}
	if in.pgDB != "" && pgHasDatabase(t, in.pgDSN, in.pgDB) {
		t.Errorf("PostgreSQL database %s still exists", in.pgDB)
	}
}

func dirExists(dir string) bool {
	_, err := os.Stat(dir)
	return err == nil
}

func TestFerretDBScriptStop(t *testing.T) {
	in := startInstance(t, "sqlite", os.Getpid())
	in.checkRunning(t)
	if out, err := exec.Command(script(), "stop", in.dir).CombinedOutput(); err != nil {
		t.Fatalf("ferretdb.sh stop: %v: %s", err, out)
	}
	in.checkGone(t, 0)
}

// TestFerretDBScriptOwnerDies: when the owner process (a test binary that
// crashed or timed out) is gone, the watchdog stops the instance.
func TestFerretDBScriptOwnerDies(t *testing.T) {
	owner := exec.Command("sleep", "600")
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	in := startInstance(t, "sqlite", owner.Process.Pid)
	in.checkRunning(t)
	owner.Process.Kill()
	owner.Wait()
	in.checkGone(t, 20*time.Second)
}

// TestFerretDBScriptPostgreSQL: the postgresql backend keeps its data in its
// own database on the local server, dropped by stop.
func TestFerretDBScriptPostgreSQL(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		if enginetest.RequireServers() {
			t.Fatal("psql not found (CI or RUMBENCH_REQUIRE_SERVERS is set)")
		}
		t.Skip("psql not found: the postgresql backend needs the local PostgreSQL and its client")
	}
	in := startInstance(t, "postgresql", os.Getpid())
	if in.pgDB == "" || !strings.HasPrefix(in.pgDB, "rumbench_ferretdb_") {
		t.Fatalf("postgresql instance has database %q, want rumbench_ferretdb_<port>", in.pgDB)
	}
	in.checkRunning(t)
	if out, err := exec.Command(script(), "stop", in.dir).CombinedOutput(); err != nil {
		t.Fatalf("ferretdb.sh stop: %v: %s", err, out)
	}
	in.checkGone(t, 0)
}
