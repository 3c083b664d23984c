package mongo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"rumbench/internal/enginetest"
	"rumbench/internal/testdb"
)

// The server tests run against $RUMBENCH_MONGO_DSN when it is set (a real
// MongoDB: see docs/mongodb.md), else against a FerretDB that
// scripts/ferretdb.sh builds (once, cached in .cache/ferretdb) and starts
// for this test binary on a free port, with its SQLite backend
// ($RUMBENCH_FERRETDB_BACKEND=postgresql: on the local PostgreSQL). TestMain
// stops it; the script's watchdog stops it too if the binary dies first.
//
// When the server can't be had the tests skip, saying why — except with CI
// or RUMBENCH_REQUIRE_SERVERS set, where any failure to build, download or
// start FerretDB, or an unreachable $RUMBENCH_MONGO_DSN, fails them.

// server is the test binary's MongoDB-compatible server.
var server struct {
	once   sync.Once
	dsn    string
	dir    string // ferretdb.sh instance dir, "" for $RUMBENCH_MONGO_DSN
	ferret bool   // the tests started FerretDB
	skip   string // why the server tests skip
	fail   string // why they fail
}

func TestMain(m *testing.M) {
	code := m.Run()
	if server.dir != "" {
		// Stop this binary's FerretDB and check that nothing of it is left.
		pidText, _ := os.ReadFile(filepath.Join(server.dir, "pid"))
		pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
		out, err := exec.Command(script(), "stop", server.dir).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "stop FerretDB: %v: %s\n", err, out)
			code = 1
		}
		if pid <= 0 || processAlive(pid) || dirExists(server.dir) {
			fmt.Fprintf(os.Stderr, "FerretDB not stopped: pid %d alive %v, dir %s exists %v\n", pid, pid > 0 && processAlive(pid), server.dir, dirExists(server.dir))
			code = 1
		}
	}
	os.Exit(code)
}

// script is scripts/ferretdb.sh of this checkout.
func script() string {
	wd, _ := os.Getwd()
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "scripts", "ferretdb.sh")
		}
	}
	return "scripts/ferretdb.sh"
}

// EnvFerretBackend chooses the FerretDB backend of the tests: sqlite
// (default) or postgresql.
const EnvFerretBackend = "RUMBENCH_FERRETDB_BACKEND"

// startFerret runs scripts/ferretdb.sh start with this process as the
// instance's owner and returns the DSN and the instance dir; on failure the
// error is the script's one-line message and its exit status.
func startFerret(backend string, owner int) (dsn, dir string, status int, err error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(script(), "start", backend)
	cmd.Env = append(os.Environ(), fmt.Sprintf("FERRETDB_OWNER_PID=%d", owner))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if runErr != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(msg, "ferretdb.sh: "); i >= 0 {
			msg = msg[i:]
		}
		status = -1
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			status = ee.ExitCode()
		}
		return "", "", status, fmt.Errorf("%v: %s", runErr, msg)
	}
	lines := strings.Fields(stdout.String())
	if len(lines) != 2 {
		return "", "", 0, fmt.Errorf("ferretdb.sh start printed %q, want the DSN and the instance dir", stdout.String())
	}
	return lines[0], lines[1], 0, nil
}

func startServer() {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		server.dsn = dsn
		return
	}
	backend := os.Getenv(EnvFerretBackend)
	if backend == "" {
		backend = "sqlite"
	}
	dsn, dir, status, err := startFerret(backend, os.Getpid())
	switch {
	case err == nil:
		server.dsn, server.dir, server.ferret = dsn, dir, true
	case enginetest.RequireServers():
		server.fail = fmt.Sprintf("FerretDB (%s) did not start (CI or RUMBENCH_REQUIRE_SERVERS is set): %v", backend, err)
	case status == 3:
		server.skip = fmt.Sprintf("FerretDB is not available here (%v); set %s to test against a MongoDB server", err, EnvDSN)
	default:
		server.skip = fmt.Sprintf("FerretDB (%s) did not start: %v", backend, err)
	}
}

// serverDSN returns the DSN of the test server, skipping or failing the
// test when there is none.
func serverDSN(t testing.TB) string {
	t.Helper()
	server.once.Do(startServer)
	switch {
	case server.fail != "":
		t.Fatal(server.fail)
	case server.skip != "":
		t.Skip(server.skip)
	}
	return server.dsn
}

// target is the test server with a database of this process's own, base
// with testdb's suffix ($RUMBENCH_MONGO_DSN may be a server other test
// processes use too).
func target(t testing.TB, base string) enginetest.Target {
	t.Helper()
	return enginetest.Target{Engine: "mongodb", DSN: serverDSN(t), Database: testdb.Name(t, base)}
}

// client connects to the test server directly, for setup and checks.
func client(t *testing.T) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(serverDSN(t)).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	if err := c.Ping(context.Background(), nil); err != nil {
		if enginetest.RequireServers() {
			t.Fatalf("mongodb server unreachable: %v", err)
		}
		t.Skipf("mongodb server unreachable (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", err)
	}
	return c
}

func dbExists(t *testing.T, c *mongo.Client, name string) bool {
	t.Helper()
	names, err := c.ListDatabaseNames(context.Background(), bson.D{{Key: "name", Value: name}})
	if err != nil {
		t.Fatal(err)
	}
	return len(names) > 0
}

// isFerret reports whether the server is FerretDB (buildInfo says so).
func isFerret(t *testing.T, c *mongo.Client) bool {
	t.Helper()
	var b bson.M
	if err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "buildInfo", Value: 1}}).Decode(&b); err != nil {
		t.Fatal(err)
	}
	_, ok := b["ferretdbVersion"]
	return ok
}
