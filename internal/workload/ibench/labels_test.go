package ibench

import (
	"bytes"
	"context"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"rumbench/internal/workload"
)

// TestQueryStepWorkersCarryLabels: while qr100 runs with 2 clients on 2
// tables, a goroutine profile finds its workers under the worker label:
// 2 query workers, 2 writers and 2 deleters, or more where the store
// started a goroutine from one's call (--profile and the floor benchmark
// split a step's CPU by it).
func TestQueryStepWorkersCarryLabels(t *testing.T) {
	b := newTestBench(t, 0, 1.5)
	db := openEngine(t, "pebble")
	if err := b.Prepare(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	runStep(t, db, b, StepLoad)
	got := make(chan map[string]int64, 1)
	go func() {
		// Well inside the step's 1.5 s: every worker has started.
		time.Sleep(700 * time.Millisecond)
		var buf bytes.Buffer
		if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
			t.Error(err)
			got <- nil
			return
		}
		p, err := profile.Parse(&buf)
		if err != nil {
			t.Error(err)
			got <- nil
			return
		}
		by := map[string]int64{}
		for _, s := range p.Sample {
			if v := s.Label[workload.WorkerLabel]; len(v) > 0 {
				by[v[0]] += s.Value[0]
			}
		}
		got <- by
	}()
	runStep(t, db, b, StepQR100)
	by := <-got
	if by[WorkerQuery] < 2 || by[workerWriter] < 2 || by[workerDeleter] < 2 || len(by) != 3 {
		t.Errorf("goroutines by worker label during qr100: %v; want query, writer and deleter, at least 2 each", by)
	}
}
