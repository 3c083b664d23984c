package ibench

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rumbench/internal/model"
)

// lagDB wraps a real engine's connections to watch l.i1's handoff: per
// table, rows inserted and deleted, and the largest lag (inserted less
// deleted, committed statements) any insert started at. Its connections
// say they block in the kernel when kernel is set, so the step's workers
// wait for each other in a futex (internal/handoff) as they do on a server
// engine's blocking connections; deletes are slowed so the inserters run
// up against their bound.
type lagDB struct {
	model.DB
	kernel   bool
	delDelay time.Duration
	mu       sync.Mutex
	lag      map[string]*tableLag
}

type tableLag struct {
	inserted, deleted atomic.Int64
	maxLag            atomic.Int64 // at the start of an insert
}

func (d *lagDB) table(name string) *tableLag {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lag[name] == nil {
		d.lag[name] = &tableLag{}
	}
	return d.lag[name]
}

func (d *lagDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &lagConn{Conn: c, d: d}, nil
}

type lagConn struct {
	model.Conn
	d *lagDB
}

func (c *lagConn) BlocksInKernel() bool { return c.d.kernel }

func (c *lagConn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	tl := c.d.table(t.Name)
	lag := tl.inserted.Load() - tl.deleted.Load()
	for {
		m := tl.maxLag.Load()
		if lag <= m || tl.maxLag.CompareAndSwap(m, lag) {
			break
		}
	}
	err := c.Conn.Insert(ctx, t, rows)
	if err == nil {
		tl.inserted.Add(int64(len(rows)))
	}
	return err
}

func (c *lagConn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	time.Sleep(c.d.delDelay)
	got, err := c.Conn.DeleteOldest(ctx, t, from, n)
	c.d.table(t.Name).deleted.Add(int64(got))
	return got, err
}

// TestChurnHandoffBoundsLag: in l.i1 each inserter runs at most its bound
// (churnLag) ahead of its table's deleter, and reaches it when the deleter
// is the slower; at the end the deleter has deleted exactly what was
// inserted, so every table has the rows it had before the step. With the
// workers waiting for each other in the kernel and parked, one client per
// table and two sharing one.
func TestChurnHandoffBoundsLag(t *testing.T) {
	for _, kernel := range []bool{true, false} {
		for _, tables := range []int{0, 1} {
			name := map[bool]string{true: "kernel", false: "parked"}[kernel] + map[int]string{0: "/table-per-client", 1: "/shared-table"}[tables]
			t.Run(name, func(t *testing.T) {
				const clients, rows, churn = 2, 2000, 10000
				b, err := New(Config{Clients: clients, Tables: tables, Rows: rows, ChurnRows: churn, Indexes: 1, PadMin: 10, PadMax: 20,
					PadRandomPct: 50, Seed: 7, Steps: []string{StepLoad}})
				if err != nil {
					t.Fatal(err)
				}
				db := &lagDB{DB: openEngine(t, "pebble"), kernel: kernel, delDelay: 200 * time.Microsecond, lag: map[string]*tableLag{}}
				ctx := context.Background()
				if err := b.Prepare(ctx, db); err != nil {
					t.Fatal(err)
				}
				runStep(t, db, b, StepLoad)
				runStep(t, db, b, StepIndex)
				before := map[string]int64{}
				for i, ts := range b.tables {
					before[ts.schema.Name] = countRows(t, db.DB, b, i)
				}
				db.lag = map[string]*tableLag{}
				runStep(t, db, b, StepChurnBig)
				bs := int64(churnBigBatch)
				perTable := int64(clients / len(b.tables))
				bound := churnLag(int(bs)) * perTable
				for i, ts := range b.tables {
					tl := db.table(ts.schema.Name)
					want := b.ChurnRows(StepChurnBig) * perTable
					if got := tl.inserted.Load(); got != want {
						t.Errorf("%s: %d rows inserted, want %d", ts.schema.Name, got, want)
					}
					if got := tl.deleted.Load(); got != tl.inserted.Load() {
						t.Errorf("%s: %d rows deleted, %d inserted", ts.schema.Name, got, tl.inserted.Load())
					}
					if got := countRows(t, db.DB, b, i); got != before[ts.schema.Name] {
						t.Errorf("%s: %d rows after l.i1, %d before", ts.schema.Name, got, before[ts.schema.Name])
					}
					// An inserter starts a batch only within its bound; the
					// others' batches may be in flight beside it.
					maxLag := tl.maxLag.Load()
					if maxLag > bound+(perTable-1)*bs {
						t.Errorf("%s: an insert started %d rows ahead of the deleter, bound %d", ts.schema.Name, maxLag, bound)
					}
					if maxLag < bound-bs*perTable {
						t.Errorf("%s: the inserters ran at most %d rows ahead with deletes slowed, never near their bound %d", ts.schema.Name, maxLag, bound)
					}
				}
			})
		}
	}
}
