// Package hotrow is the hot-row update workload (design §4.2): how fast can
// one popular row be updated? Each transaction adds 1 to a non-indexed
// counter of one row, found by PK in a large table, in autocommit. A sweep
// over tables × concurrency gives the published updates/s matrix and shows
// lock-manager and per-database-lock bottlenecks. With RowsPerTx K > 1 a
// transaction updates K distinct hot rows in a random order, so concurrent
// transactions can wait on each other in a cycle (deadlocks, lock-wait
// timeouts).
package hotrow

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"rumbench/internal/gen"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/units"
	"rumbench/internal/workload"
	"rumbench/internal/workload/retry"
)

// Column positions of a hot-row table.
const (
	ColID = iota
	ColCounter
	ColPad
	numCols
)

// StepLoad is the setup step that fills the tables in PK order.
const StepLoad = "load"

// loadBatch rows per load transaction: large enough that the load is not
// commit-bound, small enough for every engine's statement limits.
const loadBatch = 1000

// loadParallel bounds the tables loaded at once.
const loadParallel = 4

// Details keys of a cell's step summary (docs/hotrow.md, "Per cell").
const (
	DetailUpdatesPerS  = "updates_per_s"  // goodput: committed updates / window_s
	DetailAttemptsPerS = "attempts_per_s" // throughput: update attempts / window_s
	DetailWindowS      = "window_s"
	DetailCommitted    = "committed"
	DetailAttempts     = "attempts"
	DetailErrors       = "errors_by_kind"
	DetailRetries      = "retries"
	DetailExhausted    = "retries_exhausted"
	DetailTxnLatency   = "txn_latency_us"
	DetailCounterCheck = "counter_check"
	DetailCounterDelta = "counter_delta"
	DetailRetryPolicy  = "retry_policy"
	DetailTables       = "tables"
	DetailConcurrency  = "concurrency"
	DetailClientsSpan  = "clients_span"
	DetailDistribution = "distribution"
	DetailHotRows      = "hot_rows"
	DetailRowsPerTable = "rows_per_table"
	// Only with more than one row per transaction (Config.RowsPerTx):
	DetailRowsPerTx     = "rows_per_tx"
	DetailTxPerS        = "tx_per_s"     // committed transactions / window_s
	DetailRowsPerS      = "rows_per_s"   // rows updated by them / window_s
	DetailRowsUpdated   = "rows_updated" // committed transactions × rows_per_tx
	DetailTxOrder       = "tx_order"
	DetailAbandoned     = "abandoned_at_end"
	DetailCheckOK       = "ok"
	detailCheckSkipped  = "skipped: only the hot distribution's rows are read back (uniform and zipf touch the whole table)"
	detailCheckCanceled = "skipped: interrupted"
	detailCheckNull     = "skipped: the null engine keeps no rows"
)

// TableName returns the name of table number i (0-based): hr1, hr2, ...
func TableName(i int) string { return fmt.Sprintf("hr%d", i+1) }

// Table returns the schema of one hot-row table: id PK, a non-indexed
// counter, and a pad so rows are realistically sized.
func Table(name string, padBytes int) *model.Table {
	return &model.Table{
		Name: name,
		Columns: []model.Column{
			ColID:      {Name: "id", Type: model.Int},
			ColCounter: {Name: "counter", Type: model.Int},
			ColPad:     {Name: "pad", Type: model.String, MaxLen: max(padBytes, 1)},
		},
		PK: []int{ColID},
	}
}

type table struct {
	schema *model.Table
	// hot are the PKs of the hot rows (distribution hot), distinct.
	hot []int64
	// zipfOffset and zipfStride scatter Zipf ranks over the PK space so the
	// popular rows are not neighbours on one leaf page.
	zipfOffset, zipfStride uint64
	seed                   uint64
}

// Bench is the configured hot-row sweep.
type Bench struct {
	cfg    Config
	ops    measure.Ops
	dist   Distribution
	zipf   *gen.Zipf
	cells  []Cell
	tables []*table
	// fixedOrders, set by tests only, replaces the random draw of a
	// multi-row transaction's rows: client i updates the hot rows at
	// indexes fixedOrders[i mod len], in that order, every time.
	fixedOrders [][]int
}

