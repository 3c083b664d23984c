package ibench

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"rumbench/internal/gen"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/ratesearch"
	"rumbench/internal/units"
	"rumbench/internal/workload"
)

// Query step names: qr = range queries, qp = point queries; the number is
// each client's insert rate in rows/s while the queries run.
const (
	StepQR100  = "qr100"
	StepQP100  = "qp100"
	StepQR500  = "qr500"
	StepQP500  = "qp500"
	StepQR1000 = "qr1000"
	StepQP1000 = "qp1000"
)

// queryRows is how many index entries a range query reads and how many PKs a
// point query fetches (design §4.1).
const queryRows = 10

// QueryYield is how often a query worker on an in-process engine lets
// other goroutines run (see queryWorker).
const QueryYield = 500 * time.Microsecond

type queryKind int

const (
	rangeQuery queryKind = iota
	pointQuery
	// noQuery: the paced writers and deleters alone (l.max's probes).
	noQuery
)

func (k queryKind) String() string {
	if k == pointQuery {
		return "point"
	}
	return "range"
}

// querySteps are the read-write steps: query kind and insert rate per client.
var querySteps = map[string]struct {
	kind queryKind
	rate float64
}{
	StepQR100:  {rangeQuery, 100},
	StepQP100:  {pointQuery, 100},
	StepQR500:  {rangeQuery, 500},
	StepQP500:  {pointQuery, 500},
	StepQR1000: {rangeQuery, 1000},
	StepQP1000: {pointQuery, 1000},
}

// The query step's workers' names under workload.WorkerLabel.
const (
	WorkerQuery   = "query"
	workerWriter  = "writer"
	workerDeleter = "deleter"
)

func workerLabels(name string) pprof.LabelSet { return pprof.Labels(workload.WorkerLabel, name) }

// queryStats is one client's (writer, query worker) or one table's (deleter)
// outcome of a query step. Each field is written by one worker only and read
// after they all finished.
type queryStats struct {
	// writer
	targetRows  int64
	inserted    int64
	missedTxns  int64
	missedRows  int64
	backlogTxns int64
	// deleter
	deleted        int64
	delMissedTxns  int64
	delCatchupRows int64
	// query worker
	queries int64
	found   int64
	// paced query worker (--query-rate): slots scheduled and missed
	queryTarget int64
	queryMissed int64
	// probe, when set (l.max), records the writer's response times and
	// rows within a probe's measured window.
	probe *ratesearch.Window
}

// queryStep is qr*/qp*: per client one query worker in a closed loop and a
// writer inserting at rate rows/s on a schedule, and per table a deleter
// removing as many of the oldest rows as the table's writers insert, for
// --query-seconds.
func (b *Bench) queryStep(kind queryKind, rate float64) func(context.Context, *workload.Env) error {
	return func(ctx context.Context, env *workload.Env) error {
		bs := b.batchSize(churnBigBatch)
		qc := b.qconns
		b.qconns = nil
		if qc == nil {
			// Run without its Setup (a test calling the step directly).
			if err := b.querySetup(ctx, env); err != nil {
				return err
			}
			qc, b.qconns = b.qconns, nil
		}
		defer qc.close()
		b.settle()
		start := time.Now()
		// The warm-up (fixed, or until the steady-state rule holds) runs
		// the same load first; the clock leaves it out.
		until := env.Clock.Deadline(time.Duration(b.cfg.QuerySeconds * float64(time.Second)))
		stats, err := b.pacedRun(ctx, env, qc, kind, rate, bs, start, until, nil)
		b.queryDetails(env, kind, rate, bs, stats)
		return err
	}
}

// queryConns are a query step's connections, opened by its Setup before the
// clock starts: per client a writer and a query worker, per table a deleter.
type queryConns struct {
	writers, queriers []model.Conn
	deleters          []model.Conn // nil with --no-deletes
}

