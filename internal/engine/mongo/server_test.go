package mongo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"rumbench/internal/enginetest"
)

// The server tests run against $RUMBENCH_MONGO_DSN when it is set (a real
// MongoDB: see docs/mongodb.md), else against a FerretDB that
// scripts/ferretdb.sh builds (once, cached in .cache/ferretdb) and starts
// for this test binary on a free port with its SQLite backend.
//
// When the server can't be had they skip, except:
//   - CI or RUMBENCH_REQUIRE_SERVERS set: a FerretDB that fails to build or
//     start, or an unreachable $RUMBENCH_MONGO_DSN, fails them;
//   - RUMBENCH_REQUIRE_MONGO set: FerretDB's module missing from the Go
//     module proxy (ferretdb.sh exit 3) fails them too. Without it that case
//     skips even in CI, saying so, because it is the proxy's choice and not
//     a fault of the project (see docs/mongodb.md).

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
		out, err := exec.Command(script(), "stop", server.dir).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "stop FerretDB: %v: %s\n", err, out)
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

func startServer() {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		server.dsn = dsn
		return
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(script(), "start", "sqlite")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	if i := strings.LastIndex(msg, "ferretdb.sh: "); i >= 0 {
		msg = msg[i:]
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		lines := strings.Fields(stdout.String())
		if len(lines) != 2 {
			server.fail = fmt.Sprintf("ferretdb.sh start printed %q, want the DSN and the instance dir", stdout.String())
			return
		}
		server.dsn, server.dir, server.ferret = lines[0], lines[1], true
	case errors.As(err, &ee) && ee.ExitCode() == 3:
		server.skip = "FerretDB is not available here (" + msg + "); set " + EnvDSN + " to test against a MongoDB server"
		if os.Getenv("RUMBENCH_REQUIRE_MONGO") != "" {
			server.fail, server.skip = server.skip+" (RUMBENCH_REQUIRE_MONGO is set)", ""
		}
	default:
		server.skip = fmt.Sprintf("FerretDB did not start (%v): %s", err, msg)
		if enginetest.RequireServers() {
			server.fail, server.skip = server.skip+" (CI or RUMBENCH_REQUIRE_SERVERS is set)", ""
		}
	}
}

// serverDSN returns the DSN of the test server, skipping or failing the
// test when there is none.
func serverDSN(t *testing.T) string {
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

func target(t *testing.T, db string) enginetest.Target {
	return enginetest.Target{Engine: "mongodb", DSN: serverDSN(t), Database: db}
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
