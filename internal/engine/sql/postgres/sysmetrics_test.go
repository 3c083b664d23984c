package postgres

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"rumbench/internal/enginetest"
	"rumbench/internal/results"
	"rumbench/internal/sysmetrics"
)

// procTicks reads utime+stime (own) and cutime+cstime (reaped children) of
// /proc/PID/stat, in USER_HZ ticks.
func procTicks(t *testing.T, pid int) (own, reaped uint64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("read the stat of %d: %v", pid, err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	n := func(i int) uint64 { // field number i of stat(5)
		v, err := strconv.ParseUint(f[i-3], 10, 64)
		if err != nil {
			t.Fatalf("stat of %d field %d: %v", pid, i, err)
		}
		return v
	}
	return n(14) + n(15), n(16) + n(17)
}

// treeTicks is the kernel's CPU count of pid's tree in ticks: its own and
// its reaped children's (cutime+cstime) plus its live children's own, as
// listed in /proc/PID/task/*/children. Other tests' backends of the shared
// server come and go during the step; counted this way, a backend that
// exits moves its CPU from the live sum to the parent's cutime, and its CPU
// from before the step is not counted as the step's.
func treeTicks(t *testing.T, pid int) uint64 {
	t.Helper()
	own, reaped := procTicks(t, pid)
	total := own + reaped
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			c, _ := strconv.Atoi(f)
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c)); err == nil {
				st := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
				u, _ := strconv.ParseUint(st[14-3], 10, 64)
				s, _ := strconv.ParseUint(st[15-3], 10, 64)
				total += u + s
			}
		}
	}
	return total
}

// A step of a few tenths of a second in which a parallel CREATE INDEX runs:
// its workers live less than the sampler's refresh period (1 s) and exit
// before the step ends, so the postmaster reaps them. The step's server CPU
// must hold at least the leader backend's CPU plus what the postmaster's
// cutime+cstime gained (the workers'): the kernel's own accounting, read
// here apart from the sampler. On 57caf54 the workers' CPU was lost
// (issue 44 rows 1-2: l.x's server CPU 5.46 s against perf's 9.12 s).
func TestShortStepCountsParallelWorkers(t *testing.T) {
	tg := target(t, "sysm_parallel")
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pm, _, err := db.(*DB).ServerProcess(ctx)
	if err != nil {
		t.Skipf("the postmaster cannot be read here: %v", err)
	}
	conn, err := db.(*DB).SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"CREATE TABLE par (a bigint, b text)",
		"INSERT INTO par SELECT g, md5(g::text) FROM generate_series(1, 400000) g",
		"ALTER TABLE par SET (parallel_workers = 2)",
		"VACUUM ANALYZE par",
		"SET max_parallel_maintenance_workers = 2",
		"SET maintenance_work_mem = '256MB'",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var backend int
	if err := conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}

	s := sysmetrics.New(ctx, db, t.TempDir(), nil)
	_, pmReaped0 := procTicks(t, pm)
	beOwn0, _ := procTicks(t, backend)
	tree0 := treeTicks(t, pm)
	s.StepStart("l.x", results.StepDesc{MainOp: "index"})
	t0 := time.Now()
	if _, err := conn.ExecContext(ctx, "CREATE INDEX par_b ON par (b)"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	s.StepStop(nil, 0)
	tree1 := treeTicks(t, pm)
	_, pmReaped1 := procTicks(t, pm)
	beOwn1, _ := procTicks(t, backend)
	sum := &results.Step{Step: "l.x", StepDesc: results.StepDesc{MainOp: "index"}, Ops: map[string]*results.OpSummary{}, EngineSize: -1}
	s.StepEnd(sum, nil)
	m := sum.Metrics

	workers := pmReaped1 - pmReaped0
	if workers == 0 {
		t.Skipf("no parallel worker's CPU reached the postmaster in %v (the server ran the build without workers)", took)
	}
	const tick = 10_000 // µs
	truth := (tree1 - tree0) * tick
	if m.CPUUs == nil {
		t.Fatalf("server cpu_us null: %v", m.NullReasons["cpu_us"])
	}
	t.Logf("step %v: cpu_us %d; the kernel's count of the tree %d ms, of which the leader %d ms and what the postmaster reaped (the workers, and other tests' backends) %d ms",
		took.Round(time.Millisecond), *m.CPUUs, (tree1-tree0)*10, (beOwn1-beOwn0)*10, workers*10)
	// Each member's counter ticks in 10 ms: allow two ticks for the
	// postmaster, the leader and each worker.
	if got := uint64(*m.CPUUs); got+8*tick < truth {
		t.Errorf("server cpu_us %d µs, want at least the kernel's %d µs for the tree (the workers' included)", got, truth)
	}
	if m.CPUUserUs == nil || m.CPUSysUs == nil || *m.CPUUserUs+*m.CPUSysUs != *m.CPUUs {
		t.Errorf("cpu_user_us %v + cpu_sys_us %v, want their sum to be cpu_us %d", m.CPUUserUs, m.CPUSysUs, *m.CPUUs)
	}
}
