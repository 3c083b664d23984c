package counterpoll

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/model"
)

// benchTick measures one per-interval read of a real engine's counters:
// the process's CPU per read (cpu-µs/read) beside the wall time.
func benchTick(b *testing.B, db model.DB) {
	p := New(db, time.Second)
	if p == nil {
		b.Fatalf("%s: no per-interval counters", db.Info().Name)
	}
	ctx := context.Background()
	p.Start(ctx)
	var r0, r1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &r0)
	b.ResetTimer()
	for b.Loop() {
		p.Tick(ctx)
	}
	b.StopTimer()
	unix.Getrusage(unix.RUSAGE_SELF, &r1)
	cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/read")
	if p.Off() != "" {
		b.Fatal(p.Off())
	}
}

// BenchmarkTickEmbedded: go test -bench Tick ./internal/counterpoll
func BenchmarkTickEmbedded(b *testing.B) {
	for _, name := range []string{"pebble", "rocksdb", "wiredtiger", "sqlite", "bbolt"} {
		b.Run(name, func(b *testing.B) {
			db, err := engine.Open(context.Background(), name, model.Config{DataDir: b.TempDir()})
			if err != nil {
				b.Skipf("%s: %v (a build without it?)", name, err)
			}
			defer db.Close()
			benchTick(b, db)
		})
	}
}

// BenchmarkTickPostgres reads the local server's counters (set
// RUMBENCH_BENCH_PG=1; it creates and drops the database
// rumbench_bench_counterpoll) over one connection, and reports the
// backend's CPU per read too (server-µs/read, from /proc: 10 ms ticks, so
// run a few thousand reads).
func BenchmarkTickPostgres(b *testing.B) {
	if os.Getenv("RUMBENCH_BENCH_PG") == "" {
		b.Skip("RUMBENCH_BENCH_PG not set")
	}
	ctx := context.Background()
	db, err := engine.Open(ctx, "postgres", model.Config{Database: "rumbench_bench_counterpoll", Options: map[string]string{"drop_database": "true"}})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	pool := db.(interface{ SQL() *sql.DB }).SQL()
	pool.SetMaxOpenConns(1)
	var pid int
	if err := pool.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	s0 := procCPUTicks(b, pid)
	benchTick(b, db)
	if s1 := procCPUTicks(b, pid); b.N > 0 {
		b.ReportMetric(float64(s1-s0)*1e6/100/float64(b.N), "server-µs/read")
	}
}

// procCPUTicks is a process's utime + stime in clock ticks (100 a second).
func procCPUTicks(b *testing.B, pid int) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}
