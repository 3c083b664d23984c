// Package ibench is the insert benchmark (design §4.1): a PK-order load,
// secondary index creation, and insert+delete churn at a constant table size.
package ibench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// Config sizes a run. Sizes are per client; the clients are spread over
// Tables tables (client i writes table i mod Tables), by default one each.
type Config struct {
	Clients int `json:"clients"`
	// Tables is the number of tables pi1..piN (0: one per client).
	Tables        int     `json:"tables"`
	UniqueIndex   string  `json:"unique_index,omitempty"`
	Rows          int64   `json:"rows"`
	ChurnRows     int64   `json:"churn_rows"`
	Indexes       int     `json:"indexes"`
	PadMin        int     `json:"pad_min"`
	PadMax        int     `json:"pad_max"`
	PadRandomPct  int     `json:"pad_random_pct"`
	RowsPerCommit int     `json:"rows_per_commit"`
	QuerySeconds  float64 `json:"query_seconds"`
	// NoDeletes runs l.i1, l.i2 and the query steps without their deleters
	// (--deletes=false): the table grows by what they insert.
	NoDeletes bool `json:"no_deletes,omitempty"`
	// WarmupSeconds is run before each query step\'s measured
	// QuerySeconds (--warmup).
	WarmupSeconds float64 `json:"warmup_s,omitempty"`
	// QuiesceMaxSeconds bounds the maint step's wait for the engine's
	// background work; QuiescePauseSeconds is the pause after it
	// (--quiesce-max, --quiesce-pause).
	QuiesceMaxSeconds   float64  `json:"quiesce_max_s,omitempty"`
	QuiescePauseSeconds float64  `json:"quiesce_pause_s,omitempty"`
	Seed                int64    `json:"seed"`
	Steps               []string `json:"steps"`
}

// Limits that keep a mistyped size from exhausting the client's memory.
const (
	MaxRowsPerCommit = 1_000_000
	MaxClients       = 1024
	MaxQuerySeconds  = 1e7
	maxBatchBytes    = 4 << 30
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
}

// StepOrder is the canonical order of all known steps.
var StepOrder = []string{StepLoad, StepLoadIndexed, StepIndex, StepChurnBig, StepChurnSmall, StepMaintain,
	StepQR100, StepQP100, StepQR500, StepQP500, StepQR1000, StepQP1000, StepScan}

// DefaultSteps are the steps a run does when --steps is not given: all but
// the optional scan, with the engine's maintenance where the reference does
// it, between the write steps and the query steps.
var DefaultSteps = []string{StepLoad, StepIndex, StepChurnBig, StepChurnSmall, StepMaintain,
	StepQR100, StepQP100, StepQR500, StepQP500, StepQR1000, StepQP1000}