func (qc *queryConns) close() {
	for _, cs := range [][]model.Conn{qc.writers, qc.queriers, qc.deleters} {
		for _, c := range cs {
			if c != nil {
				c.Close()
			}
		}
	}
}

// querySetup is a query step's Setup: it reads each table's lowest PK (the
// deleters' bound) and opens the step's connections, so neither counts in
// the step's first interval nor in the client's CPU.
func (b *Bench) querySetup(ctx context.Context, env *workload.Env) error {
	if b.qconns != nil {
		// A setup whose step never ran.
		b.qconns.close()
		b.qconns = nil
	}
	if err := b.forEachTable(ctx, func(ctx context.Context, i int) error {
		return syncLowerBound(ctx, env.DB, b.tables[i])
	}); err != nil {
		return err
	}
	nc, nt := len(b.clients), len(b.tables)
	qc := &queryConns{writers: make([]model.Conn, nc), queriers: make([]model.Conn, nc)}
	if !b.cfg.NoDeletes {
		qc.deleters = make([]model.Conn, nt)
	}
	open := func(dst []model.Conn, what string) error {
		for i := range dst {
			c, err := env.DB.Conn(ctx)
			if err != nil {
				return fmt.Errorf("connect %s: %w", what, err)
			}
			dst[i] = c
		}
		return nil
	}
	for _, o := range []struct {
		dst  []model.Conn
		what string
	}{{qc.writers, "writer"}, {qc.queriers, "query worker"}, {qc.deleters, "deleter"}} {
		if err := open(o.dst, o.what); err != nil {
			qc.close()
			return err
		}
	}
	b.qconns = qc
	return nil
}

// pacedRun runs the paced load of a query step (kind noQuery: the writers
// and deleters only) from start until the deadline: per client a writer at
// rate rows/s (and a query worker), per table a deleter. probes, when set,
// are each client's writer's probe record (l.max).
func (b *Bench) pacedRun(ctx context.Context, env *workload.Env, qc *queryConns, kind queryKind, rate float64, bs int, start time.Time, until *measure.Deadline, probes []*ratesearch.Window) ([]queryStats, error) {
	nc, nt := len(b.clients), len(b.tables)
	stats := make([]queryStats, nc+nt) // clients, then tables' deleters
	for k := range probes {
		stats[k].probe = probes[k]
	}
	inserted := make([]atomic.Int64, nt)
	writersLeft := make([]atomic.Int64, nt)
	writersDone := make([]chan struct{}, nt)
	for i := range nt {
		writersLeft[i].Store(int64(b.tables[i].clients))
		writersDone[i] = make(chan struct{})
	}
	err := runAll(ctx, nc+nt, func(ctx context.Context, k int) error {
		if k < nc {
			i := b.clients[k].table
			return b.queryClient(ctx, env, qc, k, kind, rate, bs, start, until, &stats[k], &inserted[i], func() {
				if writersLeft[i].Add(-1) == 0 {
					close(writersDone[i])
				}
			})
		}
		if b.cfg.NoDeletes {
			// The tables grow: the writers insert and nobody deletes.
			return nil
		}
		i := k - nc
		t := b.tables[i]
		period := time.Duration(float64(bs) / rate * float64(time.Second))
		backlog := measure.DefaultBacklog(period)
		// A delete is due half a period after the table's first
		// client's insert, by when that insert has normally committed;
		// the slots come as often as the table's writers insert. The
		// schedule ends with the step, so a last slot past it is left
		// to the deleter's final catch-up rather than lengthening the
		// step.
		off := period*time.Duration(t.index)/time.Duration(b.cfg.Clients) + period/2
		del := measure.NewScheduleUntil(start.Add(off), until, bs, rate*float64(t.clients), backlog).
			WithArrivals(b.arrivals(), b.arrivalSeed(streamDeleter, i))
		var err error
		pprof.Do(ctx, workerLabels(workerDeleter), func(ctx context.Context) {
			err = b.pacedDeleter(ctx, qc.deleters[i], env.Clock.Recorder(), t, del, bs, &inserted[i], writersDone[i], &stats[k])
		})
		return err
	})
	return stats, err
}

