// Package ibench is the insert benchmark (design §4.1): a PK-order load,
// secondary index creation, and insert+delete churn at a constant table size.
package ibench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// Step names as users know them.
const (
	StepLoad = "l.i0"
	// StepLoadIndexed loads in PK order with the secondary indexes already
	// created, so every insert maintains them: the published "insert rate
	// by number of secondary indexes" experiment.
	StepLoadIndexed = "l.i0x"
	StepIndex       = "l.x"
	StepChurnBig    = "l.i1"
	StepChurnSmall  = "l.i2"
	// StepMaintain is the engine's maintenance between the write and the
	// query steps (design §4.1): VACUUM ANALYZE on PostgreSQL, a checkpoint
	// or memtable flush on others, nothing on engines without one.
	StepMaintain = "maint"
)

// Default rows per transaction of each write step (design §4.1).
const (
	loadBatch       = 100
	churnBigBatch   = 50
	churnSmallBatch = 5
)

// stepFuncs maps every known step to its implementation.
var stepFuncs = map[string]func(*Bench) func(context.Context, *workload.Env) error{
	StepLoad:        func(b *Bench) func(context.Context, *workload.Env) error { return b.load },
	StepLoadIndexed: func(b *Bench) func(context.Context, *workload.Env) error { return b.loadIndexed },
	StepIndex:       func(b *Bench) func(context.Context, *workload.Env) error { return b.createIndexes },
	StepChurnBig:    func(b *Bench) func(context.Context, *workload.Env) error { return b.churnStep(StepChurnBig) },
	StepChurnSmall:  func(b *Bench) func(context.Context, *workload.Env) error { return b.churnStep(StepChurnSmall) },
	StepQR100:       queryStepFunc(StepQR100),
	StepQP100:       queryStepFunc(StepQP100),
	StepQR500:       queryStepFunc(StepQR500),
	StepQP500:       queryStepFunc(StepQP500),
	StepQR1000:      queryStepFunc(StepQR1000),
	StepQP1000:      queryStepFunc(StepQP1000),
	StepScan:        func(b *Bench) func(context.Context, *workload.Env) error { return b.scan },
	StepMaintain:    func(b *Bench) func(context.Context, *workload.Env) error { return b.maintain },
	StepMax:         func(b *Bench) func(context.Context, *workload.Env) error { return b.maxRate },
}

// StepOrder is the canonical order of all known steps.
var StepOrder = []string{StepLoad, StepLoadIndexed, StepIndex, StepChurnBig, StepChurnSmall, StepMaintain,
	StepQR100, StepQP100, StepQR500, StepQP500, StepQR1000, StepQP1000, StepScan, StepMax}

// DefaultSteps are the steps a run does when --steps is not given: all but
// the optional scan, with the engine's maintenance where the reference does
// it, between the write steps and the query steps.
var DefaultSteps = []string{StepLoad, StepIndex, StepChurnBig, StepChurnSmall, StepMaintain,
	StepQR100, StepQP100, StepQR500, StepQP500, StepQR1000, StepQP1000}

// Bench is the configured insert benchmark.
type Bench struct {
	cfg Config
	// tables and clients are the ones this process runs: all of them, or
	// a shard's part (Shard).
	tables  []*tableState
	clients []*clientState
	// shard of shards (Shard; shards is 0 when not sharded); all holds
	// every table, for what shard 0 does alone (Prepare's CREATE TABLE,
	// the once steps).
	shard, shards int
	all           []*tableState
	// qconns are the next query step's connections, from its Setup.
	qconns *queryConns
}

