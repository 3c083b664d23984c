package ibench

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// boundDB records the lower bound and result of every DeleteOldest, per
// table, on a real engine.
type boundDB struct {
	model.DB
	mu    sync.Mutex
	calls map[string][]boundCall
	// failDeletes makes DeleteOldest fail (the engine is not called).
	failDeletes bool
}

type boundCall struct {
	from    int64
	hasFrom bool
	got     int
}

func (d *boundDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &boundConn{Conn: c, d: d}, nil
}

type boundConn struct {
	model.Conn
	d *boundDB
}

var errInjected = errors.New("injected delete failure")

func (c *boundConn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if c.d.failDeletes {
		return 0, errInjected
	}
	got, err := c.Conn.DeleteOldest(ctx, t, from, n)
	call := boundCall{got: got, hasFrom: len(from) == 1}
	if call.hasFrom {
		call.from = from[0].Int
	}
	c.d.mu.Lock()
	c.d.calls[t.Name] = append(c.d.calls[t.Name], call)
	c.d.mu.Unlock()
	return got, err
}

// TestDeleteBound: the deleters of l.i1 and of a query step delete from the
// client's bound M, which starts at the table's smallest PK (resynced at the
// step's start, here after rows were deleted behind the workload's back) and
// advances by the rows each delete removed.
func TestDeleteBound(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			b, err := New(Config{Clients: 2, Rows: 3000, ChurnRows: 2000, Indexes: 1, PadMin: 10, PadMax: 20, PadRandomPct: 50,
				QuerySeconds: 1, Seed: 7, Steps: []string{StepLoad}})
			if err != nil {
				t.Fatal(err)
			}
			db := &boundDB{DB: openEngine(t, name), calls: map[string][]boundCall{}}
			ctx := context.Background()
			if err := b.Prepare(ctx, db); err != nil {
				t.Fatal(err)
			}
			runStep(t, db, b, StepLoad)
			runStep(t, db, b, StepIndex)
			// Delete the 100 oldest rows of pi1 outside the workload: its M
			// (1) is stale until the next step resyncs it.
			c, err := db.DB.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := c.DeleteOldest(ctx, b.tables[0].schema, nil, 100); err != nil || n != 100 {
				t.Fatalf("delete 100 rows: %d, %v", n, err)
			}
			c.Close()
			// l.i1 starts from the resynced bound; qp100 from where l.i1 left it.
			start := []int64{101, 1}
			for _, step := range []string{StepChurnBig, StepQP100} {
				db.calls = map[string][]boundCall{}
				runStep(t, db, b, step)
				for i, ts := range b.tables {
					calls := db.calls[ts.schema.Name]
					if len(calls) == 0 {
						t.Fatalf("%s %s: no deletes", step, ts.schema.Name)
					}
					want := start[i]
					for k, call := range calls {
						if !call.hasFrom || call.from != want {
							t.Fatalf("%s %s: delete %d from %v (bound given: %v), want from %d", step, ts.schema.Name, k, call.from, call.hasFrom, want)
						}
						want += int64(call.got)
					}
					if got := ts.minPK.Load(); got != want {
						t.Errorf("%s %s: M = %d after the step, want %d", step, ts.schema.Name, got, want)
					}
					// M is the smallest live PK.
					lo, _, ok, err := pkBounds(ctx, mustConn(t, db.DB), ts.schema)
					if err != nil || !ok || lo != want {
						t.Errorf("%s %s: min PK %d (%v, %v), M %d", step, ts.schema.Name, lo, ok, err, want)
					}
					start[i] = want
				}
			}
		})
	}
}

func mustConn(t *testing.T, db model.DB) model.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestChurnDeleterFailureEndsStep: a deleter that fails ends l.i1 with its
// error, although the inserter is waiting for it to catch up.
func TestChurnDeleterFailureEndsStep(t *testing.T) {
	b, err := New(Config{Clients: 2, Rows: 1000, ChurnRows: 20000, Indexes: 0, PadMin: 10, PadMax: 20, PadRandomPct: 50,
		Seed: 7, Steps: []string{StepLoad}})
	if err != nil {
		t.Fatal(err)
	}
	db := &boundDB{DB: openEngine(t, "null"), calls: map[string][]boundCall{}}
	if err := b.Prepare(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	runStep(t, db, b, StepLoad)
	db.failDeletes = true
	clock := measure.NewClock(500*time.Millisecond, ops)
	env := &workload.Env{DB: db, Clock: clock, Details: map[string]any{}, Logf: t.Logf}
	clock.Start()
	done := make(chan error, 1)
	go func() { done <- stepFuncs[StepChurnBig](b)(context.Background(), env) }()
	select {
	case err := <-done:
		clock.Stop()
		if !errors.Is(err, errInjected) || !strings.Contains(err.Error(), "delete from pi") {
			t.Fatalf("l.i1 with failing deletes returned %v, want the delete error", err)
		}
	case <-time.After(60 * time.Second):
		// Not a timing assertion: without the fix the step never returns.
		t.Fatal("l.i1 did not end after its deleter failed (the inserter waits for it forever)")
	}
}
