package hotrow_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/testdb"
	"rumbench/internal/workload"
	"rumbench/internal/workload/hotrow"
)

func testConfig() hotrow.Config {
	c := hotrow.DefaultConfig()
	c.Tables = []int{1, 2}
	c.Concurrency = []int{4, 8}
	c.CellSeconds = 0.4
	c.Rows = 3000
	c.Seed = 11
	return c
}

// runSweep runs cfg on one engine through the runner and returns the bundle.
func runSweep(t *testing.T, tg enginetest.Target, cfg hotrow.Config) *results.Bundle {
	t.Helper()
	b, err := hotrow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return runBench(t, tg, b)
}

// runBench runs a configured sweep on one engine through the runner and
// returns the bundle.
func runBench(t *testing.T, tg enginetest.Target, w *hotrow.Bench) *results.Bundle {
	t.Helper()
	cfg := w.Config()
	out := t.TempDir()
	res, err := runner.Run(context.Background(), runner.Options{
		Variants:    model.BareVariants(tg.Engine),
		Out:         out,
		DataDir:     tg.DataDir,
		DSN:         tg.DSN,
		Database:    tg.Database,
		Interval:    200 * time.Millisecond,
		Seed:        cfg.Seed,
		Config:      cfg,
		NewWorkload: func() (workload.Workload, error) { return w, nil },
	})
	if err != nil {
		t.Fatalf("run %s: %v", tg.Engine, err)
	}
	b, err := results.Read(res[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkNoLostUpdates asserts every cell finished with its counter check
// passed (the counters grew by committed transactions × rows per
// transaction), and returns the rows updated summed over the cells.
func checkNoLostUpdates(t *testing.T, b *results.Bundle, cfg hotrow.Config) int64 {
	t.Helper()
	var total int64
	for _, c := range cfg.Cells() {
		s := b.Steps[c.Name()]
		if s == nil {
			t.Fatalf("cell %s missing", c.Name())
		}
		if !s.Complete {
			t.Fatalf("cell %s incomplete: %s", c.Name(), s.Error)
		}
		k := int64(cfg.TxRows())
		committed := int64(s.Details[hotrow.DetailCommitted].(float64))
		delta := int64(s.Details[hotrow.DetailCounterDelta].(float64))
		if s.Details[hotrow.DetailCounterCheck] != hotrow.DetailCheckOK || delta != committed*k || s.Updates != committed {
			t.Fatalf("cell %s: check %v, counters grew by %d, %d transactions of %d rows committed, summary updates %d",
				c.Name(), s.Details[hotrow.DetailCounterCheck], delta, committed, k, s.Updates)
		}
		if k > 1 {
			rows, _ := s.Details[hotrow.DetailRowsUpdated].(float64)
			if int64(rows) != committed*k || s.Ops[hotrow.OpUpdate].Rows != committed*k {
				t.Fatalf("cell %s: rows_updated %v, update op rows %d, want %d × %d", c.Name(), rows, s.Ops[hotrow.OpUpdate].Rows, committed, k)
			}
		}
		if committed < int64(c.Clients) {
			t.Fatalf("cell %s: only %d updates committed by %d clients", c.Name(), committed, c.Clients)
		}
		total += committed * k
	}
	return total
}

// sumHot reopens the engine and sums the hot rows' counters of every table:
// an independent check of the per-cell ones.
func sumHot(t *testing.T, tg enginetest.Target, cfg hotrow.Config) int64 {
	t.Helper()
	ctx := context.Background()
	db, err := engine.Open(ctx, tg.Engine, model.Config{DataDir: tg.DataDir, DSN: tg.DSN, Database: tg.Database})
	if err != nil {
		t.Fatalf("reopen %s: %v", tg.Engine, err)
	}
	defer db.Close()
	b, err := hotrow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, err := b.SumHot(ctx, db, cfg.MaxTables())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNoLostUpdates: on every engine, at concurrency > 1, the hot rows'
// counters grow by exactly the committed updates, per cell and in total.
func TestNoLostUpdates(t *testing.T) {
	span := testConfig()
	span.Tables, span.Concurrency = []int{2}, []int{6}
	span.HotRows, span.ClientsSpan = 3, hotrow.SpanAll
	variants := []struct {
		name string
		cfg  hotrow.Config
	}{{"one-hot-row", testConfig()}, {"3-hot-rows-span-all", span}}

	for _, name := range []string{"pebble", "sqlite", "bbolt", "postgres", "innodb", "myrocks"} {
		t.Run(name, func(t *testing.T) {
			d, err := engine.Lookup(name)
			if err != nil {
				t.Skipf("%s is not built in: %v", name, err)
			}
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					tg := enginetest.Target{Engine: name, DataDir: filepath.Join(t.TempDir(), "data")}
					if d.Kind() == model.Server {
						tg = enginetest.Target{Engine: name, Database: testdb.Name(t, "rumbench_hotrow_test")}
						enginetest.OpenServer(t, tg).Close()
					} else if err := d.Available(); err != nil {
						t.Fatalf("%s unavailable: %v", name, err)
					}
					b := runSweep(t, tg, v.cfg)
					total := checkNoLostUpdates(t, b, v.cfg)
					if got := sumHot(t, tg, v.cfg); got != total {
						t.Fatalf("hot rows' counters sum to %d after the sweep, %d updates committed", got, total)
					}
				})
			}
		})
	}
}

// TestMultiRowTransactions: with K rows per transaction on the embedded
// engines, the hot rows' counters grow by exactly K per committed
// transaction (per cell and in total), and the report speaks of
// transactions.
func TestMultiRowTransactions(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Tables, cfg.Concurrency, cfg.CellSeconds = []int{1, 2}, []int{4}, 0.3
			cfg.HotRows, cfg.RowsPerTx = 4, 3
			tg := enginetest.Target{Engine: name, DataDir: filepath.Join(t.TempDir(), "data")}
			b := runSweep(t, tg, cfg)
			total := checkNoLostUpdates(t, b, cfg)
			if got := sumHot(t, tg, cfg); got != total {
				t.Fatalf("hot rows' counters sum to %d after the sweep, %d rows updated by committed transactions", got, total)
			}
			s := b.Steps["t1c4"]
			if s.Details[hotrow.DetailRowsPerTx] != float64(3) || s.Details[hotrow.DetailTxPerS] == nil || s.Details[hotrow.DetailUpdatesPerS] != nil {
				t.Fatalf("t1c4 details: %v", s.Details)
			}
			var sb strings.Builder
			if err := hotrow.HotrowReport(&sb, []*results.Bundle{b}); err != nil {
				t.Fatal(err)
			}
			squeezed := strings.Join(strings.Fields(sb.String()), " ")
			if !strings.Contains(squeezed, "## "+name+": transactions/s (committed, 3 rows each)") ||
				!strings.Contains(squeezed, "| tx/s | rows/s | attempts/s |") {
				t.Fatalf("report does not speak of 3-row transactions:\n%s", sb.String())
			}
		})
	}
}