// queryDetails adds the step's rate-limit and query results to the summary
// (documented in docs/design.md).
func (b *Bench) queryDetails(env *workload.Env, kind queryKind, rate float64, bs int, stats []queryStats) {
	var tot queryStats
	for _, s := range stats {
		tot.targetRows += s.targetRows
		tot.inserted += s.inserted
		tot.missedTxns += s.missedTxns
		tot.missedRows += s.missedRows
		tot.deleted += s.deleted
		tot.delMissedTxns += s.delMissedTxns
		tot.delCatchupRows += s.delCatchupRows
		tot.queries += s.queries
		tot.found += s.found
		tot.queryTarget += s.queryTarget
		tot.queryMissed += s.queryMissed
		tot.backlogTxns = max(tot.backlogTxns, s.backlogTxns)
	}
	// The paced operations' targets, judged on the step's summary (the
	// writers' SLA; with the version 1 keys ips_target, target_met,
	// target_met_pct and ips_pct_of_target in the details).
	env.Pace(OpInsert, "writers", rate*float64(len(b.clients)))
	if b.cfg.QueryRate > 0 {
		env.Pace(OpQuery, "queries", b.cfg.QueryRate*float64(len(b.clients)))
	}
	d := env.Details
	d["query"] = kind.String()
	d["query_rows"] = queryRows
	d["query_seconds"] = b.cfg.QuerySeconds
	d["rows_per_commit"] = bs
	d["ips_target_per_client"] = rate
	d["target_rows"] = tot.targetRows
	d["missed_txns"] = tot.missedTxns
	d["missed_rows"] = tot.missedRows
	d["backlog_txns"] = tot.backlogTxns
	d["delete_missed_txns"] = tot.delMissedTxns
	b.growthDetails(d, tot.inserted-tot.deleted)
	d["delete_catchup_rows"] = tot.delCatchupRows
	if b.cfg.QueryRate > 0 {
		d["query_rate_target"] = b.cfg.QueryRate * float64(len(b.clients))
		d["query_target_count"] = tot.queryTarget
		d["query_missed"] = tot.queryMissed
	}
	if b.cfg.Arrivals != "" && b.cfg.Arrivals != "fixed" {
		d["arrivals"] = b.cfg.Arrivals
	}
	if tot.queries > 0 {
		// rows_found adds over shards; rumbench merge recomputes
		// rows_per_query from it.
		d["rows_found"] = tot.found
		d["rows_per_query"] = units.Round(float64(tot.found)/float64(tot.queries), 2)
	}
}

// queryClient runs one client's writer and query worker until the step's
// end and waits for both. The writer adds its rows to inserted (its
// table's count) and calls writerDone when it ends.
func (b *Bench) queryClient(ctx context.Context, env *workload.Env, qc *queryConns, c int, kind queryKind, rate float64, bs int, start time.Time, until *measure.Deadline, st *queryStats, inserted *atomic.Int64, writerDone func()) error {
	period := time.Duration(float64(bs) / rate * float64(time.Second))
	// Stagger the clients' schedules across one period so their commits do
	// not all land at the same instant.
	off := period * time.Duration(b.clients[c].index) / time.Duration(b.cfg.Clients)
	backlog := measure.DefaultBacklog(period)
	ins := measure.NewScheduleUntil(start.Add(off), until, bs, rate, backlog).WithArrivals(b.arrivals(), b.arrivalSeed(streamWriter, c))
	st.backlogTxns = int64(backlog)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2)
	insRec, qRec := env.Clock.Recorder(), env.Clock.Recorder()
	go pprof.Do(ctx, workerLabels(workerWriter), func(ctx context.Context) {
		err := b.pacedWriter(ctx, qc.writers[c], insRec, b.clients[c], ins, bs, inserted, st)
		writerDone()
		errs <- err
	})
	workers := 2
	if kind == noQuery {
		workers = 1
	}
	yield := env.DB.Info().Kind != model.Server
	var qs *measure.Schedule
	if b.cfg.QueryRate > 0 {
		qperiod := time.Duration(float64(time.Second) / b.cfg.QueryRate)
		qoff := qperiod * time.Duration(b.clients[c].index) / time.Duration(b.cfg.Clients)
		qs = measure.NewScheduleUntil(start.Add(qoff), until, 1, b.cfg.QueryRate, measure.DefaultBacklog(qperiod)).
			WithArrivals(b.arrivals(), b.arrivalSeed(streamQuery, c))
	}
	if kind != noQuery {
		go pprof.Do(ctx, workerLabels(WorkerQuery), func(ctx context.Context) {
			errs <- b.queryWorker(ctx, qc.queriers[c], yield, qRec, c, kind, rate, until, qs, st)
		})
	}
	// The first failure cancels the others, so it is the one to report.
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}