// New validates cfg and returns the workload.
func New(cfg Config) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dist, _ := ParseDistribution(cfg.Distribution)
	b := &Bench{cfg: cfg, dist: dist, cells: cfg.Cells(), ops: ops}
	if k := cfg.TxRows(); k > 1 {
		b.ops = txOps(k)
	}
	if dist.Kind == DistZipf {
		b.zipf = gen.NewZipf(cfg.Rows, dist.Theta)
	}
	n := uint64(cfg.Rows)
	for i := 0; i < cfg.MaxTables(); i++ {
		t := &table{
			schema: Table(TableName(i), cfg.PadBytes),
			seed:   gen.Mix(uint64(cfg.Seed), uint64(i), 0x407),
		}
		t.hot = pickHot(t.seed, cfg.Rows, cfg.HotRows)
		t.zipfOffset = t.seed % n
		t.zipfStride = coprimeStride(n)
		b.tables = append(b.tables, t)
	}
	return b, nil
}

// pickHot chooses k distinct PKs uniformly from [1, rows], deterministically
// from seed.
func pickHot(seed uint64, rows int64, k int) []int64 {
	var r gen.Rand
	r.Seed(seed, 0x40f)
	out := make([]int64, 0, k)
	seen := make(map[int64]bool, k)
	if int64(k)*2 > rows {
		// Dense: a partial Fisher–Yates shuffle of all PKs avoids long
		// rejection runs.
		all := make([]int64, rows)
		for i := range all {
			all[i] = int64(i) + 1
		}
		for i := 0; i < k; i++ {
			j := int64(i) + r.IntN(rows-int64(i))
			all[i], all[j] = all[j], all[i]
		}
		return append(out, all[:k]...)
	}
	for len(out) < k {
		pk := 1 + r.IntN(rows)
		if !seen[pk] {
			seen[pk] = true
			out = append(out, pk)
		}
	}
	return out
}

