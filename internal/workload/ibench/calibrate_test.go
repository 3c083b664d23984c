package ibench

import (
	"context"
	"testing"
	"time"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/null"
	"rumbench/internal/measure"
	"rumbench/internal/model"
)

// TestClientPath: every write and query step has a client path that does
// at least the units asked, records them under the step's main operation
// (and the churn steps' deletes), and leaves the run's own table state
// alone; steps without a per-operation client path say so.
func TestClientPath(t *testing.T) {
	ctx := context.Background()
	b, err := New(Config{Clients: 1, Rows: 1000, ChurnRows: 100, Indexes: 3, PadMin: 10, PadMax: 20, PadRandomPct: 50, QuerySeconds: 1, Seed: 1, Steps: []string{StepLoad}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		step       string
		op         measure.Op
		wantOps    int64 // operations recorded for 250 units
		wantDelete bool
	}{
		{StepLoad, opInsert, 3, false},       // 100-row batches
		{StepChurnBig, opInsert, 5, true},    // 50-row batches
		{StepChurnSmall, opInsert, 50, true}, // 5-row batches
		{StepQR100, opQuery, 250, false},
		{StepQP1000, opQuery, 250, false},
	} {
		run, ok := b.ClientPath(tc.step)
		if !ok {
			t.Fatalf("%s: no client path", tc.step)
		}
		db, err := engine.Open(ctx, "null", model.Config{DataDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		clock := measure.NewClock(time.Hour, ops)
		rec := clock.Recorder()
		clock.Start()
		n, err := run(ctx, db, rec, 250)
		clock.Stop()
		db.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.step, err)
		}
		if n < 250 {
			t.Errorf("%s: %d units done, asked 250", tc.step, n)
		}
		if got := clock.Total(tc.op); got == nil || got.Ops != tc.wantOps {
			t.Errorf("%s: recorded %+v operations, want %d", tc.step, got, tc.wantOps)
		}
		if del := clock.Total(opDelete); (del != nil) != tc.wantDelete {
			t.Errorf("%s: deletes recorded: %v, want %v", tc.step, del != nil, tc.wantDelete)
		}
	}
	if next := b.tables[0].nextPK.Load(); next != 1 {
		t.Errorf("the run's table state moved: nextPK %d", next)
	}
	for _, s := range []string{StepIndex, StepMaintain, StepScan} {
		if _, ok := b.ClientPath(s); ok {
			t.Errorf("%s has a client path", s)
		}
	}
}