// Validate checks the configuration and returns a one-line error naming the
// bad setting and the fix.
func (c *Config) Validate() error {
	switch {
	case c.Clients < 1:
		return fmt.Errorf("--clients must be at least 1, got %d", c.Clients)
	case c.Rows < 1:
		return fmt.Errorf("--rows must be at least 1, got %d", c.Rows)
	case c.ChurnRows < 0:
		return fmt.Errorf("--churn-rows must be 0 or more, got %d", c.ChurnRows)
	case c.Indexes < 0 || c.Indexes > MaxIndexes:
		return fmt.Errorf("--indexes must be between 0 and %d, got %d", MaxIndexes, c.Indexes)
	case c.PadMin < 0:
		return fmt.Errorf("--pad-min must be 0 or more, got %d", c.PadMin)
	case c.PadMax < c.PadMin:
		return fmt.Errorf("--pad-max (%d) must be at least --pad-min (%d)", c.PadMax, c.PadMin)
	case c.PadMax > 16<<20:
		return fmt.Errorf("--pad-max must be at most 16 MiB, got %d", c.PadMax)
	case c.PadRandomPct < 0 || c.PadRandomPct > 100:
		return fmt.Errorf("--pad-random-pct must be between 0 and 100, got %d", c.PadRandomPct)
	case c.RowsPerCommit < 0:
		return fmt.Errorf("--rows-per-commit must be at least 1 (or 0 for the step defaults), got %d", c.RowsPerCommit)
	case c.RowsPerCommit > MaxRowsPerCommit:
		return fmt.Errorf("--rows-per-commit must be at most %d, got %d", MaxRowsPerCommit, c.RowsPerCommit)
	case c.Tables < 0 || c.Tables > c.Clients:
		return fmt.Errorf("--tables must be between 1 and --clients (%d), got %d", c.Clients, c.Tables)
	case c.Clients > MaxClients:
		return fmt.Errorf("--clients must be at most %d (one table and several connections each), got %d", MaxClients, c.Clients)
	case c.QuerySeconds > MaxQuerySeconds:
		return fmt.Errorf("--query-seconds must be at most %d, got %g", int64(MaxQuerySeconds), c.QuerySeconds)
	}
	// Each writer keeps one transaction's rows in memory with room for the
	// largest pad: refuse a combination the client could not hold.
	bs := int64(loadBatch)
	if c.RowsPerCommit > 0 {
		bs = int64(c.RowsPerCommit)
	}
	if need := bs * int64(c.PadMax) * int64(c.Clients); need > maxBatchBytes {
		return fmt.Errorf("%d clients × %d rows per transaction × --pad-max %d bytes needs %d MiB of client memory (limit %d MiB): lower --rows-per-commit, --pad-max or --clients",
			c.Clients, bs, c.PadMax, need>>20, maxBatchBytes>>20)
	}
	if err := checkUniqueIndex(c.UniqueIndex, c.Indexes); err != nil {
		return err
	}
	if len(c.Steps) == 0 {
		return fmt.Errorf("no steps given: use --steps with some of %s", strings.Join(StepOrder, ","))
	}
	has := map[string]bool{}
	for _, s := range c.Steps {
		has[s] = true
	}
	if has[StepLoadIndexed] && has[StepIndex] {
		return fmt.Errorf("steps %s and %s both build the secondary indexes: %s creates them before loading, so drop %s", StepLoadIndexed, StepIndex, StepLoadIndexed, StepIndex)
	}
	if has[StepLoadIndexed] && has[StepLoad] {
		return fmt.Errorf("steps %s and %s both load the tables: choose one", StepLoad, StepLoadIndexed)
	}
	for _, s := range c.Steps {
		if _, ok := stepFuncs[s]; !ok {
			return fmt.Errorf("unknown step %q: choose from %s", s, strings.Join(StepOrder, ","))
		}
		if _, ok := querySteps[s]; ok && !(c.QuerySeconds > 0) {
			return fmt.Errorf("--query-seconds must be positive for step %s, got %g", s, c.QuerySeconds)
		}
	}
	return nil
}

// NumTables is the number of tables: Tables, or one per client.
func (c *Config) NumTables() int {
	if c.Tables > 0 {
		return c.Tables
	}
	return c.Clients
}

// tableState is one table and its live PK range [min, next).
//
// Its clients share one PK sequence: each reserves its batch's keys from
// nextPK before inserting (reserve), so keys are unique and increase per
// table, and the batches of the table's clients interleave in PK order.
// Batches commit out of order, so committed is the end of the contiguous
// committed range: every PK in [minPK, committed) is in the table, and the
// deleter never deletes at or above it (a delete must not step over a
// batch still in flight, or the bound would pass rows it never deleted).
//
// minPK is also the lower bound M of the table's deletes: DeleteOldest
// deletes the oldest rows with PK >= M, and the deleter (one per table at a
// time) advances M by the rows it deleted. Every PK in [M, committed) was
// committed before the deleter was told about it, so M + deleted is exactly
// the last deleted PK + 1; were rows missing from the range, M would lag
// (the next delete steps over their gap) but never skip a row. M is resynced
// from min(transactionid) at the start of every step that deletes
// (syncLowerBound), as the reference benchmark does. There is one deleter
// per table, whatever the number of its clients.
type tableState struct {
	schema  *model.Table
	index   int // the table's number (pi<index+1>), the same in every shard
	clients int // clients writing the table
	minPK   atomic.Int64
	nextPK  atomic.Int64 // next PK to reserve

	committed atomic.Int64
	mu        sync.Mutex
	ahead     map[int64]int64 // committed batches above committed: first PK -> rows
}