// TestCrossedTransactionsDeadlock: on InnoDB with deadlock detection, two
// clients that update two hot rows in opposite orders deadlock; the
// deadlocks are counted as such, the losers rolled back and retried, and
// the cell completes with no lost or partial update.
func TestCrossedTransactionsDeadlock(t *testing.T) {
	if _, err := engine.Lookup("innodb"); err != nil {
		t.Skipf("innodb is not built in: %v", err)
	}
	tg := enginetest.Target{Engine: "innodb", Database: testdb.Name(t, "rumbench_hotrow_deadlock")}
	db := enginetest.OpenServer(t, tg)
	var detect string
	q, ok := db.(interface{ SQL() *sql.DB })
	if !ok {
		t.Fatalf("%T has no SQL handle to read the server's settings", db)
	}
	if err := q.SQL().QueryRow("SELECT @@innodb_deadlock_detect").Scan(&detect); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if detect != "1" && !strings.EqualFold(detect, "ON") {
		t.Skipf("the server runs innodb_deadlock_detect=%s: this test needs detection on", detect)
	}
	crossedDeadlocks(t, tg)
}

// TestCrossedTransactionsDeadlockPebble: the same on pebble, whose
// transactions the kv layer's row locks isolate: a wait that would close
// the cycle fails at once as a deadlock.
func TestCrossedTransactionsDeadlockPebble(t *testing.T) {
	crossedDeadlocks(t, enginetest.Target{Engine: "pebble", DataDir: filepath.Join(t.TempDir(), "data")})
}

