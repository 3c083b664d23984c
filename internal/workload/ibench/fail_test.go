package ibench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// failDB makes one kind of operation fail on a real engine (a test double
// for the failure only: everything else reaches the engine).
type failDB struct {
	model.DB
	fail string // "insert", "delete", "get" or "index-scan"
}

func (d *failDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &failConn{Conn: c, fail: d.fail}, nil
}

type failConn struct {
	model.Conn
	fail string
}

var errWorker = errors.New("injected worker failure")

func (c *failConn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if c.fail == "insert" {
		return errWorker
	}
	return c.Conn.Insert(ctx, t, rows)
}

func (c *failConn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if c.fail == "delete" {
		return 0, errWorker
	}
	return c.Conn.DeleteOldest(ctx, t, from, n)
}

func (c *failConn) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	if c.fail == "get" {
		return 0, errWorker
	}
	return c.Conn.Get(ctx, t, keys, fn)
}

// Scan fails on secondary indexes only: the steps read the PK bounds
// through the primary key before their workers start.
func (c *failConn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if c.fail == "index-scan" && spec.Index >= 0 {
		return 0, errWorker
	}
	return c.Conn.Scan(ctx, t, spec, fn)
}

// TestWorkerErrorEndsStep: in every step, the failure of any one worker
// (inserter, deleter, query worker) ends the step with that error within 5
// s, although the step's other workers have work left (query steps: 30 s of
// it). The step never hangs waiting for the failed worker.
func TestWorkerErrorEndsStep(t *testing.T) {
	cases := []struct {
		step, fail string
	}{
		{StepLoad, "insert"},
		{StepChurnBig, "insert"},
		{StepChurnBig, "delete"},
		{StepChurnSmall, "delete"},
		{StepQR100, "insert"},
		{StepQR100, "delete"},
		{StepQR100, "index-scan"},
		{StepQP1000, "get"},
		{StepQP1000, "delete"},
	}
	for _, c := range cases {
		t.Run(c.step+"/"+c.fail, func(t *testing.T) {
			b, err := New(Config{Clients: 2, Rows: 2000, ChurnRows: 1_000_000, Indexes: 1, PadMin: 10, PadMax: 20, PadRandomPct: 50,
				QuerySeconds: 30, Seed: 7, Steps: []string{StepLoad}})
			if err != nil {
				t.Fatal(err)
			}
			eng := openEngine(t, "pebble")
			if err := b.Prepare(context.Background(), eng); err != nil {
				t.Fatal(err)
			}
			if c.step != StepLoad {
				runStep(t, eng, b, StepLoad)
				runStep(t, eng, b, StepIndex)
			} else {
				b.cfg.Rows = 1_000_000
			}
			db := &failDB{DB: eng, fail: c.fail}
			clock := measure.NewClock(500*time.Millisecond, ops)
			env := &workload.Env{DB: db, Clock: clock, Details: map[string]any{}, Logf: t.Logf}
			clock.Start()
			defer clock.Stop()
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- stepFuncs[c.step](b)(context.Background(), env) }()
			select {
			case err := <-done:
				if !errors.Is(err, errWorker) {
					t.Fatalf("%s with failing %s returned %v, want the injected error", c.step, c.fail, err)
				}
				if strings.Count(err.Error(), errWorker.Error()) != 1 {
					t.Errorf("error %q repeats the cause", err)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Fatalf("%s ended %.1fs after its %s worker failed, want within 5 s", c.step, d.Seconds(), c.fail)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("%s did not end after its %s worker failed", c.step, c.fail)
			}
		})
	}
}
