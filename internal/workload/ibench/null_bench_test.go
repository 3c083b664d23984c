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

// BenchmarkClientCeiling measures one client's insert path on the null
// engine (generate, hand to the engine, record latency): b.N rows, so
// ns/op is client cost per row and allocs/op is allocations per row.
func BenchmarkClientCeiling(b *testing.B) {
	ctx := context.Background()
	db, err := engine.Open(ctx, "null", model.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	bench, err := New(Config{Clients: 1, Rows: 1, Indexes: 0, PadMin: 10, PadMax: 20, PadRandomPct: 50, Seed: 1, Steps: []string{StepLoad}})
	if err != nil {
		b.Fatal(err)
	}
	t := bench.tables[0]
	if err := db.CreateTable(ctx, t.schema); err != nil {
		b.Fatal(err)
	}
	clock := measure.NewClock(time.Second, ops)
	rec := clock.Recorder()
	clock.Start()
	defer clock.Stop()
	b.ReportAllocs()
	b.ResetTimer()
	if err := bench.insertRows(ctx, db, rec, bench.clients[0], int64(b.N), nil, loadBatch, nil); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
