// Package enginetest holds the engine-independent tests that every engine
// must pass: the conformance suite (Conformance, run by each engine's own
// tests against the real engine, with its fixtures and its in-memory
// oracle), and the insert benchmark's write steps end to end, with row
// counts, index consistency and the bundle's fields checked.
package enginetest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/verify"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

// Target says how to open the engine under test.
type Target struct {
	Engine   string
	DataDir  string // embedded engines: an empty directory
	DSN      string // server engines
	Database string
	Options  map[string]string
	// Rows and ChurnRows override the write-step test's rows per client
	// (default 3000) and churn rows per client (default 2000), for a server
	// that is correct but too slow for the default sizes in a test run
	// (FerretDB scans a whole collection for every _id range).
	Rows, ChurnRows int
}

func (tg Target) config() model.Config {
	return model.Config{DataDir: tg.DataDir, DSN: tg.DSN, Database: tg.Database, Options: tg.Options}
}

// Sizes of the write-step test: small, but several transactions per client
// and more than one batch of deletes.
const (
	clients   = 2
	rows      = 3000
	churnRows = 2000
	indexes   = 3
)

func cfg(steps ...string) ibench.Config { return Target{}.cfg(steps...) }

// sizes returns the rows and churn rows per client of the write-step test.
func (tg Target) sizes() (int64, int64) {
	r, c := int64(rows), int64(churnRows)
	if tg.Rows > 0 {
		r = int64(tg.Rows)
	}
	if tg.ChurnRows > 0 {
		c = int64(tg.ChurnRows)
	}
	return r, c
}

func (tg Target) cfg(steps ...string) ibench.Config {
	rows, churnRows := tg.sizes()
	return ibench.Config{
		Clients: clients, Rows: rows, ChurnRows: churnRows, Indexes: indexes,
		PadMin: 10, PadMax: 20, PadRandomPct: 50, Seed: 7, QuerySeconds: 1,
		Steps: steps,
	}
}

// RunSteps runs the given ibench steps on the target and returns the bundle.
func RunSteps(t *testing.T, tg Target, c ibench.Config) *results.Bundle {
	t.Helper()
	return runWorkload(t, tg, c.Seed, c, func() (workload.Workload, error) { return ibench.New(c) }, fmt.Sprintf("run %v", c.Steps))
}

// stepInterval is the interval of the runs the suite makes.
const stepInterval = 200 * time.Millisecond

// runWorkload runs one workload on the target (stepInterval) and
// returns its bundle; what names the run in a failure.
func runWorkload(t *testing.T, tg Target, seed int64, cfg any, newWorkload func() (workload.Workload, error), what string, observers ...runner.ObserverFactory) *results.Bundle {
	t.Helper()
	res, err := runner.Run(context.Background(), runner.Options{
		Variants:    []model.Variant{runner.BareVariant(tg.Engine, tg.Options)},
		Out:         t.TempDir(),
		DataDir:     tg.DataDir,
		EngineOpts:  tg.Options,
		DSN:         tg.DSN,
		Database:    tg.Database,
		Interval:    stepInterval,
		Seed:        seed,
		Config:      cfg,
		NewWorkload: newWorkload,
		Observers:   observers,
	})
	if err != nil {
		t.Fatalf("%s on %s: %v", what, tg.Engine, err)
	}
	b, err := results.Read(res[0].Dir)
	if err != nil {
		t.Fatalf("read bundle: %v", err)
	}
	return b
}

// CountRows counts each table's rows through a full PK scan.
func CountRows(t *testing.T, tg Target) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	db, err := engine.Open(ctx, tg.Engine, tg.config())
	if err != nil {
		t.Fatalf("open %s: %v", tg.Engine, err)
	}
	defer db.Close()
	tables, err := db.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	out := map[string]int64{}
	for _, tb := range tables {
		n, err := conn.Scan(ctx, tb, model.ScanSpec{Index: -1}, func(model.Row) bool { return true })
		if err != nil {
			t.Fatalf("scan %s: %v", tb.Name, err)
		}
		out[tb.Name] = int64(n)
	}
	return out
}

// Verify runs the index consistency check and fails the test if it fails.
func Verify(t *testing.T, tg Target) *verify.Result {
	t.Helper()
	ctx := context.Background()
	db, err := engine.Open(ctx, tg.Engine, tg.config())
	if err != nil {
		t.Fatalf("open %s: %v", tg.Engine, err)
	}
	defer db.Close()
	res, err := verify.Run(ctx, db)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !res.OK {
		t.Fatalf("verify found inconsistent indexes: %+v", res.Indexes)
	}
	return res
}