// coprimeStride returns a stride near n/φ that is coprime with n, so
// rank ↦ (rank·stride + offset) mod n is a permutation of [0, n).
func coprimeStride(n uint64) uint64 {
	if n <= 2 {
		return 1
	}
	s := uint64(float64(n)*0.6180339887) | 1
	for gcd(s, n) != 1 {
		s += 2
	}
	return s % n
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Name implements workload.Workload.
func (b *Bench) Name() string { return "hotrow" }

// Config returns the configuration.
func (b *Bench) Config() Config { return b.cfg }

// Cells returns the cells the sweep runs, in order.
func (b *Bench) Cells() []Cell { return b.cells }

// Schema returns table i's schema (0-based).
func (b *Bench) Schema(i int) *model.Table { return b.tables[i].schema }

// HotRows returns table i's hot PKs (0-based).
func (b *Bench) HotRows(i int) []int64 { return b.tables[i].hot }

// Tables implements workload.Workload.
func (b *Bench) Tables() []string {
	out := make([]string, len(b.tables))
	for i, t := range b.tables {
		out[i] = t.schema.Name
	}
	return out
}

// Operation names the hot-row sweep records.
const (
	OpInsert = "insert"
	OpUpdate = "update"
)

// ops are the operations the sweep records: the load's inserts and the
// cells' updates (one per transaction, failed attempts as errors).
var ops = measure.Ops{
	{Name: OpInsert, Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i", RateLabel: "IPS", Desc: "load: rows inserted in PK order"},
	{Name: OpUpdate, Unit: measure.UnitOps, Role: measure.RoleWrite, Short: "u", RateLabel: "UPS", Desc: "one hot-row update attempt (counter = counter + 1 by PK, autocommit)"},
}

var opInsert, opUpdate = ops.Must(OpInsert), ops.Must(OpUpdate)

// txOps are the operations of a sweep whose transactions update k rows:
// the update operation, at the same index, counts transactions (its rows,
// the rows they updated), so its rate and per-operation costs are per
// committed transaction.
func txOps(k int) measure.Ops {
	o := slices.Clone(ops)
	u := &o[opUpdate]
	u.Short, u.RateLabel = "tx", "TPS"
	u.Desc = fmt.Sprintf("one transaction attempt updating %d distinct hot rows in a random order (counter = counter + 1 by PK each); rows: rows updated", k)
	return o
}

// Ops implements workload.Workload.
func (b *Bench) Ops() measure.Ops { return b.ops }

// Steps implements workload.Workload: the load, then one time-bounded step
// per cell, judged by its update rate.
func (b *Bench) Steps() []workload.Step {
	out := []workload.Step{{Name: StepLoad, MainOp: OpInsert, Work: b.cfg.Rows * int64(len(b.tables)), Run: b.load}}
	for _, c := range b.cells {
		cs := &cellRun{b: b, cell: c}
		out = append(out, workload.Step{Name: c.Name(), MainOp: OpUpdate, Seconds: b.cfg.CellSeconds, Steady: true, Setup: cs.setup, Run: cs.run})
	}
	return out
}

// Prepare implements workload.Workload: the tables are created afresh.
func (b *Bench) Prepare(ctx context.Context, db model.DB) error {
	for _, t := range b.tables {
		if err := db.CreateTable(ctx, t.schema); err != nil {
			return fmt.Errorf("create table %s: %w", t.schema.Name, err)
		}
	}
	return nil
}

// rowBytes is a row's logical size: two 8-byte integers and the pad.
func (b *Bench) rowBytes() int64 { return 16 + int64(b.cfg.PadBytes) }

func (b *Bench) liveBytes() int64 { return b.rowBytes() * b.cfg.Rows * int64(len(b.tables)) }

// load fills every table with cfg.Rows rows in PK order, counter 0, in
// batches of loadBatch, up to loadParallel tables at once.
func (b *Bench) load(ctx context.Context, env *workload.Env) error {
	env.Details["rows_per_commit"] = loadBatch
	env.Details[DetailRowsPerTable] = b.cfg.Rows
	next := make(chan *table, len(b.tables))
	for _, t := range b.tables {
		next <- t
	}
	close(next)
	err := workload.Parallel(ctx, min(loadParallel, len(b.tables)), func(ctx context.Context, _ int) error {
		rec := env.Clock.Recorder()
		conn, err := env.DB.Conn(ctx)
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		defer conn.Close()
		batch := newBatch(loadBatch, b.cfg.PadBytes)
		for t := range next {
			if err := b.loadTable(ctx, conn, rec, t, batch); err != nil {
				return err
			}
		}
		return nil
	})
	env.Details[workload.DetailLogicalBytesInserted] = b.liveBytes()
	env.Details[workload.DetailLogicalLiveBytes] = b.liveBytes()
	return err
}

func (b *Bench) loadTable(ctx context.Context, conn model.Conn, rec *measure.Recorder, t *table, batch []model.Row) error {
	var r gen.Rand
	for first := int64(1); first <= b.cfg.Rows; first += loadBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(loadBatch), b.cfg.Rows-first+1)
		rows := batch[:n]
		for i := range rows {
			pk := first + int64(i)
			r.Seed(t.seed, uint64(pk))
			rows[i][ColID].Int = pk
			rows[i][ColCounter].Int = 0
			rows[i][ColPad].Bytes = r.Pad(rows[i][ColPad].Bytes, b.cfg.PadBytes, 50)
		}
		start := time.Now()
		err := conn.Insert(ctx, t.schema, rows)
		rec.Record(opInsert, int(n), time.Since(start), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("load %s: %w", t.schema.Name, err)
		}
	}
	return nil
}

func newBatch(n, pad int) []model.Row {
	vals := make([]model.Value, n*numCols)
	rows := make([]model.Row, n)
	for i := range rows {
		rows[i] = vals[i*numCols : (i+1)*numCols : (i+1)*numCols]
		rows[i][ColPad].Bytes = make([]byte, 0, pad)
	}
	return rows
}