// recordSkipped records the response time, as of now, of schedule slots
// [slot-skipped, slot) that were skipped as missed: they were due and never
// ran, so users would have waited at least this long. They carry no rows.
func recordSkipped(rec *measure.Recorder, op measure.Op, s *measure.Schedule, slot, skipped int64, now time.Time) {
	for i := slot - skipped; i < slot; i++ {
		rec.Record(op, 0, now.Sub(s.At(i)), false)
	}
}

// pacedWriter inserts bs rows at each slot of s, recording service time
// (send to reply) under OpInsert and response time (intended start to
// reply) under OpInsertResponse.
func (b *Bench) pacedWriter(ctx context.Context, conn model.Conn, rec *measure.Recorder, cl *clientState, s *measure.Schedule, bs int, inserted *atomic.Int64, st *queryStats) error {
	t := cl.t
	defer func() {
		// The schedule's length is final when the step ends (its deadline
		// moves when a steady-state warm-up ends).
		st.targetRows = s.Len() * int64(bs)
		st.missedTxns = s.Missed()
		st.missedRows = s.Missed() * int64(bs)
	}()
	batch := NewBatch(bs, b.cfg.PadMax)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		now := time.Now()
		slot, at, skipped, ok := s.Next(now)
		recordSkipped(rec, opInsertResponse, s, slot, skipped, now)
		st.probe.RecordSkipped(s, slot, skipped, now)
		if !ok {
			return nil
		}
		if err := measure.SleepUntil(ctx, timer, at); err != nil {
			return err
		}
		first := t.reserve(int64(bs))
		rows := cl.gen.Fill(batch, first, bs, time.Now().Unix())
		sent := time.Now()
		err := conn.Insert(ctx, t.schema, rows)
		done := time.Now()
		rec.Record(opInsert, bs, done.Sub(sent), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("insert into %s: %w", t.schema.Name, err)
		}
		rec.Record(opInsertResponse, bs, done.Sub(at), false)
		if st.probe != nil {
			st.probe.Record(done, done.Sub(at), int64(bs))
		}
		t.commit(first, int64(bs))
		inserted.Add(int64(bs))
		st.inserted += int64(bs)
	}
}