// WriteSteps is the core integration test of an engine: l.i0, then l.x,
// l.i1 and l.i2 in a second run continuing on the same data, checking row
// counts after each run, index consistency, and the bundle's fields.
func WriteSteps(t *testing.T, tg Target) {
	rows, churnRows := tg.sizes()
	b := RunSteps(t, tg, tg.cfg(ibench.StepLoad))
	step := mustStep(t, b, ibench.StepLoad)
	if step.Inserted != clients*rows {
		t.Fatalf("l.i0 inserted %d rows, want %d", step.Inserted, clients*rows)
	}
	checkRun(t, b, tg.Engine)
	want := map[string]int64{"pi1": rows, "pi2": rows}
	assertCounts(t, "after l.i0", CountRows(t, tg), want)

	b = RunSteps(t, tg, tg.cfg(ibench.StepIndex, ibench.StepChurnBig, ibench.StepChurnSmall))
	lx := mustStep(t, b, ibench.StepIndex)
	if got, _ := lx.Details["indexed_rows"].(float64); got != float64(clients*rows) {
		t.Errorf("l.x indexed_rows = %v, want %d", lx.Details["indexed_rows"], clients*rows)
	}
	big := mustStep(t, b, ibench.StepChurnBig)
	small := mustStep(t, b, ibench.StepChurnSmall)
	if big.Inserted != clients*churnRows*4/5 || big.Deleted != big.Inserted {
		t.Errorf("l.i1 inserted %d deleted %d, want %d each", big.Inserted, big.Deleted, clients*churnRows*4/5)
	}
	if small.Inserted != clients*churnRows/5 || small.Deleted != small.Inserted {
		t.Errorf("l.i2 inserted %d deleted %d, want %d each", small.Inserted, small.Deleted, clients*churnRows/5)
	}
	if l := big.Latency["insert"]; l.Count != int64(clients*churnRows*4/5/50) || l.P50 <= 0 || l.Max < l.P99 {
		t.Errorf("l.i1 insert latency %+v: want %d transactions of 50 rows", l, clients*churnRows*4/5/50)
	}
	if l := small.Latency["delete"]; l.Count == 0 {
		t.Errorf("l.i2 has no delete latency")
	}
	// ips_99 is judged over the intervals to the last one with an insert,
	// each at least half of stepInterval long (the first: the whole step
	// when it ends sooner), so it is at most the rows inserted per such
	// window. It is not bounded by ips_avg, which counts the whole step:
	// where the deleter is slower than the inserter (FerretDB scans a
	// collection per delete), the inserts end long before the step does.
	// 10% covers the rates' rounding to 0.1 and a first interval that
	// closes a little before the step's clock stops; a rate in the wrong
	// unit is still caught.
	window := min(stepInterval.Seconds()/2, big.Seconds)
	if big.IPSAvg <= 0 || big.IPS99 < 0 || big.IPS99 > 1.1*float64(big.Inserted)/window {
		t.Errorf("l.i1 rates ips_avg=%v ips_99=%v for %d rows", big.IPSAvg, big.IPS99, big.Inserted)
	}
	assertCounts(t, "after l.i1 and l.i2", CountRows(t, tg), want)
	res := Verify(t, tg)
	if len(res.Indexes) != clients*indexes {
		t.Fatalf("verify checked %d indexes, want %d", len(res.Indexes), clients*indexes)
	}
	for _, ix := range res.Indexes {
		if ix.Entries != rows {
			t.Errorf("%s.%s has %d entries, want %d", ix.Table, ix.Index, ix.Entries, rows)
		}
	}
	if len(b.Intervals) == 0 {
		t.Error("interval log is empty")
	}
}

func mustStep(t *testing.T, b *results.Bundle, name string) *results.Step {
	t.Helper()
	s, ok := b.Steps[name]
	if !ok {
		t.Fatalf("bundle %s has no step %s", b.Dir, name)
	}
	if !s.Complete {
		t.Fatalf("step %s incomplete: %s", name, s.Error)
	}
	if s.Seconds <= 0 {
		t.Fatalf("step %s lasted %v s", name, s.Seconds)
	}
	return s
}

func checkRun(t *testing.T, b *results.Bundle, name string) {
	t.Helper()
	r := b.Run
	if r.SchemaVersion != results.SchemaVersion || r.Tool.Version == "" || r.Tool.Commit == "" {
		t.Errorf("run.json tool/schema: %+v", r.Tool)
	}
	if r.Engine.Name != name || r.Engine.Version == "" || r.Engine.Settings == nil {
		t.Errorf("run.json engine: %+v", r.Engine)
	}
	if r.Host.Cores < 1 || r.Host.Kernel == "" || r.Host.MemoryBytes <= 0 {
		t.Errorf("run.json host: %+v", r.Host)
	}
	if !r.Complete || r.FinishedAt == nil {
		t.Errorf("run.json not marked complete")
	}
	if filepath.Base(b.Dir) != name {
		t.Errorf("bundle dir %s is not named after the engine", b.Dir)
	}
}

func assertCounts(t *testing.T, when string, got, want map[string]int64) {
	t.Helper()
	for name, n := range want {
		if got[name] != n {
			t.Fatalf("%s: table %s has %d rows, want %d (all: %v)", when, name, got[name], n, got)
		}
	}
}