// crossedDeadlocks runs two clients updating two hot rows in opposite
// orders on tg and checks that deadlocks are counted as such, retried,
// and lose no update.
func crossedDeadlocks(t *testing.T, tg enginetest.Target) {
	cfg := testConfig()
	cfg.Tables, cfg.Concurrency, cfg.CellSeconds, cfg.Rows = []int{1}, []int{2}, 1, 1000
	cfg.HotRows, cfg.RowsPerTx = 2, 2
	b, err := hotrow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hotrow.SetFixedOrders(b, [][]int{{0, 1}, {1, 0}})
	bundle := runBench(t, tg, b)
	checkNoLostUpdates(t, bundle, cfg)
	s := bundle.Steps["t1c2"]
	errs, _ := s.Details[hotrow.DetailErrors].(map[string]any)
	if d, _ := errs["deadlock"].(float64); d < 1 {
		t.Fatalf("no deadlock counted: errors %v, details %v", errs, s.Details)
	}
	for _, k := range []string{"lock_wait_timeout", "serialization_failure", "busy", "other"} {
		if errs[k] != float64(0) {
			t.Errorf("%s: %v, want 0 (errors %v)", k, errs[k], errs)
		}
	}
	if r, _ := s.Details[hotrow.DetailRetries].(float64); r < 1 {
		t.Errorf("retries %v: a deadlock's loser should have been retried", s.Details[hotrow.DetailRetries])
	}
	t.Logf("t1c2: %v transactions committed, errors %v, retries %v, gave up %v", s.Details[hotrow.DetailCommitted], errs,
		s.Details[hotrow.DetailRetries], s.Details[hotrow.DetailExhausted])
}

// TestZipfAndUniformRun: the spread distributions run and say why their
// counters are not read back.
func TestZipfAndUniformRun(t *testing.T) {
	for _, dist := range []string{"uniform", "zipf:0.99"} {
		cfg := testConfig()
		cfg.Tables, cfg.Concurrency, cfg.CellSeconds, cfg.Distribution = []int{2}, []int{4}, 0.3, dist
		b := runSweep(t, enginetest.Target{Engine: "pebble", DataDir: filepath.Join(t.TempDir(), "d")}, cfg)
		s := b.Steps["t2c4"]
		if s == nil || !s.Complete || s.Updates == 0 {
			t.Fatalf("%s: cell t2c4 = %+v", dist, s)
		}
		if c, _ := s.Details[hotrow.DetailCounterCheck].(string); !strings.HasPrefix(c, "skipped") {
			t.Fatalf("%s: counter check %q, want skipped", dist, c)
		}
		if s.Details[hotrow.DetailDistribution] != dist {
			t.Fatalf("distribution detail %v, want %s", s.Details[hotrow.DetailDistribution], dist)
		}
	}
}

