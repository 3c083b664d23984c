package shard

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"rumbench/internal/engine/dbserver"
	"rumbench/internal/engine/sql/postgres"
	"rumbench/internal/testdb"
)

func TestParse(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvIndex {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		in, env string
		want    Spec
		err     string
	}{
		{"2/3", "", Spec{2, 3}, ""},
		{"0/1", "", Spec{0, 1}, ""},
		{"/3", "1", Spec{1, 3}, ""},
		{" 1/2 ", "", Spec{1, 2}, ""},
		{"3/3", "", Spec{}, "INDEX 3 is out of range: the shards of a 3-shard run are 0 to 2"},
		{"x/2", "", Spec{}, `INDEX "x" is not a number`},
		{"0/0", "", Spec{}, "COUNT must be between 1 and 1024"},
		{"0/x", "", Spec{}, `COUNT "x" is not a number`},
		{"-1/2", "", Spec{}, "INDEX -1 is out of range"},
		{"2", "", Spec{}, "want INDEX/COUNT"},
		{"/2", "", Spec{}, "$JOB_COMPLETION_INDEX is not set"},
		{"/2", "2", Spec{}, "INDEX 2 is out of range"},
		{"/2", "a", Spec{}, `INDEX "a" is not a number`},
	} {
		got, err := Parse(c.in, env(c.env))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse(%q, env %q) = %v, %v; want one-line error with %q", c.in, c.env, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q, env %q) = %v, %v; want %v", c.in, c.env, got, err, c.want)
		}
	}
	if RunID("a", "b") != RunID("a", "b") || RunID("a", "b") == RunID("ab") || len(RunID("x")) != 16 {
		t.Error("RunID is not a stable hash of its parts")
	}
}

// testDB returns a pool on a database of the test's own on the local
// PostgreSQL, dropped at the end.
func testDB(t *testing.T) *sql.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(dbserver.DSN("", postgres.EnvDSN, postgres.DefaultDSN))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		// As enginetest.RequireServers (which this package's test cannot
		// import: it imports the runner, which imports this package).
		if os.Getenv("CI") != "" || os.Getenv("RUMBENCH_REQUIRE_SERVERS") != "" {
			t.Fatalf("postgres unreachable: %v", err)
		}
		t.Skipf("postgres unreachable (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", err)
	}
	name := testdb.Name(t, "rb_shard_barrier_test")
	admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	work := cfg.Copy()
	work.Database = name
	db := stdlib.OpenDB(*work)
	t.Cleanup(func() {
		db.Close()
		admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close(context.Background())
	})
	return db
}

// TestBarrier meets three shards at barriers through PostgreSQL: they get
// one start time, a moment ahead of the last arrival; a shard that stops
// ends the others' wait with an error naming it; a failed shard ends it at
// once; a restarted shard cannot rejoin a run under way; rows of an earlier
// run with the same id are ignored.
func TestBarrier(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	open := func(run string, i, n int, timeout time.Duration) *Barrier {
		t.Helper()
		b, err := Open(ctx, db, Postgres, run, Spec{i, n}, timeout)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	waitAll := func(bs []*Barrier, step string, delay time.Duration) ([]time.Time, []error, time.Time) {
		starts := make([]time.Time, len(bs))
		errs := make([]error, len(bs))
		var wg sync.WaitGroup
		for i, b := range bs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * delay)
				starts[i], errs[i] = b.Wait(ctx, step)
			}()
		}
		wg.Wait()
		return starts, errs, time.Now()
	}

	// One start for all, ahead of the last arrival (200 ms after the first).
	bs := []*Barrier{open("r1", 0, 3, 5*time.Second), open("r1", 1, 3, 5*time.Second), open("r1", 2, 3, 5*time.Second)}
	before := time.Now()
	starts, errs, _ := waitAll(bs, "s1", 100*time.Millisecond)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		if d := starts[i].Sub(starts[0]); d < -50*time.Millisecond || d > 50*time.Millisecond {
			t.Fatalf("shard %d starts %s after shard 0", i, d)
		}
	}
	if lead := starts[0].Sub(before); lead < 200*time.Millisecond+DefaultLead-50*time.Millisecond {
		t.Fatalf("start %s after the first arrival, want about the last arrival (200 ms) + %s", lead, DefaultLead)
	}
	// A second step gets its own start.
	starts2, errs, _ := waitAll(bs, "s2", 0)
	if errs[0] != nil || !starts2[0].After(starts[0]) {
		t.Fatalf("second step: %v, start %s not after %s", errs[0], starts2[0], starts[0])
	}

	// Shard 2 stops (no heartbeat, no arrival): the others' wait ends
	// after the timeout, naming it.
	bs[2].Close(ctx, true) // stops its heartbeat; not all done, rows stay
	bs2 := []*Barrier{open("r2", 0, 2, time.Second), open("r2", 1, 2, time.Second)}
	bs2[1].hbStopNow()
	t0 := time.Now()
	_, err := bs2[0].Wait(ctx, "s1")
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "shard 1/2 (not seen for") || !strings.Contains(err.Error(), "step s1") {
		t.Fatalf("wait without shard 1: %v", err)
	}
	if d := time.Since(t0); d < time.Second || d > 4*time.Second {
		t.Fatalf("gave up after %s, want about the 1 s timeout", d)
	}

	// A shard that failed ends the others' wait at once.
	bs3 := []*Barrier{open("r3", 0, 2, time.Minute), open("r3", 1, 2, time.Minute)}
	if err := bs3[1].Close(ctx, false); err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	_, err = bs3[0].Wait(ctx, "s1")
	var fe *FailedError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "shard 1/2 failed before step s1") || time.Since(t0) > 5*time.Second {
		t.Fatalf("wait with shard 1 failed: %v after %s", err, time.Since(t0))
	}
	bs3[0].Close(ctx, false)

	// A restarted shard 1 cannot rejoin run r4 while shard 0 is alive.
	r4 := []*Barrier{open("r4", 0, 2, time.Minute), open("r4", 1, 2, time.Minute)}
	r4[1].hbStopNow()
	if _, err := Open(ctx, db, Postgres, "r4", Spec{1, 2}, time.Minute); err == nil || !strings.Contains(err.Error(), "cannot join run") {
		t.Fatalf("rejoin: %v", err)
	}
	r4[0].Close(ctx, false)

	// Run r5 once, then again with the same id after its shards
	// failed: the earlier run's arrivals, start times and failures do not
	// count.
	const timeout = time.Second
	old := []*Barrier{open("r5", 0, 3, timeout), open("r5", 1, 3, timeout), open("r5", 2, 3, timeout)}
	oldStarts, errs, _ := waitAll(old, "s1", 0)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("old run, shard %d: %v", i, err)
		}
	}
	for _, b := range old {
		b.Close(ctx, false)
	}
	time.Sleep(timeout + 200*time.Millisecond)
	again := []*Barrier{open("r5", 0, 3, timeout), open("r5", 1, 3, timeout)}
	_, err = again[0].Wait(ctx, "s1")
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "shard 2/3") {
		t.Fatalf("a new run without shard 2 passed or failed otherwise on the earlier run's rows: %v", err)
	}
	again = append(again, open("r5", 2, 3, timeout))
	newStarts, errs, _ := waitAll(again, "s1", 0)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("new run, shard %d: %v", i, err)
		}
	}
	if !newStarts[0].After(oldStarts[0].Add(time.Second)) {
		t.Fatalf("the new run reused the earlier run's start %s", oldStarts[0])
	}
	// Passing the last barrier, the last shard to close deletes the rows.
	for _, b := range again {
		if err := b.Close(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM rumbench_shard.barrier WHERE run_id = 'r5'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("run r5 left %d rows (%v)", n, err)
	}
	for _, b := range bs[:2] {
		b.Close(ctx, false)
	}
}