// Rows is the live row count implied by the PK range.
func (t *tableState) Rows() int64 { return t.nextPK.Load() - t.minPK.Load() }

// reserve takes k PKs from the table's sequence and returns the first.
func (t *tableState) reserve(k int64) int64 { return t.nextPK.Add(k) - k }

// commit records that the batch [first, first+k) is in the table.
func (t *tableState) commit(first, k int64) {
	if t.clients == 1 {
		t.committed.Add(k) // one writer: batches commit in PK order
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if first != t.committed.Load() {
		t.ahead[first] = k
		return
	}
	end := first + k
	for {
		n, ok := t.ahead[end]
		if !ok {
			break
		}
		delete(t.ahead, end)
		end += n
	}
	t.committed.Store(end)
}

// settle makes every reserved PK count as committed: at a step's start no
// batch is in flight (a failed one leaves a gap, which deletes step over).
func (t *tableState) settle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.ahead)
	t.committed.Store(t.nextPK.Load())
}

// deletable is how many rows from the delete bound up are committed.
func (t *tableState) deletable() int64 { return t.committed.Load() - t.minPK.Load() }

// clientState is one client: its table and its own row generator (every
// client of a table generates the same row for a PK).
type clientState struct {
	t   *tableState
	gen *RowGen
	// index is the client's number among all --clients (the same in every
	// shard); table is its table's position in Bench.tables.
	index, table int
}

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
	clients := int64(len(b.clients))
	switch s {
	case StepLoad, StepLoadIndexed:
		st.Work = b.cfg.Rows * clients
	case StepIndex:
		st.MainOp, st.LongOps = OpIndex, true
	case StepChurnBig, StepChurnSmall:
		st.Work = b.ChurnRows(s) * clients
	case StepScan:
		st.MainOp, st.LongOps = OpScan, true
	case StepMaintain:
		st.MainOp, st.LongOps = OpMaintain, true
	}
	if q, ok := querySteps[s]; ok {
		// Query steps are judged by their query rate, over the whole
		// --query-seconds window.
		st.MainOp, st.Seconds, st.Warmup, st.Steady = OpQuery, b.cfg.QuerySeconds, b.cfg.WarmupSeconds, true
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

// pkBounds returns the smallest and largest PK of t.
func pkBounds(ctx context.Context, conn model.Conn, t *model.Table) (lo, hi int64, ok bool, err error) {
	var got bool
	if _, err = conn.Scan(ctx, t, model.ScanSpec{Index: -1, Limit: 1}, func(r model.Row) bool {
		lo, got = r[0].Int, true
		return false
	}); err != nil {
		return 0, 0, false, err
	}
	if !got {
		return 0, 0, false, nil
	}
	if _, err = conn.Scan(ctx, t, model.ScanSpec{Index: -1, Limit: 1, Desc: true}, func(r model.Row) bool {
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
	if _, err := conn.Scan(ctx, t.schema, model.ScanSpec{Index: -1, Limit: 1}, func(r model.Row) bool {
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

// load is l.i0: each client inserts cfg.Rows rows in PK order, no indexes.
func (b *Bench) load(ctx context.Context, env *workload.Env) error {
	bs := b.batchSize(loadBatch)
	env.Details["rows_per_commit"] = bs
	env.Details["tables"] = len(b.tables)
	b.settle()
	return b.forEachClient(ctx, func(ctx context.Context, c int) error {
		rec := env.Clock.Recorder()
		return b.insertRows(ctx, env.DB, rec, b.clients[c], b.cfg.Rows, bs, nil)
	})
}

// loadIndexed is l.i0x: the secondary indexes are created on the empty
// tables (not timed as an operation: there is nothing to index), then each
// client inserts cfg.Rows rows in PK order, 100 per transaction, every
// insert maintaining every index.
func (b *Bench) loadIndexed(ctx context.Context, env *workload.Env) error {
	for _, t := range b.tables {
		if len(t.schema.Indexes) == 0 {
			continue
		}
		if err := env.DB.CreateIndexes(ctx, t.schema); err != nil {
			return fmt.Errorf("create indexes on %s before the load: %w", t.schema.Name, err)
		}
	}
	env.Details["indexes"] = b.cfg.Indexes
	return b.load(ctx, env)
}

// insertRows inserts n rows into the client's table in batches of bs, each
// batch's PKs reserved from the table's sequence, recording each
// transaction. After every commit it calls notify (if set).
func (b *Bench) insertRows(ctx context.Context, db model.DB, rec *measure.Recorder, cl *clientState, n int64, bs int, notify func(k int64)) error {
	t := cl.t
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	batch := NewBatch(bs, b.cfg.PadMax)
	for done := int64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := int64(bs)
		if n-done < k {
			k = n - done
		}
		first := t.reserve(k)
		rows := cl.gen.Fill(batch, first, int(k), time.Now().Unix())
		start := time.Now()
		err := conn.Insert(ctx, t.schema, rows)
		rec.Record(opInsert, int(k), time.Since(start), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("insert into %s: %w", t.schema.Name, err)
		}
		t.commit(first, k)
		done += k
		if notify != nil {
			notify(k)
		}
	}
	return nil
}

// createIndexes is l.x: build the first K secondary indexes on every table,
// the tables in parallel.
func (b *Bench) createIndexes(ctx context.Context, env *workload.Env) error {
	tables, err := b.onceTables(ctx, env.DB)
	if err != nil {
		return err
	}
	var rows atomic.Int64
	start := time.Now()
	err = runAll(ctx, len(tables), func(ctx context.Context, c int) error {
		rec := env.Clock.Recorder()
		t := tables[c]
		if len(t.schema.Indexes) == 0 {
			return nil
		}
		n := t.Rows()
		s := time.Now()
		err := env.DB.CreateIndexes(ctx, t.schema)
		rec.Record(opIndex, int(n), time.Since(s), err != nil)
		if err != nil {
			return fmt.Errorf("create indexes on %s: %w", t.schema.Name, err)
		}
		rows.Add(n)
		return nil
	})
	secs := time.Since(start).Seconds()
	env.Details["indexes"] = b.cfg.Indexes
	env.Details["indexed_rows"] = rows.Load()
	if secs > 0 && b.cfg.Indexes > 0 {
		env.Details["indexed_rows_per_s"] = float64(rows.Load()) / secs
		env.Details["index_entries_per_s"] = float64(rows.Load()*int64(b.cfg.Indexes)) / secs
	}
	return err
}

// ChurnRows returns the rows per client that step inserts: l.i1 gets 4/5 of
// --churn-rows and l.i2 the rest.
func (b *Bench) ChurnRows(step string) int64 {
	big := b.cfg.ChurnRows * 4 / 5
	if step == StepChurnBig {
		return big
	}
	return b.cfg.ChurnRows - big
}

// churnStep is l.i1 / l.i2: per client an inserter and a deleter that
// removes as many of the oldest rows as were inserted, so the table size is
// the same at the end of the step as at its start.
func (b *Bench) churnStep(step string) func(context.Context, *workload.Env) error {
	return func(ctx context.Context, env *workload.Env) error {
		bs := b.batchSize(churnBigBatch)
		if step == StepChurnSmall {
			bs = b.batchSize(churnSmallBatch)
		}
		n := b.ChurnRows(step)
		env.Details["rows_per_commit"] = bs
		env.Details["rows_per_client"] = n
		env.Details["max_delete_lag_rows"] = churnLag(bs)
		before := b.liveRows()
		b.settle()
		err := b.forEachTable(ctx, func(ctx context.Context, i int) error {
			return b.churnTable(ctx, env, i, n, bs)
		})
		b.growthDetails(env.Details, b.liveRows()-before)
		return err
	}
}

// churnLag bounds how many rows an inserter may run ahead of its deleter:
// the table never grows by more than this during l.i1/l.i2, and the step's
// rate is what the engine sustains for inserts and deletes together.
func churnLag(bs int) int64 {
	if lag := int64(10 * bs); lag > 1000 {
		return lag
	}
	return 1000
}

// churnTable runs l.i1/l.i2 on table i: an inserter per client of the
// table, each inserting n rows, and one deleter for the table.
func (b *Bench) churnTable(ctx context.Context, env *workload.Env, i int, n int64, bs int) error {
	t := b.tables[i]
	var clients []*clientState
	for _, cl := range b.clients {
		if cl.t == t {
			clients = append(clients, cl)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inserters := func(notify func(k int64)) error {
		return runAll(ctx, len(clients), func(ctx context.Context, c int) error {
			err := b.insertRows(ctx, env.DB, env.Clock.Recorder(), clients[c], n, bs, notify)
			if err != nil {
				// Also ends the waits of the other inserters: the
				// deleter cannot pass this client's failed batch.
				cancel()
			}
			return err
		})
	}
	if b.cfg.NoDeletes {
		return inserters(nil)
	}
	if err := syncLowerBound(ctx, env.DB, t); err != nil {
		return err
	}
	delRec := env.Clock.Recorder()
	var inserted, deleted atomic.Int64
	wake := make(chan struct{}, 1)
	// progress is closed and replaced at every delete, so every waiting
	// inserter sees it.
	var progressMu sync.Mutex
	progress := make(chan struct{})
	insertsDone := make(chan struct{})
	maxLag := churnLag(bs) * int64(len(clients))

	delErr := make(chan error, 1)
	go func() {
		err := b.deleter(ctx, env.DB, delRec, t, bs, &inserted, &deleted, wake, func() {
			progressMu.Lock()
			close(progress)
			progress = make(chan struct{})
			progressMu.Unlock()
		}, insertsDone)
		if err != nil {
			// The first error ends the step: an inserter waiting for the
			// deleter to catch up must not wait forever.
			cancel()
		}
		delErr <- err
	}()
	err := inserters(func(k int64) {
		inserted.Add(k)
		select {
		case wake <- struct{}{}:
		default:
		}
		// Wait (outside the measured insert) while the deleter is too far
		// behind; a cancelled step is noticed by insertRows' loop.
		for inserted.Load()-deleted.Load() > maxLag {
			progressMu.Lock()
			p := progress
			progressMu.Unlock()
			if inserted.Load()-deleted.Load() <= maxLag {
				break
			}
			select {
			case <-p:
			case <-ctx.Done():
				return
			}
		}
	})
	close(insertsDone)
	if err != nil {
		cancel()
		if derr := <-delErr; derr != nil && !errors.Is(derr, context.Canceled) {
			return derr // the deleter's failure cancelled the inserter
		}
		return err
	}
	return <-delErr
}

// deleter removes the oldest rows, batch by batch, as long as fewer rows have
// been deleted than inserted (and only committed ones, see tableState);
// after the inserts end it catches up exactly.
func (b *Bench) deleter(ctx context.Context, db model.DB, rec *measure.Recorder, t *tableState, bs int, inserted, deletedCount *atomic.Int64, wake <-chan struct{}, progress func(), insertsDone <-chan struct{}) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect deleter: %w", err)
	}
	defer conn.Close()
	var deleted int64
	from := make(model.Row, 1)
	for {
		// Read insertsDone before the count so a finished step sees the
		// final count.
		finished := false
		select {
		case <-insertsDone:
			finished = true
		default:
		}
		target := inserted.Load()
		// Rows in flight below a committed batch of another client: wait
		// for them (a wake follows their commit).
		if deleted >= target || (!finished && t.deletable() <= 0) {
			if finished {
				return nil
			}
			select {
			case <-wake:
			case <-insertsDone:
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		k := min(int64(bs), target-deleted)
		if !finished {
			// Once the inserts are done every batch has committed.
			k = min(k, t.deletable())
		}
		start := time.Now()
		from[0].Int = t.minPK.Load()
		got, err := conn.DeleteOldest(ctx, t.schema, from, int(k))
		rec.Record(opDelete, got, time.Since(start), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("delete from %s: %w", t.schema.Name, err)
		}
		if got == 0 {
			return fmt.Errorf("delete from %s: no rows left to delete (expected %d more)", t.schema.Name, target-deleted)
		}
		deleted += int64(got)
		t.minPK.Add(int64(got))
		deletedCount.Store(deleted)
		progress()
	}
}

// maintain is the maint step: the engine's own maintenance action
// (model.Maintainer), timed as one operation, so its cost is its own entry
// in the results and not hidden in the step that follows; then the quiesce
// (model.Quiescer): a wait, read from the engine, until the background work
// the write steps left (compaction, flush, purge, checkpoint, vacuum) has
// finished, bounded by QuiesceMaxSeconds; then a pause of
// QuiescePauseSeconds. What was waited for, and how long, goes to the
// step's details (design §13).
func (b *Bench) maintain(ctx context.Context, env *workload.Env) error {
	if m, ok := env.DB.(model.Maintainer); ok {
		rec := env.Clock.Recorder()
		start := time.Now()
		err := m.Maintain(ctx)
		rec.Record(opMaintain, 1, time.Since(start), err != nil)
		if err != nil {
			return fmt.Errorf("maintenance: %w", err)
		}
		env.Details["maintenance"] = "done"
	} else {
		env.Details["maintenance"] = "skipped: the engine has no maintenance action"
	}
	if q, ok := env.DB.(model.Quiescer); ok {
		limit := time.Duration(b.cfg.QuiesceMaxSeconds * float64(time.Second))
		if limit <= 0 {
			limit = QuiesceMax("")
		}
		qctx, cancel := context.WithTimeout(ctx, limit)
		waits, err := q.Quiesce(qctx)
		cancel()
		if err != nil {
			return fmt.Errorf("quiesce: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		env.Details["quiesce"] = waits
		reached := true
		for _, w := range waits {
			reached = reached && w.Reached
		}
		env.Details["quiesce_reached"] = reached
	} else {
		env.Details["quiesce"] = "nothing to wait for: the engine has no background work rumbench can read"
	}
	if p := b.cfg.QuiescePauseSeconds; p > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(p * float64(time.Second))):
		}
		env.Details["quiesce_pause_s"] = p
	}
	return nil
}

// QuiescePause is the pause after the quiesce when --quiesce-pause is auto:
// the insert benchmark's min(1200, 60 + rows/1M) seconds over the rows
// loaded, or the quick preset's 1 s (a first look: its engines settle in
// the wait).
func QuiescePause(preset string, totalRows int64) time.Duration {
	if preset == "quick" {
		return time.Second
	}
	return time.Duration(min(1200, 60+float64(totalRows)/1e6) * float64(time.Second))
}

// QuiesceMax bounds the wait when --quiesce-max is not given: a minute in
// the quick preset, an hour otherwise.
func QuiesceMax(preset string) time.Duration {
	if preset == "quick" {
		return time.Minute
	}
	return time.Hour
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