// clientStats are one client's counts for a cell; summed at the cell end.
type clientStats struct {
	attempts, committed, retries, exhausted int64
	// abandoned: multi-row transactions that failed after the cell's time
	// was up and were not run again.
	abandoned int64
	errs      [retry.NumErrKinds]int64
}

// client is one worker of a cell. Everything the hot path touches is
// allocated here, once per cell.
type client struct {
	b    *Bench
	conn model.Conn
	// tr is conn's transactions, used when a transaction updates several
	// rows; txPKs are that transaction's rows in the order it updates
	// them, drawn by a partial shuffle of perm (indexes of the table's hot
	// rows).
	tr      model.Transactor
	txPKs   []int64
	perm    []int
	fixed   []int
	rec     *measure.Recorder
	rnd     gen.Rand
	tables  []*table
	next    int
	pk      model.Row
	changes []model.Change
	// txn is the latency of a whole update including retries and backoff.
	txn   *hdr.Histogram
	stats clientStats
}

// pick returns the table and PK of the next update.
func (c *client) pick() (*table, int64) {
	t := c.tables[c.next]
	if c.next++; c.next == len(c.tables) {
		c.next = 0
	}
	n := c.b.cfg.Rows
	switch c.b.dist.Kind {
	case DistUniform:
		return t, 1 + c.rnd.IntN(n)
	case DistZipf:
		rank := uint64(c.b.zipf.Sample(&c.rnd) - 1)
		hi, lo := bits.Mul64(rank, t.zipfStride)
		// Both terms are below n <= 2^63, so the sum cannot overflow.
		pos := bits.Rem64(hi, lo, uint64(n)) + t.zipfOffset
		if pos >= uint64(n) {
			pos -= uint64(n)
		}
		return t, 1 + int64(pos)
	}
	if len(t.hot) == 1 {
		return t, t.hot[0]
	}
	return t, t.hot[c.rnd.IntN(int64(len(t.hot)))]
}

// pickTx draws the next multi-row transaction: a table as pick does, then
// K distinct hot rows of it, uniformly, in a uniformly random order (the
// first K steps of a Fisher–Yates shuffle), into c.txPKs. Two transactions
// on a table update some row pair in opposite orders with probability
// about 1/2 for K = 2, more for larger K: the cycles the lock manager must
// break.
func (c *client) pickTx() *table {
	t := c.tables[c.next]
	if c.next++; c.next == len(c.tables) {
		c.next = 0
	}
	if c.fixed != nil {
		for i, h := range c.fixed {
			c.txPKs[i] = t.hot[h]
		}
		return t
	}
	n := int64(len(c.perm))
	for i := range c.txPKs {
		j := int64(i) + c.rnd.IntN(n-int64(i))
		c.perm[i], c.perm[j] = c.perm[j], c.perm[i]
		c.txPKs[i] = t.hot[c.perm[i]]
	}
	return t
}

// attemptTx runs one attempt of a multi-row transaction: BEGIN, one
// UPDATE per row of c.txPKs in order, COMMIT. On any failure the
// transaction is rolled back before the error is returned, so the rows it
// changed are not counted (the engines roll back a lost transaction
// themselves, but MySQL's lock-wait timeout rolls back only the statement,
// and PostgreSQL's failed transaction stays open until ROLLBACK). A
// rollback that fails is an error of its own (kind "other": the outcome is
// unknown). missing reports a row not found, which ends the cell.
func (c *client) attemptTx(ctx context.Context, t *table) (missing bool, err error) {
	tx, err := c.tr.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("begin: %w", err)
	}
	fail := func(err error) error {
		if rb := tx.Rollback(context.WithoutCancel(ctx)); rb != nil {
			return fmt.Errorf("roll back after %v: %w", err, rb)
		}
		return err
	}
	for _, pk := range c.txPKs {
		c.pk[0].Int = pk
		found, err := tx.Update(ctx, t.schema, c.pk, c.changes)
		if err != nil {
			return false, fail(fmt.Errorf("update %s id=%d: %w", t.schema.Name, pk, err))
		}
		if !found {
			return true, fail(fmt.Errorf("update %s id=%d: row not found (was the load complete?)", t.schema.Name, pk))
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fail(fmt.Errorf("commit %s: %w", t.schema.Name, err))
	}
	return false, nil
}