// hbStopNow stops the heartbeat as a killed process's would.
func (b *Barrier) hbStopNow() {
	b.once.Do(func() {
		close(b.hbStop)
		<-b.hbDone
	})
}

// TestBarrierRestartAfterFailure restarts a failed run within the timeout
// (the old heartbeats still fresh): the failed processes' arrivals must not
// count, so a restarted shard 0 alone waits at a step the old shard 1
// reached, and passes it only with the new shard 1.
func TestBarrierRestartAfterFailure(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	const run, timeout = "restart-after-failure", time.Minute
	db.Exec("DELETE FROM rumbench_shard.barrier WHERE run_id = $1", run)
	t.Cleanup(func() { db.Exec("DELETE FROM rumbench_shard.barrier WHERE run_id = $1", run) })
	open := func(i int) *Barrier {
		t.Helper()
		b, err := Open(ctx, db, Postgres, run, Spec{i, 2}, timeout)
		if err != nil {
			t.Fatalf("open shard %d: %v", i, err)
		}
		return b
	}
	both := func(bs [2]*Barrier, step string) {
		t.Helper()
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, b := range bs {
			wg.Add(1)
			go func() { defer wg.Done(); _, errs[i] = b.Wait(ctx, step) }()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("step %s, shard %d: %v", step, i, err)
			}
		}
	}
	old := [2]*Barrier{open(0), open(1)}
	both(old, "s1")
	// Shard 1 reaches s2 and fails there; shard 0 fails too.
	if err := old[1].upsert(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	old[1].Close(ctx, false)
	old[0].Close(ctx, false)

	// Shard 0 restarted at once, alone: the old shard 1's arrivals at s1
	// and s2 (its heartbeat a moment old) must not let it pass.
	new0 := open(0)
	for _, step := range []string{"s1", "s2"} {
		wctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		_, err := new0.Wait(wctx, step)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("restarted shard 0 alone at %s: got %v, want it to wait for a live shard 1", step, err)
		}
	}
	// Open cleared the failed processes' arrivals.
	var n int
	if err := db.QueryRow("SELECT count(*) FROM rumbench_shard.barrier WHERE run_id = $1 AND token = $2 AND step LIKE 's%'", run, old[1].token).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the failed shard 1's arrivals: %d rows left (%v)", n, err)
	}
	// With the restarted shard 1 the run goes on, and ends clean.
	run2 := [2]*Barrier{new0, open(1)}
	both(run2, "s1")
	both(run2, "s2")
	for _, b := range run2 {
		if err := b.Close(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.QueryRow("SELECT count(*) FROM rumbench_shard.barrier WHERE run_id = $1", run).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the run left %d rows (%v)", n, err)
	}
}