func TestCellsSkipFewerClientsThanTables(t *testing.T) {
	c := hotrow.DefaultConfig()
	c.Concurrency = []int{64, 1, 2, 4, 8, 16, 32} // order does not matter
	var got []string
	for _, cell := range c.Cells() {
		got = append(got, cell.Name())
	}
	want := "t1c1 t1c2 t1c4 t1c8 t1c16 t1c32 t1c64 t2c2 t2c4 t2c8 t2c16 t2c32 t2c64 " +
		"t4c4 t4c8 t4c16 t4c32 t4c64 t8c8 t8c16 t8c32 t8c64"
	if strings.Join(got, " ") != want {
		t.Fatalf("cells\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	for _, cell := range c.Cells() {
		back, ok := hotrow.ParseCellName(cell.Name())
		if !ok || back != cell {
			t.Fatalf("ParseCellName(%s) = %v, %v", cell.Name(), back, ok)
		}
	}
	for _, bad := range []string{"load", "t0c1", "t1", "tXc2", "t2c"} {
		if _, ok := hotrow.ParseCellName(bad); ok {
			t.Fatalf("ParseCellName(%q) accepted", bad)
		}
	}
	b, err := hotrow.New(c)
	if err != nil {
		t.Fatal(err)
	}
	steps := b.Steps()
	if steps[0].Name != hotrow.StepLoad || len(steps) != 1+len(c.Cells()) {
		t.Fatalf("steps start %s, %d of them", steps[0].Name, len(steps))
	}
	if len(b.Tables()) != 8 {
		t.Fatalf("%d tables, want 8", len(b.Tables()))
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		mut  func(*hotrow.Config)
		want string
	}{
		{func(c *hotrow.Config) { c.Tables = []int{0} }, "--tables"},
		{func(c *hotrow.Config) { c.Tables = nil }, "--tables is empty"},
		{func(c *hotrow.Config) { c.Tables = []int{2, 2} }, "twice"},
		{func(c *hotrow.Config) { c.Concurrency = []int{0, 4} }, "--concurrency"},
		{func(c *hotrow.Config) { c.Concurrency = []int{-1} }, "--concurrency"},
		{func(c *hotrow.Config) { c.Distribution = "zipf:-1" }, "θ must be > 0"},
		{func(c *hotrow.Config) { c.Distribution = "zipf:0" }, "θ must be > 0"},
		{func(c *hotrow.Config) { c.Distribution = "zipf:x" }, "θ must be a number"},
		{func(c *hotrow.Config) { c.Distribution = "pareto" }, "unknown --distribution"},
		{func(c *hotrow.Config) { c.CellSeconds = 0 }, "--cell-seconds"},
		{func(c *hotrow.Config) { c.Rows = 0 }, "--rows"},
		{func(c *hotrow.Config) { c.HotRows = 0 }, "--hot-rows"},
		{func(c *hotrow.Config) { c.Rows, c.HotRows = 5, 6 }, "at most --rows"},
		{func(c *hotrow.Config) { c.ClientsSpan = "some" }, "--clients-span"},
		{func(c *hotrow.Config) { c.MaxRetries = -1 }, "--max-retries"},
		{func(c *hotrow.Config) { c.Tables, c.Concurrency = []int{8}, []int{4} }, "no cell to run"},
		{func(c *hotrow.Config) { c.RowsPerTx = -1 }, "--rows-per-tx must be at least 1"},
		{func(c *hotrow.Config) { c.HotRows, c.RowsPerTx = 2, 3 }, "at most --hot-rows"},
		{func(c *hotrow.Config) { c.HotRows, c.RowsPerTx, c.Distribution = 2, 2, "uniform" }, "needs --distribution hot"},
	}
	for _, tc := range cases {
		c := hotrow.DefaultConfig()
		tc.mut(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("config %+v: error %v, want one line mentioning %q", c, err, tc.want)
		}
	}
	for _, ok := range []string{"hot", "uniform", "zipf:0.5", "zipf:0.99", "zipf:1", "zipf:1.5"} {
		c := hotrow.DefaultConfig()
		c.Distribution = ok
		if err := c.Validate(); err != nil {
			t.Errorf("distribution %s: %v", ok, err)
		}
	}
}

func TestHotRowsDeterministic(t *testing.T) {
	c := testConfig()
	c.HotRows = 50
	a, _ := hotrow.New(c)
	b, _ := hotrow.New(c)
	for i := range a.Tables() {
		ha, hb := a.HotRows(i), b.HotRows(i)
		if fmt.Sprint(ha) != fmt.Sprint(hb) || len(ha) != 50 {
			t.Fatalf("table %d: hot rows differ or wrong count", i)
		}
		seen := map[int64]bool{}
		for _, pk := range ha {
			if pk < 1 || pk > c.Rows || seen[pk] {
				t.Fatalf("table %d: hot row %d out of range or repeated", i, pk)
			}
			seen[pk] = true
		}
	}
	if fmt.Sprint(a.HotRows(0)) == fmt.Sprint(a.HotRows(1)) {
		t.Fatal("tables share their hot rows")
	}
	c.Seed++
	d, _ := hotrow.New(c)
	if fmt.Sprint(a.HotRows(0)) == fmt.Sprint(d.HotRows(0)) {
		t.Fatal("hot rows do not depend on the seed")
	}
	// Dense: every row is hot.
	c.HotRows = int(c.Rows)
	e, err := hotrow.New(c)
	if err != nil || len(e.HotRows(0)) != int(c.Rows) {
		t.Fatalf("all rows hot: %v, %d", err, len(e.HotRows(0)))
	}
}