// pacedDeleter deletes the oldest rows at each slot of s: up to bs rows, never
// more than the table's writers have inserted in this step, nor at or above
// a batch still in flight. A slot with nothing to delete yet is passed over;
// after the schedule ends and the writers are done it
// deletes whatever is left (unscheduled, service time only), so the table
// ends the step with as many rows as it started with.
func (b *Bench) pacedDeleter(ctx context.Context, conn model.Conn, rec *measure.Recorder, t *tableState, s *measure.Schedule, bs int, inserted *atomic.Int64, writerDone <-chan struct{}, st *queryStats) error {
	defer func() { st.delMissedTxns = s.Missed() }()
	from := make(model.Row, 1)
	del := func(k int64, at time.Time) error {
		from[0].Int = t.minPK.Load()
		sent := time.Now()
		got, err := conn.DeleteOldest(ctx, t.schema, from, int(k))
		done := time.Now()
		rec.Record(opDelete, got, done.Sub(sent), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("delete from %s: %w", t.schema.Name, err)
		}
		if !at.IsZero() {
			rec.Record(opDeleteResponse, got, done.Sub(at), false)
		}
		if got == 0 {
			return fmt.Errorf("delete from %s: no rows left to delete (expected %d)", t.schema.Name, k)
		}
		st.deleted += int64(got)
		t.minPK.Add(int64(got))
		return nil
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		now := time.Now()
		slot, at, skipped, ok := s.Next(now)
		recordSkipped(rec, opDeleteResponse, s, slot, skipped, now)
		if !ok {
			break
		}
		if err := measure.SleepUntil(ctx, timer, at); err != nil {
			return err
		}
		k := min(int64(bs), inserted.Load()-st.deleted, t.deletable())
		if k <= 0 {
			continue
		}
		if err := del(k, at); err != nil {
			return err
		}
	}
	select {
	case <-writerDone:
	case <-ctx.Done():
		return ctx.Err()
	}
	for {
		k := min(int64(bs), inserted.Load()-st.deleted)
		if k <= 0 {
			return nil
		}
		before := st.deleted
		if err := del(k, time.Time{}); err != nil {
			return err
		}
		st.delCatchupRows += st.deleted - before
	}
}

// querier generates and runs one client's queries. Its bound, key rows and
// callbacks are allocated once, so a query allocates nothing in the client.
type querier struct {
	t     *tableState
	conn  model.Conn
	rnd   gen.Rand
	lower model.Row
	keys  []model.Row
	n     int
	// scanFn and getFn count the rows of the current query.
	scanFn func(model.Row) bool
	getFn  func(model.Row)
}

func newQuerier(t *tableState, conn model.Conn, seed uint64, client int, salt uint64) *querier {
	q := &querier{t: t, conn: conn, lower: make(model.Row, 1), keys: make([]model.Row, queryRows)}
	vals := make([]model.Value, queryRows)
	for i := range q.keys {
		q.keys[i] = vals[i : i+1 : i+1]
	}
	q.rnd.Seed(gen.Mix(seed, uint64(client), salt), 0x71)
	q.scanFn = func(model.Row) bool { q.n++; return true }
	q.getFn = func(model.Row) { q.n++ }
	return q
}

// rangeQuery reads queryRows covering entries >= a random bound of a random
// secondary index, in index order; without secondary indexes it reads
// queryRows PK entries from a random existing key.
func (q *querier) rangeQuery(ctx context.Context) (int, error) {
	schema := q.t.schema
	spec := model.ScanSpec{Index: -1, Lower: q.lower, Limit: queryRows, Cols: model.NoCols} // scanFn counts
	if k := len(schema.Indexes); k > 0 {
		spec.Index = int(q.rnd.IntN(int64(k)))
		q.lower[0].Int = q.rnd.IntN(LeadingDomain(schema, spec.Index))
	} else {
		lo, hi := q.t.minPK.Load(), q.t.nextPK.Load()-1
		if hi < lo {
			return 0, nil
		}
		q.lower[0].Int = lo + q.rnd.IntN(hi-lo+1)
	}
	q.n = 0
	if _, err := q.conn.Scan(ctx, schema, spec, q.scanFn); err != nil {
		return q.n, fmt.Errorf("range query on %s: %w", schema.Name, err)
	}
	return q.n, nil
}

