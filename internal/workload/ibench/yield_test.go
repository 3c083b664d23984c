package ibench

import (
	"context"
	"runtime"
	"testing"
	"time"

	"rumbench/internal/model"
)

// busyDB makes every query hold its thread for spin without a scheduling
// point, as an in-process engine's call does (a test double for the
// scheduling alone: the rows are the engine's beneath).
type busyDB struct {
	model.DB
	spin time.Duration
}

func (d *busyDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &busyConn{Conn: c, spin: d.spin}, nil
}

type busyConn struct {
	model.Conn
	spin time.Duration
}

func (c *busyConn) busy() {
	for end := time.Now().Add(c.spin); time.Now().Before(end); {
	}
}

func (c *busyConn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	c.busy()
	return c.Conn.Scan(ctx, t, spec, fn)
}

// TestQueryWorkersLetPacedWritersRun: on one thread, two closed-loop query
// workers of an in-process engine leave the paced writers on time: each
// query worker yields every QueryYield, so a writer starts within about
// that of its slot, not at the next preemption (up to 10 ms; the medians
// read 12–15 ms without the yield).
func TestQueryWorkersLetPacedWritersRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b := newTestBench(t, 0, 2)
	db := &busyDB{DB: openEngine(t, "null"), spin: 200 * time.Microsecond}
	if err := b.Prepare(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	runStep(t, db, b, StepLoad)
	s := runStep(t, db, b, StepQR1000)
	if s.Queries < 1000 {
		t.Fatalf("%d queries in 2 s of 200 µs each: the query workers did not run", s.Queries)
	}
	for _, op := range []string{"insert_response", "delete_response"} {
		l := s.Latency[op]
		t.Logf("%s: %+v", op, l)
		if l.Count == 0 || l.P50 > 2500 {
			t.Errorf("%s: median %d µs over %d transactions; want well under a preemption slice (10 ms)", op, l.P50, l.Count)
		}
	}
}