// run updates until stop is set. It returns an error only for a failure
// that ends the cell: an "other" error, a missing row, or cancellation.
func (c *client) run(ctx context.Context, stop *atomic.Bool) error {
	if len(c.txPKs) > 1 {
		return c.runTx(ctx, stop)
	}
	maxRetries := c.b.cfg.MaxRetries
	for !stop.Load() {
		t, pk := c.pick()
		c.pk[0].Int = pk
		begin := time.Now()
		for attempt := 0; ; attempt++ {
			start := time.Now()
			found, err := c.conn.Update(ctx, t.schema, c.pk, c.changes)
			c.rec.Record(opUpdate, 1, time.Since(start), err != nil)
			c.stats.attempts++
			if err == nil {
				if !found {
					return fmt.Errorf("update %s id=%d: row not found (was the load complete?)", t.schema.Name, pk)
				}
				c.stats.committed++
				_ = c.txn.RecordValue(time.Since(begin).Microseconds())
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			kind := retry.Classify(err)
			c.stats.errs[kind]++
			if !kind.Retryable() {
				return fmt.Errorf("update %s id=%d: %w", t.schema.Name, pk, err)
			}
			if attempt >= maxRetries {
				c.stats.exhausted++
				break
			}
			c.stats.retries++
			time.Sleep(retry.Backoff(attempt, &c.rnd))
		}
	}
	return nil
}

// runTx is run for transactions of several rows. The retry policy is the
// single update's: a transient error rolls the whole transaction back and
// runs it again, the same rows in the same order (the application's
// transaction, retried), after the same backoff, up to MaxRetries times;
// but no attempt starts once the cell's time is up (the transaction is
// abandoned, counted apart), since with lock-wait timeouts of a second
// ten retries would stretch the cell far past its length.
// Each attempt is recorded as one update operation (its service time from
// BEGIN to COMMIT, or to the failure and its rollback) whose rows, when it
// commits, are the K rows it updated; txn is the latency of the whole
// transaction including retries and backoff, as for single updates.
func (c *client) runTx(ctx context.Context, stop *atomic.Bool) error {
	maxRetries := c.b.cfg.MaxRetries
	k := len(c.txPKs)
	for !stop.Load() {
		t := c.pickTx()
		begin := time.Now()
		for attempt := 0; ; attempt++ {
			start := time.Now()
			missing, err := c.attemptTx(ctx, t)
			c.rec.Record(opUpdate, k, time.Since(start), err != nil)
			c.stats.attempts++
			if err == nil {
				c.stats.committed++
				_ = c.txn.RecordValue(time.Since(begin).Microseconds())
				break
			}
			if missing {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			kind := retry.Classify(err)
			c.stats.errs[kind]++
			if !kind.Retryable() {
				return err
			}
			if attempt >= maxRetries {
				c.stats.exhausted++
				break
			}
			if stop.Load() {
				c.stats.abandoned++
				break
			}
			c.stats.retries++
			time.Sleep(retry.Backoff(attempt, &c.rnd))
		}
	}
	return nil
}

// cellRun runs one cell: C clients on T tables for CellSeconds. Its
// clients connect, and the hot rows are read for the counter check, in
// setup: before the window, so neither is measured as update time.
type cellRun struct {
	b       *Bench
	cell    Cell
	clients []*client
	check   bool
	before  int64
}

func (r *cellRun) setup(ctx context.Context, env *workload.Env) error {
	b, cell := r.b, r.cell
	d := env.Details
	d[DetailTables] = cell.Tables
	d[DetailConcurrency] = cell.Clients
	d[DetailClientsSpan] = b.cfg.ClientsSpan
	d[DetailDistribution] = b.dist.String()
	if b.dist.Kind == DistHot {
		d[DetailHotRows] = b.cfg.HotRows
	}
	d[DetailRowsPerTable] = b.cfg.Rows
	d[DetailRetryPolicy] = retry.PolicyText(b.cfg.MaxRetries)
	if k := b.cfg.TxRows(); k > 1 {
		d[DetailRowsPerTx] = k
		d[DetailTxOrder] = "each transaction updates " + fmt.Sprint(k) + " distinct hot rows of one table, drawn uniformly, in a random order"
		d[DetailRetryPolicy] = retry.TxPolicyText(b.cfg.MaxRetries)
	}
	d[workload.DetailLogicalBytesInserted] = int64(0)
	d[workload.DetailLogicalLiveBytes] = b.liveBytes()

	tables := b.tables[:cell.Tables]
	r.clients = make([]*client, cell.Clients)
	for i := range r.clients {
		conn, err := env.DB.Conn(ctx)
		if err != nil {
			r.close()
			return fmt.Errorf("connect client %d: %w", i+1, err)
		}
		c := &client{
			b:       b,
			conn:    conn,
			rec:     env.Clock.Recorder(),
			pk:      make(model.Row, 1),
			changes: []model.Change{{Col: ColCounter, Op: model.Add, Value: model.Value{Int: 1}}},
			txn:     measure.NewHistogram(),
		}
		c.rnd.Seed(gen.Mix(uint64(b.cfg.Seed), uint64(cell.Tables), uint64(cell.Clients)), uint64(i))
		if k := b.cfg.TxRows(); k > 1 {
			tr, ok := conn.(model.Transactor)
			if !ok {
				conn.Close()
				r.close()
				return fmt.Errorf("--rows-per-tx %d needs transactions of several statements, which engine %s does not have: use --rows-per-tx 1", k, env.DB.Info().Name)
			}
			c.tr, c.txPKs, c.perm = tr, make([]int64, k), make([]int, b.cfg.HotRows)
			for j := range c.perm {
				c.perm[j] = j
			}
			if len(b.fixedOrders) > 0 {
				c.fixed = b.fixedOrders[i%len(b.fixedOrders)]
			}
		}
		if b.cfg.ClientsSpan == SpanAll {
			// Every client cycles over every table, starting at a
			// different one so the tables are evenly loaded at any moment.
			c.tables = tables
			c.next = i % len(tables)
		} else {
			c.tables = tables[i%len(tables) : i%len(tables)+1]
		}
		r.clients[i] = c
	}

	// The null engine keeps no rows, so there is nothing to read back.
	r.check = b.dist.Kind == DistHot && env.DB.Info().Family != model.NoFamily
	if r.check {
		var err error
		if r.before, err = b.sumHot(ctx, env.DB, tables); err != nil {
			r.close()
			return fmt.Errorf("read hot rows before the cell: %w", err)
		}
	}
	return nil
}

func (r *cellRun) close() {
	for _, c := range r.clients {
		if c != nil && c.conn != nil {
			c.conn.Close()
		}
	}
	r.clients = nil
}

func (r *cellRun) run(ctx context.Context, env *workload.Env) error {
	defer r.close()
	b, cell, clients, check, before := r.b, r.cell, r.clients, r.check, r.before
	tables := b.tables[:cell.Tables]
	var stop atomic.Bool
	start := time.Now()
	// The cell runs for CellSeconds after its warm-up (none, or until the
	// steady-state rule holds).
	until := env.Clock.Deadline(time.Duration(b.cfg.CellSeconds * float64(time.Second)))
	wctx, cancel := context.WithCancel(ctx)
	go func() {
		if until.Wait(wctx) == nil {
			stop.Store(true)
		}
	}()
	// The context is not cut at the deadline: an update in flight finishes,
	// so its outcome is known and the counter check stays exact.
	err := workload.Parallel(ctx, len(clients), func(ctx context.Context, i int) error {
		if err := clients[i].run(ctx, &stop); err != nil {
			stop.Store(true)
			return err
		}
		return nil
	})
	cancel()
	elapsed := time.Since(start).Seconds()

	var tot clientStats
	txn := measure.NewHistogram()
	for _, c := range clients {
		tot.attempts += c.stats.attempts
		tot.committed += c.stats.committed
		tot.retries += c.stats.retries
		tot.exhausted += c.stats.exhausted
		tot.abandoned += c.stats.abandoned
		for k := range tot.errs {
			tot.errs[k] += c.stats.errs[k]
		}
		txn.Merge(c.txn)
	}
	d := env.Details
	k := int64(b.cfg.TxRows())
	d[DetailWindowS] = units.RoundHalfUp(elapsed, 3)
	d[DetailCommitted] = tot.committed
	d[DetailAttempts] = tot.attempts
	if k > 1 {
		d[DetailRowsUpdated] = tot.committed * k
		d[DetailAbandoned] = tot.abandoned
	}
	if elapsed > 0 {
		if k > 1 {
			d[DetailTxPerS] = units.RoundHalfUp(float64(tot.committed)/elapsed, 1)
			d[DetailRowsPerS] = units.RoundHalfUp(float64(tot.committed*k)/elapsed, 1)
		} else {
			d[DetailUpdatesPerS] = units.RoundHalfUp(float64(tot.committed)/elapsed, 1)
		}
		d[DetailAttemptsPerS] = units.RoundHalfUp(float64(tot.attempts)/elapsed, 1)
	}
	byKind := make(map[string]int64, retry.NumErrKinds)
	for k := retry.ErrKind(0); k < retry.NumErrKinds; k++ {
		byKind[k.String()] = tot.errs[k]
	}
	d[DetailErrors] = byKind
	d[DetailRetries] = tot.retries
	d[DetailExhausted] = tot.exhausted
	if txn.TotalCount() > 0 {
		d[DetailTxnLatency] = measure.Summarize(txn)
	}
	if err != nil {
		return err
	}

	switch {
	case env.DB.Info().Family == model.NoFamily:
		d[DetailCounterCheck] = detailCheckNull
	case !check:
		d[DetailCounterCheck] = detailCheckSkipped
	case ctx.Err() != nil:
		d[DetailCounterCheck] = detailCheckCanceled
	default:
		after, err := b.sumHot(ctx, env.DB, tables)
		if err != nil {
			return fmt.Errorf("read hot rows after the cell: %w", err)
		}
		d[DetailCounterDelta] = after - before
		if after-before != tot.committed*k {
			d[DetailCounterCheck] = "FAILED"
			if k > 1 {
				return fmt.Errorf("lost or partial updates: the hot rows' counters grew by %d but %d transactions of %d rows committed (%d rows)", after-before, tot.committed, k, tot.committed*k)
			}
			return fmt.Errorf("lost updates: the hot rows' counters grew by %d but %d updates committed", after-before, tot.committed)
		}
		d[DetailCounterCheck] = DetailCheckOK
	}
	return ctx.Err()
}

// SumHot returns the sum of the counters of the hot rows of the first n
// tables, read on a fresh connection.
func (b *Bench) SumHot(ctx context.Context, db model.DB, n int) (int64, error) {
	return b.sumHot(ctx, db, b.tables[:n])
}

func (b *Bench) sumHot(ctx context.Context, db model.DB, tables []*table) (int64, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	var sum int64
	for _, t := range tables {
		keys := make([]model.Row, len(t.hot))
		for i, pk := range t.hot {
			keys[i] = model.Row{{Int: pk}}
		}
		got, err := conn.Get(ctx, t.schema, keys, func(r model.Row) { sum += r[ColCounter].Int })
		if err != nil {
			return 0, fmt.Errorf("get hot rows of %s: %w", t.schema.Name, err)
		}
		if got != len(keys) {
			return 0, fmt.Errorf("get hot rows of %s: found %d of %d", t.schema.Name, got, len(keys))
		}
	}
	return sum, nil
}