// New validates cfg and returns the workload.
func New(cfg Config) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bench{cfg: cfg}
	for i := 0; i < cfg.NumTables(); i++ {
		schema := Table(TableName(i), cfg.Indexes, cfg.PadMax)
		if cfg.UniqueIndex != "" {
			MakeUnique(schema, cfg.UniqueIndex)
		}
		ts := &tableState{schema: schema, index: i, ahead: map[int64]int64{}}
		ts.minPK.Store(1)
		ts.nextPK.Store(1)
		ts.committed.Store(1)
		b.tables = append(b.tables, ts)
	}
	for c := 0; c < cfg.Clients; c++ {
		i := c % len(b.tables)
		b.tables[i].clients++
		b.clients = append(b.clients, &clientState{t: b.tables[i], table: i, index: c, gen: NewRowGen(cfg.Seed, i, cfg.PadMin, cfg.PadMax, cfg.PadRandomPct)})
	}
	b.all = b.tables
	return b, nil
}

// Shard implements workload.Sharder: shard i of n owns the tables whose
// number is i mod n and runs all their clients (a table's clients share
// its PK sequence and its deleter, so a table is never split). With one
// table per client (the default) that is clients i, i+n, i+2n, ...; each
// shard needs at least one table.
func (b *Bench) Shard(i, n int) error {
	if nt := len(b.all); n > nt {
		return fmt.Errorf("--shard %d/%d: the run has %d tables (one per --clients, or --tables) and each shard runs whole tables: use at most %d shards or more --clients", i, n, nt, nt)
	}
	b.shard, b.shards = i, n
	b.tables = nil
	local := map[*tableState]int{}
	for _, t := range b.all {
		if t.index%n == i {
			local[t] = len(b.tables)
			b.tables = append(b.tables, t)
		}
	}
	var mine []*clientState
	for _, c := range b.clients {
		if k, ok := local[c.t]; ok {
			c.table = k
			mine = append(mine, c)
		}
	}
	b.clients = mine
	return nil
}

// Once implements workload.Sharder: the index build, the maintenance and
// the scan work on every table at once, so shard 0 does them for all.
func (b *Bench) Once(step string) bool {
	return step == StepIndex || step == StepMaintain || step == StepScan
}

// sharded reports whether this process runs a part of the clients.
func (b *Bench) sharded() bool { return b.shards > 1 }

