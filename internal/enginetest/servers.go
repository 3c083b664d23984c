package enginetest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/engine/dbserver"
	"rumbench/internal/model"
	"rumbench/internal/testdb"
	"rumbench/internal/workload/ibench"
)

// RequireServers reports whether server tests must fail, not skip, when
// their server is unreachable: in CI, or with RUMBENCH_REQUIRE_SERVERS set.
func RequireServers() bool {
	return os.Getenv("CI") != "" || os.Getenv("RUMBENCH_REQUIRE_SERVERS") != ""
}

// OpenServer opens a server engine for a test in its own database and
// registers a cleanup that drops it. When the server can't be opened the
// test is skipped, or fails under RequireServers. The database must be
// named with testdb.Name: a fixed name on a shared server is dropped by
// another test process running the same test.
func OpenServer(t testing.TB, tg Target) model.DB {
	t.Helper()
	if !testdb.Owned(tg.Database) {
		t.Fatalf("database %q has no per-process suffix: name it with testdb.Name(t, %q)", tg.Database, tg.Database)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := engine.Open(ctx, tg.Engine, tg.config())
	if err != nil {
		if RequireServers() {
			t.Fatalf("server for %s unavailable (RUMBENCH_REQUIRE_SERVERS or CI is set): %v", tg.Engine, err)
		}
		t.Skipf("server for %s unavailable (set RUMBENCH_REQUIRE_SERVERS=1 to fail instead): %v", tg.Engine, err)
	}
	t.Cleanup(func() { DropDatabase(t, tg) })
	return db
}

// ServerOpener is the conformance suite's Opener for a server engine: each
// data directory the suite asks for is a database of its own, tg.Database
// with a number, opened with OpenServer (so dropped when the test that
// first opened it ends); the same directory again reopens its database.
func ServerOpener(tg Target) Opener {
	var mu sync.Mutex
	names := map[string]string{}
	return func(t testing.TB, dir string) model.DB {
		t.Helper()
		mu.Lock()
		name, seen := names[dir]
		if !seen {
			name = fmt.Sprintf("%s_%d", tg.Database, len(names)+1)
			names[dir] = name
		}
		mu.Unlock()
		db := tg
		db.Database = name
		if !seen {
			return OpenServer(t, db)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d, err := engine.Open(ctx, db.Engine, db.config())
		if err != nil {
			t.Fatalf("reopen %s database %s: %v", db.Engine, name, err)
		}
		return d
	}
}

// DropDatabase drops the target's database through the engine.
func DropDatabase(t testing.TB, tg Target) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := engine.Open(ctx, tg.Engine, tg.config())
	if err != nil {
		t.Errorf("open %s to drop database %s: %v", tg.Engine, tg.Database, err)
		return
	}
	dd, ok := db.(dbserver.DatabaseDropper)
	if !ok {
		db.Close()
		t.Errorf("engine %s cannot drop its database", tg.Engine)
		return
	}
	if err := dd.DropDatabase(ctx); err != nil {
		t.Errorf("drop database %s: %v", tg.Database, err)
	}
	db.Close()
}

// ServerSteps is the integration test of a server engine: WriteSteps, then
// the query steps qr100 and qp100 on the same data, in tg.Database, which
// the caller must have opened with OpenServer (so it is dropped).
func ServerSteps(t *testing.T, tg Target) {
	WriteSteps(t, tg)
	rows, _ := tg.sizes()
	c := tg.cfg(ibench.StepQR100, ibench.StepQP100)
	b := RunSteps(t, tg, c)
	for _, name := range c.Steps {
		s := mustStep(t, b, name)
		if s.Queries == 0 || s.QPSAvg <= 0 {
			t.Errorf("%s: %d queries, qps_avg %v", name, s.Queries, s.QPSAvg)
		}
		if s.Inserted == 0 || s.Deleted == 0 {
			t.Errorf("%s: writers inserted %d and deleted %d rows", name, s.Inserted, s.Deleted)
		}
	}
	assertCounts(t, "after the query steps", CountRows(t, tg), map[string]int64{"pi1": rows, "pi2": rows})
	Verify(t, tg)
}
