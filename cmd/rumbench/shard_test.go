package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"

	"rumbench/internal/engine/dbserver"
	"rumbench/internal/engine/sql/postgres"
	"rumbench/internal/enginetest"
	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/testdb"
)

// The sharded-run tests use the PostgreSQL at $RUMBENCH_PG_DSN (default:
// the local server), each in databases of its own that it drops. They skip
// when it is unreachable, unless CI or RUMBENCH_REQUIRE_SERVERS is set.

func pgDSN() string { return dbserver.DSN("", postgres.EnvDSN, postgres.DefaultDSN) }

// pgAdmin connects to the server for the tests' own queries.
func pgAdmin(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, pgDSN())
	if err != nil {
		if enginetest.RequireServers() {
			t.Fatalf("postgres unreachable: %v", err)
		}
		t.Skipf("postgres unreachable (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// freshDB drops database name, made with testdb.Name, now and when the
// test ends, pass or fail.
func freshDB(t *testing.T, admin *pgx.Conn, name string) {
	t.Helper()
	if !testdb.Owned(name) {
		t.Fatalf("database %s has no per-process suffix: name it with testdb.Name", name)
	}
	registerTestDB("postgres", name)
	drop := func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	}
	drop()
	t.Cleanup(drop)
}

// shardArgs are a small insert benchmark run: 6 clients (two or three per
// shard), every count-bounded step, the maintenance and one short query
// step.
func shardArgs(database, out string, extra ...string) []string {
	args := []string{"run", "--engine", "postgres", "--dsn", pgDSN(), "--database", database,
		"--clients", "6", "--rows", "1500", "--churn-rows", "500", "--indexes", "1",
		"--query-seconds", "1.5", "--steps", "l.i0,l.x,l.i1,l.i2,maint,qp100",
		"--interval", "250ms", "--out", out}
	return append(args, extra...)
}

// runShards runs n shards of a run as separate processes at once and
// returns their --out directories.
func runShards(t *testing.T, n int, database, dir string, extra ...string) []string {
	t.Helper()
	var wg sync.WaitGroup
	outs := make([]string, n)
	errs := make([]string, n)
	for i := 0; i < n; i++ {
		outs[i] = filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := shardArgs(database, outs[i], append([]string{"--shard", fmt.Sprintf("%d/%d", i, n), "--shard-timeout", "30s"}, extra...)...)
			cmd := exec.Command(binary, args...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[i] = fmt.Sprintf("shard %d/%d: %v\n%s", i, n, err, out)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	return outs
}

// tableState is what a table holds: rows, PK range, and a digest of every
// column but the insert time (a pure function of seed, table and PK).
type tableState struct {
	rows, lo, hi int64
}

func readTables(t *testing.T, admin *pgx.Conn, database string, n int) []tableState {
	t.Helper()
	c := connectTo(t, admin, database)
	defer c.Close(context.Background())
	var out []tableState
	for i := 1; i <= n; i++ {
		var s tableState
		if err := c.QueryRow(context.Background(), fmt.Sprintf("SELECT count(*), min(transactionid), max(transactionid) FROM pi%d", i)).Scan(&s.rows, &s.lo, &s.hi); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// connectTo connects to database on admin's server.
func connectTo(t *testing.T, admin *pgx.Conn, database string) *pgx.Conn {
	t.Helper()
	cfg := admin.Config().Copy()
	cfg.Database = database
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// digest is a hash of table i's rows with PKs in [lo, hi], every column but
// the insert time.
func digest(t *testing.T, admin *pgx.Conn, database string, i int, lo, hi int64) string {
	t.Helper()
	c := connectTo(t, admin, database)
	defer c.Close(context.Background())
	var d string
	q := fmt.Sprintf(`SELECT count(*)::text || ':' || md5(string_agg(concat_ws(',', transactionid, cashregisterid, productid, customerid, price, encode(data, 'hex')), ';' ORDER BY transactionid))
		FROM pi%d WHERE transactionid BETWEEN $1 AND $2`, i)
	if err := c.QueryRow(context.Background(), q, lo, hi).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

func readBundle(t *testing.T, dir string) *results.Bundle {
	t.Helper()
	b, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mergedLatency merges the step's measured interval histograms of op over
// the shard bundles, independently of rumbench merge.
func mergedLatency(t *testing.T, shards []*results.Bundle, step, op string) measure.Latency {
	t.Helper()
	h := measure.NewHistogram()
	for _, b := range shards {
		for _, iv := range b.Intervals {
			r, ok := iv.Ops[op]
			if iv.Step != step || iv.Warmup || !ok {
				continue
			}
			raw, err := base64.StdEncoding.DecodeString(r.Hist)
			if err != nil {
				t.Fatal(err)
			}
			x, err := hdr.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			h.Merge(x)
		}
	}
	return measure.Summarize(h)
}

// TestShardedRunMatchesOneProcess runs the same run as one process, as 2
// shards and as 3 shards (separate processes against the local
// PostgreSQL), merges each sharded run and checks that the merged bundle
// counts what the one process counted, that the tables hold the same rows,
// that its latencies are those of the shards' merged histograms, and that
// verify and report accept it.
func TestShardedRunMatchesOneProcess(t *testing.T) {
	t.Parallel()
	admin := pgAdmin(t)
	dir := t.TempDir()
	one := filepath.Join(dir, "one")
	oneDB := testdb.Name(t, "rb_shard_one")
	freshDB(t, admin, oneDB)
	if _, stderr, code := rb(t, shardArgs(oneDB, one)...); code != 0 {
		t.Fatalf("one process: exit %d: %s", code, stderr)
	}
	base := readBundle(t, filepath.Join(one, "postgres"))
	baseTables := readTables(t, admin, oneDB, 6)

	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			database := testdb.Name(t, fmt.Sprintf("rb_shard_%d", n))
			freshDB(t, admin, database)
			sdir := filepath.Join(dir, fmt.Sprint(n))
			outs := runShards(t, n, database, sdir)
			merged := filepath.Join(sdir, "merged")
			stdout, stderr, code := rb(t, append(append([]string{"merge"}, outs...), "--out", merged)...)
			if code != 0 {
				t.Fatalf("merge: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, fmt.Sprintf("%d shards", n)) {
				t.Fatalf("merge output %q does not say it merged %d shards", stdout, n)
			}
			// Every shard is needed.
			wantBadInput(t, []string{fmt.Sprintf("shard %d/%d", n-1, n), "missing"}, append(append([]string{"merge"}, outs[:n-1]...), "--out", filepath.Join(sdir, "partial"))...)
			m := readBundle(t, filepath.Join(merged, "postgres"))
			var shards []*results.Bundle
			for _, o := range outs {
				shards = append(shards, readBundle(t, filepath.Join(o, "postgres")))
			}

			// Where it came from.
			if m.Run.MergedFrom == nil || m.Run.MergedFrom.Count != n || len(m.Run.MergedFrom.Shards) != n {
				t.Fatalf("merged_from = %+v, want %d shards", m.Run.MergedFrom, n)
			}
			for i, s := range m.Run.MergedFrom.Shards {
				if s.Index != i || !s.Complete {
					t.Fatalf("merged_from.shards[%d] = %+v", i, s)
				}
			}
			if !m.Run.Complete || m.Run.Shard != nil {
				t.Fatalf("merged run: complete %v shard %+v", m.Run.Complete, m.Run.Shard)
			}

			// Count-bounded steps: exactly the one process's operations.
			for _, step := range []string{"l.i0", "l.x", "l.i1", "l.i2", "maint"} {
				want, got := base.Steps[step], m.Steps[step]
				if got == nil || !got.Complete {
					t.Fatalf("merged step %s missing or incomplete: %+v", step, got)
				}
				if len(got.Ops) != len(want.Ops) {
					t.Fatalf("step %s: merged ops %v, one process %v", step, keys(got.Ops), keys(want.Ops))
				}
				for op, w := range want.Ops {
					g := got.Ops[op]
					if g == nil || g.Count != w.Count || g.Rows != w.Rows || g.Errors != w.Errors {
						t.Fatalf("step %s op %s: merged %+v, one process %+v", step, op, g, w)
					}
				}
				if got.Work != want.Work {
					t.Fatalf("step %s: merged work %d, one process %d", step, got.Work, want.Work)
				}
			}

			// Every step that all shards ran: counts add up exactly, and
			// latencies are those of the merged histograms.
			for _, step := range []string{"l.i0", "l.i1", "l.i2", "qp100"} {
				got := m.Steps[step]
				for op, g := range got.Ops {
					var count, rows int64
					for _, s := range shards {
						if o := s.Steps[step].Ops[op]; o != nil {
							count += o.Count
							rows += o.Rows
						}
					}
					if g.Count != count || g.Rows != rows {
						t.Fatalf("step %s op %s: merged count %d rows %d, shards add to %d and %d", step, op, g.Count, g.Rows, count, rows)
					}
					want := mergedLatency(t, shards, step, op)
					if g.Latency.Count != want.Count || g.Latency.P50 != want.P50 || g.Latency.P99 != want.P99 || g.Latency.P999 != want.P999 || g.Latency.Max != want.Max {
						t.Fatalf("step %s op %s: merged latency %+v, merged histograms give %+v", step, op, g.Latency, want)
					}
				}
				// The shards' intervals started together.
				if spread, ok := got.Details["shard_start_spread_ms"].(float64); !ok || spread > 200 {
					t.Fatalf("step %s: shard_start_spread_ms = %v, want at most 200 ms", step, got.Details["shard_start_spread_ms"])
				}
			}
			// The query step: each shard's paced writers, all of them.
			q := m.Steps["qp100"]
			if q.IPSTarget == nil || *q.IPSTarget != 600 {
				t.Fatalf("qp100 ips_target = %v, want 600 (6 clients x 100 rows/s)", q.IPSTarget)
			}
			// The shards' targets added up, judged on the merged rate.
			if len(q.Targets) != 1 || q.Targets[0].Op != "insert" || q.Targets[0].Rate != 600 || q.Targets[0].Achieved != q.IPSAvg ||
				q.Targets[0].Met != (q.IPSAvg >= 570) || q.Targets[0].Met != *q.TargetMet {
				t.Fatalf("qp100 targets %+v, want the writers' 600 rows/s judged on ips_avg %v", q.Targets, q.IPSAvg)
			}
			if q.Queries == 0 || q.Inserted == 0 {
				t.Fatalf("qp100: %d queries, %d rows inserted", q.Queries, q.Inserted)
			}
			// rows_per_query over all shards: their rows found ÷ queries.
			found, _ := q.Details["rows_found"].(float64)
			rpq, _ := q.Details["rows_per_query"].(float64)
			if found == 0 || !near(rpq, math.Round(found/float64(q.Queries)*100)/100) {
				t.Fatalf("qp100: rows_per_query %v, rows_found %v, %d queries", q.Details["rows_per_query"], q.Details["rows_found"], q.Queries)
			}
			if q.Metrics == nil || q.Metrics.CPUUs == nil || q.Metrics.PerOp["query"] == nil || q.Metrics.PerOp["query"].CPUUs == nil {
				t.Fatalf("qp100 metrics: the server's CPU (a shard runs on its host) and CPU per query are missing: %+v", q.Metrics)
			}
			if want := float64(*q.Metrics.CPUUs) / float64(q.Queries); !near(*q.Metrics.PerOp["query"].CPUUs, want) {
				t.Fatalf("qp100: cpu per query %g, want cpu_us/queries = %g", *q.Metrics.PerOp["query"].CPUUs, want)
			}

			// The same rows in the same tables. The query step's paced
			// writers moved each table's PK window by about the same
			// number of rows; inside the common window every row is
			// the same.
			tables := readTables(t, admin, database, 6)
			for i, ts := range tables {
				b := baseTables[i]
				if ts.rows != b.rows {
					t.Fatalf("pi%d: %d rows, one process left %d", i+1, ts.rows, b.rows)
				}
				lo, hi := max(ts.lo, b.lo), min(ts.hi, b.hi)
				if hi-lo < ts.rows/2 {
					t.Fatalf("pi%d: PK windows [%d,%d] and [%d,%d] hardly overlap", i+1, ts.lo, ts.hi, b.lo, b.hi)
				}
				if g, w := digest(t, admin, database, i+1, lo, hi), digest(t, admin, oneDB, i+1, lo, hi); g != w {
					t.Fatalf("pi%d rows %d..%d differ from the one process's: %s vs %s", i+1, lo, hi, g, w)
				}
			}

			// verify checks the indexes of the sharded run's database,
			// report reads the merged bundle.
			if stdout, stderr, code := rb(t, "verify", "--engine", "postgres", "--dsn", pgDSN(), "--database", database); code != 0 {
				t.Fatalf("verify: exit %d: %s%s", code, stdout, stderr)
			}
			if stdout, stderr, code := rb(t, "report", merged); code != 0 || !strings.Contains(stdout, "qp100") || !strings.Contains(stdout, fmt.Sprintf("merged from %d shards", n)) {
				t.Fatalf("report of the merged bundle: exit %d: %s%s", code, stdout, stderr)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 0.001*max(1, b)
}

// TestShardKilledMidStep kills one of two shards during a query step: the
// other ends its next step with an error naming the dead shard, and keeps
// what it measured.
func TestShardKilledMidStep(t *testing.T) {
	t.Parallel()
	admin := pgAdmin(t)
	database := testdb.Name(t, "rb_shard_kill")
	freshDB(t, admin, database)
	dir := t.TempDir()
	args := func(i int) []string {
		return []string{"run", "--engine", "postgres", "--dsn", pgDSN(), "--database", database,
			"--clients", "2", "--rows", "1000", "--query-seconds", "3", "--steps", "l.i0,qp100,qr100",
			"--interval", "250ms", "--shard", fmt.Sprintf("%d/2", i), "--shard-timeout", "2s",
			"--out", filepath.Join(dir, fmt.Sprint(i))}
	}
	survivor := exec.Command(binary, args(0)...)
	var so, se strings.Builder
	survivor.Stdout, survivor.Stderr = &so, &se
	if err := survivor.Start(); err != nil {
		t.Fatal(err)
	}
	victim := exec.Command(binary, args(1)...)
	pipe, err := victim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it at its first qp100 interval line.
	sc := bufio.NewScanner(pipe)
	killed := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), " qp100 ") {
			victim.Process.Signal(syscall.SIGKILL)
			killed = true
			break
		}
	}
	go io.Copy(io.Discard, pipe)
	victim.Wait()
	if !killed {
		survivor.Process.Kill()
		survivor.Wait()
		t.Fatal("shard 1 never reached qp100")
	}
	done := make(chan error, 1)
	go func() { done <- survivor.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		survivor.Process.Kill()
		t.Fatalf("shard 0 did not end within 60 s of shard 1's death:\n%s\n%s", so.String(), se.String())
	}
	if survivor.ProcessState.ExitCode() == 0 {
		t.Fatalf("shard 0 succeeded without shard 1:\n%s", so.String())
	}
	all := so.String() + se.String()
	for _, want := range []string{"shard 1/2", "did not arrive at step qr100", "--shard-timeout 2s"} {
		if !strings.Contains(all, want) {
			t.Fatalf("shard 0's output does not say %q:\n%s", want, all)
		}
	}
	b := readBundle(t, filepath.Join(dir, "0", "postgres"))
	if b.Run.Complete {
		t.Fatal("shard 0's run.json says complete")
	}
	if s := b.Steps["qp100"]; s == nil || !s.Complete || s.Queries == 0 {
		t.Fatalf("shard 0 kept no complete qp100: %+v", s)
	}
	if s := b.Steps["qr100"]; s == nil || s.Complete || !strings.Contains(s.Error, "shard 1/2") {
		t.Fatalf("shard 0's qr100 does not carry the error naming shard 1: %+v", s)
	}
	// The dead shard's bundle is kept too: its qp100 is unfinished.
	if b := readBundle(t, filepath.Join(dir, "1", "postgres")); b.Steps["qp100"] == nil || b.Steps["qp100"].Complete {
		t.Fatalf("shard 1's bundle: qp100 = %+v", b.Steps["qp100"])
	}
}

// TestShardBadInput: bad --shard values and merge inputs are one-line
// errors with exit code 2, before anything runs.
func TestShardBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	run := func(extra ...string) []string {
		return append([]string{"run", "--engine", "postgres", "--dsn", "postgres://nobody@127.0.0.1:1/", "--out", out}, extra...)
	}
	notShard := filepath.Join(dir, "plain")
	if _, stderr, code := rb(t, "run", "--engine", "null", "--rows", "100", "--clients", "1", "--steps", "l.i0", "--out", notShard); code != 0 {
		t.Fatalf("plain run: exit %d: %s", code, stderr)
	}
	cases := []struct {
		name  string
		wants []string
		args  []string
	}{
		{"index = count", []string{"--shard", "3/3", "0 to 2"}, run("--shard", "3/3")},
		{"index not a number", []string{"--shard", "x/2", "INDEX"}, run("--shard", "x/2")},
		{"zero shards", []string{"--shard", "0/0", "COUNT"}, run("--shard", "0/0")},
		{"negative index", []string{"--shard", "-1/2"}, run("--shard", "-1/2")},
		{"no slash", []string{"--shard", "2", "INDEX/COUNT"}, run("--shard", "2")},
		{"no index, no env", []string{"JOB_COMPLETION_INDEX"}, run("--shard", "/2")},
		{"embedded engine", []string{"pebble", "embedded"}, []string{"run", "--engine", "pebble", "--shard", "0/2", "--out", out}},
		{"more shards than tables", []string{"--shard 0/3", "at most 2 shards"}, run("--shard", "0/3", "--clients", "2")},
		{"timeout without shard", []string{"--shard-timeout", "--shard"}, run("--shard-timeout", "5s")},
		{"bad timeout", []string{"--shard-timeout"}, run("--shard", "0/2", "--shard-timeout", "0s")},
		{"managed", []string{"--managed"}, run("--shard", "0/2", "--managed")},
		{"repeated step", []string{"step l.i1 is listed twice", "list each step once"}, run("--shard", "0/2", "--steps", "l.i0,l.i1,l.i1")},
		{"drop database", []string{"drop_database=true", "drop it after the run"}, run("--shard", "0/2", "--engine-opt", "drop_database=true")},
		{"drop database as 1", []string{"postgres.drop_database=1", "drop it after the run"}, run("--shard", "0/2", "--engine-opt", "postgres.drop_database=1")},
		{"merge without out", []string{"--out"}, []string{"merge", notShard}},
		{"merge of a plain run", []string{"not a shard's bundle"}, []string{"merge", notShard, "--out", filepath.Join(dir, "m")}},
		{"merge of nothing", []string{"no such directory"}, []string{"merge", filepath.Join(dir, "nope"), "--out", filepath.Join(dir, "m")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantBadInput(t, c.wants, c.args...) })
	}
	// JOB_COMPLETION_INDEX out of range names the variable's value.
	cmd := exec.Command(binary, run("--shard", "/2")...)
	cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX=5")
	b, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "INDEX 5 is out of range") {
		t.Fatalf("JOB_COMPLETION_INDEX=5 --shard /2: %v %s", err, b)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("refused runs left %s behind", out)
	}
}

// TestShardedRunMariaDB runs 2 shards of a small run on the local MariaDB
// (innodb, through the same database/sql path): the merged bundle has the
// whole run's counts, every table its rows, verify accepts the database and
// the barrier table is left empty.
func TestShardedRunMariaDB(t *testing.T) {
	t.Parallel()
	// The pool outlives the drop: a deferred Close ran before t.Cleanup's
	// drop and left the database behind.
	db, dsn := mariaAdmin(t)
	database := testdb.Name(t, "rb_shard_maria")
	freshMariaDB(t, db, database)
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]string, 2)
	outs := []string{filepath.Join(dir, "0"), filepath.Join(dir, "1")}
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := exec.Command(binary, "run", "--engine", "innodb", "--dsn", dsn, "--database", database,
				"--clients", "4", "--rows", "1000", "--churn-rows", "500", "--indexes", "1", "--query-seconds", "1",
				"--steps", "l.i0,l.x,l.i1,maint,qr100", "--interval", "250ms",
				"--shard", fmt.Sprintf("%d/2", i), "--shard-timeout", "30s", "--out", outs[i]).CombinedOutput()
			if err != nil {
				errs[i] = fmt.Sprintf("shard %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	m := mergeShardsOf(t, errs, dir, outs, "innodb")
	for _, c := range []struct {
		step, op    string
		count, rows int64
	}{
		{"l.i0", "insert", 40, 4000}, // 100 rows per transaction
		{"l.x", "index", 4, 4000},    // one build per table
		{"l.i1", "insert", 32, 1600}, // 4/5 of 500 rows per client, 50 per transaction
		{"l.i1", "delete", 32, 1600},
		{"maint", "maintain", 1, 1},
	} {
		o := m.Steps[c.step].Ops[c.op]
		if o == nil || o.Count != c.count || o.Rows != c.rows {
			t.Fatalf("merged %s %s = %+v, want %d operations of %d rows", c.step, c.op, o, c.count, c.rows)
		}
	}
	for i := 1; i <= 4; i++ {
		var n int64
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %s.pi%d", database, i)).Scan(&n); err != nil || n != 1000 {
			t.Fatalf("pi%d: %d rows (%v), want 1000", i, n, err)
		}
	}
	var left int64
	if err := db.QueryRow("SELECT count(*) FROM " + database + ".rumbench_barrier").Scan(&left); err != nil || left != 0 {
		t.Fatalf("barrier table: %d rows left (%v), want 0", left, err)
	}
	if stdout, stderr, code := rb(t, "verify", "--engine", "innodb", "--dsn", dsn, "--database", database); code != 0 {
		t.Fatalf("verify: exit %d: %s%s", code, stdout, stderr)
	}
}

// mergeShardsOf fails on any shard's error, else merges the shards' bundles
// under dir/merged and returns the merged bundle of engine.
func mergeShardsOf(t *testing.T, errs []string, dir string, outs []string, engine string) *results.Bundle {
	t.Helper()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	merged := filepath.Join(dir, "merged")
	if _, stderr, code := rb(t, append(append([]string{"merge"}, outs...), "--out", merged)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	return readBundle(t, filepath.Join(merged, engine))
}