// onceTables returns the tables a once step works on: all of them. In a
// sharded run shard 0 first reads the PK ranges of the other shards' tables
// from db (they are idle at the barrier), so row counts are right.
func (b *Bench) onceTables(ctx context.Context, db model.DB) ([]*tableState, error) {
	if !b.sharded() {
		return b.tables, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	for _, t := range b.all {
		if t.index%b.shards == b.shard {
			continue
		}
		lo, hi, ok, err := pkBounds(ctx, conn, t.schema)
		if err != nil {
			return nil, fmt.Errorf("read PK range of %s: %w", t.schema.Name, err)
		}
		if ok {
			t.minPK.Store(lo)
			t.nextPK.Store(hi + 1)
		}
		t.settle()
	}
	return b.all, nil
}

// Name implements workload.Workload.
func (b *Bench) Name() string { return "ibench" }

// Connections is the most server connections the workload's steps hold at
// once: a connection per client; in a churn step also a deleter per table;
// in a query step a writer and a query worker per client and a deleter per
// table.
func (b *Bench) Connections() int {
	n := len(b.clients)
	for _, s := range b.cfg.Steps {
		switch {
		case s == StepChurnBig || s == StepChurnSmall:
			n = max(n, len(b.clients)+len(b.tables))
		case strings.HasPrefix(s, "qr") || strings.HasPrefix(s, "qp"):
			n = max(n, 2*len(b.clients)+len(b.tables))
		}
	}
	return n
}

// Config returns the configuration.
func (b *Bench) Config() Config { return b.cfg }

// Tables implements workload.Workload.
func (b *Bench) Tables() []string {
	var out []string
	for _, t := range b.tables {
		out = append(out, t.schema.Name)
	}
	return out
}

// Schema returns table i's schema.
func (b *Bench) Schema(i int) *model.Table { return b.tables[i].schema }

// Steps implements workload.Workload.
func (b *Bench) Steps() []workload.Step {
	var out []workload.Step
	for _, s := range b.cfg.Steps {
		out = append(out, b.step(s))
	}
	return out
}

// step describes step s: the operation it is judged by, its planned work
// or its length.
func (b *Bench) step(s string) workload.Step {
	st := workload.Step{Name: s, MainOp: OpInsert, Run: b.withLogicalBytes(s, stepFuncs[s](b))}
	if sec := b.cfg.StepIntervalS[s]; sec > 0 {
		st.Interval = time.Duration(sec * float64(time.Second))
	}
	clients := int64(len(b.clients))
	switch s {
	case StepLoad, StepLoadIndexed:
		st.Work = b.cfg.Rows * clients
	case StepIndex:
		st.MainOp, st.LongOps = OpIndex, true
	case StepChurnBig, StepChurnSmall:
		st.Work = b.ChurnRows(s) * clients
		if b.cfg.ChurnSeconds > 0 {
			// Time-bounded (--churn-seconds): judged, warmed up and
			// brought to steady state like the query steps.
			st.Work, st.Seconds, st.Warmup, st.Steady = 0, b.cfg.ChurnSeconds, b.cfg.WarmupSeconds, true
			st.LogicalBytes = b.filledLogicalBytes
		}
	case StepScan:
		st.MainOp, st.LongOps = OpScan, true
	case StepMaintain:
		st.MainOp, st.LongOps = OpMaintain, true
	case StepMax:
		st.Setup = b.querySetup
	}
	if q, ok := querySteps[s]; ok {
		// Query steps are judged by their query rate, over the whole
		// --query-seconds window.
		st.MainOp, st.Seconds, st.Warmup, st.Steady = OpQuery, b.cfg.QuerySeconds, b.cfg.WarmupSeconds, true
		st.Setup = b.querySetup
		st.LogicalBytes = b.filledLogicalBytes
		// The paced writers (and the deleters, which follow them) commit
		// one batch per client per batch/rate seconds, the clients'
		// schedules staggered: all together, one batch every period.
		period := float64(b.batchSize(churnBigBatch)) / (q.rate * float64(clients))
		st.OpPeriods = map[string]float64{OpInsert: period}
		if !b.cfg.NoDeletes {
			st.OpPeriods[OpDelete] = period
		}
	}
	return st
}

// Prepare implements workload.Workload: a run that starts with l.i0 creates
// its tables; any other run continues on the tables in the data dir, reading
// their PK ranges.
func (b *Bench) Prepare(ctx context.Context, db model.DB) error {
	if len(b.cfg.Steps) > 0 && (b.cfg.Steps[0] == StepLoad || b.cfg.Steps[0] == StepLoadIndexed) {
		if b.sharded() && b.shard != 0 {
			return nil // shard 0 created every table before the others prepare
		}
		for _, t := range b.all {
			if err := db.CreateTable(ctx, t.schema); err != nil {
				return fmt.Errorf("create table %s: %w", t.schema.Name, err)
			}
		}
		return nil
	}
	existing, err := db.Tables(ctx)
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	have := map[string]bool{}
	for _, t := range existing {
		have[t.Name] = true
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	for _, t := range b.tables {
		if !have[t.schema.Name] {
			return fmt.Errorf("%w: table %s does not exist: run step %s first (or use a data dir from a run with as many --clients)", workload.ErrNotPrepared, t.schema.Name, StepLoad)
		}
		lo, hi, ok, err := pkBounds(ctx, conn, t.schema)
		if err != nil {
			return fmt.Errorf("read PK range of %s: %w", t.schema.Name, err)
		}
		if ok {
			t.minPK.Store(lo)
			t.nextPK.Store(hi + 1)
		}
		t.settle()
	}
	return nil
}

// pkFirst is ScanSpec.Cols for a PK scan that reads the first PK column.
var pkFirst = []int{0}

// pkBounds returns the smallest and largest PK of t.
func pkBounds(ctx context.Context, conn model.Conn, t *model.Table) (lo, hi int64, ok bool, err error) {
	var got bool
	if _, err = conn.Scan(ctx, t, model.ScanSpec{Index: -1, Limit: 1, Cols: pkFirst}, func(r model.Row) bool {
		lo, got = r[0].Int, true
		return false
	}); err != nil {
		return 0, 0, false, err
	}
	if !got {
		return 0, 0, false, nil
	}
	if _, err = conn.Scan(ctx, t, model.ScanSpec{Index: -1, Limit: 1, Desc: true, Cols: pkFirst}, func(r model.Row) bool {
		hi = r[0].Int
		return false
	}); err != nil {
		return 0, 0, false, err
	}
	return lo, hi, true, nil
}

// syncLowerBound sets t.minPK, the lower bound of the table's deletes, to
// the table's smallest PK. An empty table leaves it as it is: a bound below
// every row is still right (the deletes just start lower), and the null
// engine, which keeps no rows, returns none.
func syncLowerBound(ctx context.Context, db model.DB, t *tableState) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	var lo int64
	found := false
	if _, err := conn.Scan(ctx, t.schema, model.ScanSpec{Index: -1, Limit: 1, Cols: pkFirst}, func(r model.Row) bool {
		lo, found = r[0].Int, true
		return false
	}); err != nil {
		return fmt.Errorf("read min(%s) of %s: %w", t.schema.Columns[t.schema.PK[0]].Name, t.schema.Name, err)
	}
	if found {
		t.minPK.Store(lo)
	}
	return nil
}

func (b *Bench) batchSize(def int) int {
	if b.cfg.RowsPerCommit > 0 {
		return b.cfg.RowsPerCommit
	}
	return def
}

// abandonAfter bounds how long a failed step waits for its other workers
// to notice the cancellation: a worker stuck inside an engine call that
// ignores its context (Pebble after a failed WAL write) must not hold the
// step forever.
const abandonAfter = 5 * time.Second

// forEachClient runs fn once per client concurrently, as runAll does.
func (b *Bench) forEachClient(ctx context.Context, fn func(ctx context.Context, c int) error) error {
	return runAll(ctx, len(b.clients), fn)
}

// forEachTable runs fn once per table concurrently, like forEachClient.
func (b *Bench) forEachTable(ctx context.Context, fn func(ctx context.Context, i int) error) error {
	return runAll(ctx, len(b.tables), fn)
}

// settle marks every table's reserved PKs committed (see tableState).
func (b *Bench) settle() {
	for _, t := range b.tables {
		t.settle()
	}
}

// runAll runs fn(0..n-1) concurrently and returns the first error; the
// others are cancelled through ctx, and left behind when they do not return
// within abandonAfter of the first error.
func runAll(ctx context.Context, n int, fn func(ctx context.Context, c int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := make([]error, n)
	failed := make(chan struct{})
	var once sync.Once
	for c := range n {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			if err := fn(ctx, c); err != nil {
				mu.Lock()
				errs[c] = err
				mu.Unlock()
				cancel()
				once.Do(func() { close(failed) })
			}
		}(c)
	}
	all := make(chan struct{})
	go func() {
		wg.Wait()
		close(all)
	}()
	select {
	case <-all:
	case <-failed:
		select {
		case <-all:
		case <-time.After(abandonAfter):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return workload.FirstError(errs)
}

// liveRows is the live row count of every table.
func (b *Bench) liveRows() int64 {
	var n int64
	for _, t := range b.tables {
		n += t.Rows()
	}
	return n
}

// growthDetails records whether the step deleted and by how many rows the
// tables grew (0 with deletes: the deleters remove what was inserted).
func (b *Bench) growthDetails(d map[string]any, grew int64) {
	d["deletes"] = !b.cfg.NoDeletes
	d["table_growth_rows"] = grew
	d["live_rows"] = b.liveRows()
}
