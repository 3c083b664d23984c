package mongo

import (
	"context"
	"syscall"
	"testing"

	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"
)

// BenchmarkClient measures the client's side of the insert benchmark's
// operations against the test server (Insert100 last: it grows the
// table the queries scan): allocations and the test process's
// CPU (user+sys, getrusage) per operation. FerretDB runs in a process of
// its own, so the CPU is the client's alone. The table is small because
// FerretDB 1.x evaluates every query by scanning the collection in Go
// (TestCoveredRangeQueries): the server's time does not matter here, the
// client's does.
//
//	go test -run '^$' -bench Client -benchmem ./internal/engine/mongo
//
// Each runs with both values of client_io; the context is cancellable, as
// a worker's is.
func BenchmarkClient(b *testing.B) {
	for _, io := range []string{"blocking", "netpoller"} {
		b.Run("io="+io, func(b *testing.B) { benchClient(b, io) })
	}
}

func benchClient(b *testing.B, io string) {
	tg := target(b, "rumbench_bench_mongo")
	tg.Options = map[string]string{blockconn.OptionKey: io}
	db := enginetest.OpenServer(b, tg)
	defer db.Close()
	if got := db.Info().Settings[blockconn.OptionKey]; got != io {
		b.Fatalf("setting %s = %q, want %q", blockconn.OptionKey, got, io)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tbl := ibench.Table("pi1", ibench.MaxIndexes, 20)
	if err := db.CreateTable(ctx, tbl); err != nil {
		b.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		b.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	next := int64(1)
	rows := make([]model.Row, 100)
	vals := make([]model.Value, 7*len(rows))
	data := []byte("xxxxxxxxxxxxxxx")
	fill := func() {
		for i := range rows {
			g := next
			next++
			r := vals[7*i : 7*i+7 : 7*i+7]
			r[0].Int, r[1].Int, r[2].Int, r[3].Int, r[4].Int, r[5].Int = g, 1700000000+g/100, g%1000, g%10000, g%100000, g%500
			r[6].Bytes = data
			rows[i] = r
		}
	}
	for range 2 { // 200 rows to query
		fill()
		if err := conn.Insert(ctx, tbl, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Scan10", func(b *testing.B) {
		lower := make(model.Row, 1)
		n := 0
		fn := func(model.Row) bool { n++; return true }
		b.ReportAllocs()
		cpu := cpuClock(b)
		i := 0
		for b.Loop() {
			spec := model.ScanSpec{Index: i % len(tbl.Indexes), Lower: lower, Limit: 10}
			lower[0].Int = int64(i % 50)
			i++
			n = 0
			if _, err := conn.Scan(ctx, tbl, spec, fn); err != nil {
				b.Fatal(err)
			}
			if n != 10 {
				b.Fatalf("scan read %d rows, want 10", n)
			}
		}
		cpu(b)
	})
	b.Run("Get10", func(b *testing.B) {
		keys := make([]model.Row, 10)
		kv := make([]model.Value, len(keys))
		for i := range keys {
			keys[i] = kv[i : i+1 : i+1]
		}
		n := 0
		fn := func(model.Row) { n++ }
		b.ReportAllocs()
		cpu := cpuClock(b)
		i := int64(0)
		for b.Loop() {
			for j := range kv {
				kv[j].Int = 1 + (i*7+int64(j)*13)%200
			}
			i++
			n = 0
			if _, err := conn.Get(ctx, tbl, keys, fn); err != nil {
				b.Fatal(err)
			}
			if n != 10 {
				b.Fatalf("get found %d rows, want 10", n)
			}
		}
		cpu(b)
	})
	b.Run("Insert100", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuClock(b)
		for b.Loop() {
			fill()
			if err := conn.Insert(ctx, tbl, rows); err != nil {
				b.Fatal(err)
			}
		}
		cpu(b)
	})
}

// cpuClock starts counting the process's CPU; the function it returns
// reports it per operation as cpu-us/op.
func cpuClock(b *testing.B) func(*testing.B) {
	start := rusageMicros(b)
	return func(b *testing.B) {
		if b.N > 0 {
			b.ReportMetric(float64(rusageMicros(b)-start)/float64(b.N), "cpu-us/op")
		}
	}
}

func rusageMicros(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano()/1000 + ru.Stime.Nano()/1000
}