// pointQuery fetches queryRows random PKs between the table's current
// smallest and largest; rows deleted meanwhile are simply not found.
func (q *querier) pointQuery(ctx context.Context) (int, error) {
	lo, hi := q.t.minPK.Load(), q.t.nextPK.Load()-1
	if hi < lo {
		return 0, nil
	}
	for _, k := range q.keys {
		k[0].Int = lo + q.rnd.IntN(hi-lo+1)
	}
	q.n = 0
	if _, err := q.conn.Get(ctx, q.t.schema, q.keys, q.getFn); err != nil {
		return q.n, fmt.Errorf("point query on %s: %w", q.t.schema.Name, err)
	}
	return q.n, nil
}

// queryWorker runs queries back to back (closed loop) until the deadline, recording
// each under OpQuery with the rows it returned.
func (b *Bench) queryWorker(ctx context.Context, conn model.Conn, yield bool, rec *measure.Recorder, c int, kind queryKind, rate float64, until *measure.Deadline, sched *measure.Schedule, st *queryStats) error {
	t := b.clients[c].t
	// Each step draws its own deterministic query stream.
	q := newQuerier(t, conn, uint64(b.cfg.Seed), c, uint64(rate)<<1|uint64(kind))
	run := q.rangeQuery
	if kind == pointQuery {
		run = q.pointQuery
	}
	if sched != nil {
		return b.pacedQueries(ctx, rec, run, sched, st)
	}
	// A query on a server engine waits for the reply, parked or blocked
	// in recv with a P to spare (blockconn), and the writer runs then; a
	// yield per 500 µs cost a tenth of a MariaDB qr100 worker's CPU.
	lastYield := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		sent := time.Now()
		if until.Passed(sent) {
			return nil
		}
		// A closed loop on every core would leave a writer that wakes on
		// time waiting up to a scheduler time slice (10 ms) for a CPU, and
		// miss its schedule for the client's sake, not the engine's: an
		// in-process engine's worker yields every QueryYield.
		if yield && sent.Sub(lastYield) >= QueryYield {
			runtime.Gosched()
			lastYield = sent
		}
		n, err := run(ctx)
		rec.Record(opQuery, n, time.Since(sent), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		st.queries++
		st.found += int64(n)
	}
}

// pacedQueries runs one client's queries at the slots of s (--query-rate):
// service time (send to reply) under query, response time (intended start
// to reply) under query_response, and the slots the backlog rule skipped
// as missed with their response time so far.
func (b *Bench) pacedQueries(ctx context.Context, rec *measure.Recorder, run func(context.Context) (int, error), s *measure.Schedule, st *queryStats) error {
	defer func() { st.queryMissed, st.queryTarget = s.Missed(), s.Len() }()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		now := time.Now()
		slot, at, skipped, ok := s.Next(now)
		recordSkipped(rec, opQueryResponse, s, slot, skipped, now)
		if !ok {
			return nil
		}
		if err := measure.SleepUntil(ctx, timer, at); err != nil {
			return err
		}
		sent := time.Now()
		n, err := run(ctx)
		done := time.Now()
		rec.Record(opQuery, n, done.Sub(sent), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		rec.Record(opQueryResponse, n, done.Sub(at), false)
		st.queries++
		st.found += int64(n)
	}
}

// Arrival streams: each paced worker draws its own Poisson arrivals.
const (
	streamWriter = iota
	streamDeleter
	streamQuery
)

// arrivals is the paced operations' spacing (validated with the config).
func (b *Bench) arrivals() measure.Arrivals {
	a, _ := measure.ParseArrivals(b.cfg.Arrivals)
	return a
}

// arrivalSeed seeds worker i's arrivals of one stream: the same --seed
// gives the same timetables.
func (b *Bench) arrivalSeed(stream, i int) uint64 {
	return uint64(b.cfg.Seed)*0x9e3779b97f4a7c15 + uint64(stream)<<32 + uint64(i)
}

// queryStepFunc returns the stepFuncs entry of query step name.
func queryStepFunc(name string) func(*Bench) func(context.Context, *workload.Env) error {
	q := querySteps[name]
	return func(b *Bench) func(context.Context, *workload.Env) error { return b.queryStep(q.kind, q.rate) }
}
