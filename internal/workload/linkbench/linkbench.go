package linkbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"rumbench/internal/gen"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/units"
	"rumbench/internal/workload"
	"rumbench/internal/workload/hotrow"
)

// Step names.
const (
	StepLoad    = "load"
	StepRequest = "request"
)

// Operation names besides the request types.
const (
	OpInsert          = "insert"
	OpRequest         = "request"
	OpRequestResponse = "request_response"
)

// Details keys of the steps' summaries.
const (
	DetailNodes          = "nodes"
	DetailLinks          = "links"
	DetailCounts         = "count_rows"
	DetailAvgDegree      = "avg_out_degree"
	DetailRowsPerCommit  = "rows_per_commit"
	DetailLoaders        = "loaders"
	DetailRequesters     = "requesters"
	DetailMix            = "mix"
	DetailSizeStart      = "size_start_bytes"
	DetailSizeEnd        = "size_end_bytes"
	DetailSizeGrowth     = "size_growth_bytes"
	DetailRetries        = "retries"
	DetailFailed         = "requests_failed"
	DetailErrors         = "errors_by_kind"
	DetailLinksPerList   = "links_per_get_link_list"
	DetailNodesAdded     = "nodes_added"
	DetailMissed         = "missed_slots"
	DetailTargetRate     = "request_rate_target"
	DetailRequestsByType = "requests_by_type"
)

// ops: the load's inserted rows (nodes, links and counts), the request
// step's requests (the main operation, so per-request CPU and KB come out),
// and each request type apart.
var ops = func() measure.Ops {
	o := measure.Ops{
		{Name: OpInsert, Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i", RateLabel: "IPS", Desc: "load: rows inserted (nodes, links, counts)"},
		{Name: OpRequest, Unit: measure.UnitOps, Role: measure.RoleWrite, Short: "req", RateLabel: "req/s", Desc: "one request of any type, one transaction (retries included)"},
		{Name: OpRequestResponse, Unit: measure.UnitOps, Role: measure.RoleNone, ResponseOf: OpRequest, Desc: "paced request: latency from its intended start"},
	}
	// Each request type is a part of the request mix: its count and
	// latency are its own, but its rate is a random share of the
	// requests' (a type at 0.5% of 900 req/s has seconds without one), and
	// the step's writes cannot be divided among the types. The requests
	// are judged; the types are not (measure.OpSpec.PartOf).
	for _, name := range RequestTypes {
		kind := "read"
		switch name {
		case OpAddLink, OpUpdateLink, OpDeleteLink, OpAddNode, OpUpdateNode, OpDeleteNode:
			kind = "write"
		}
		o = append(o, measure.OpSpec{Name: name, Unit: measure.UnitOps, Role: measure.RoleNone, PartOf: OpRequest,
			Desc: "request type " + name + " (a " + kind + "): count, errors and latency"})
	}
	return o
}()

var (
	opInsert   = ops.Must(OpInsert)
	opRequest  = ops.Must(OpRequest)
	opResponse = ops.Must(OpRequestResponse)
	opType     = func() (out [len(Mix{})]measure.Op) {
		for i, n := range RequestTypes {
			out[i] = ops.Must(n)
		}
		return out
	}()
)

// Ops returns the operation set (for tests and tools).
func Ops() measure.Ops { return ops }

// Bench is a configured LinkBench run.
type Bench struct {
	cfg    Config
	g      *graph
	node   *model.Table
	link   *model.Table
	count  *model.Table
	nextID atomic.Int64 // the next id add_node gives
	// written is the logical bytes the requests have written so far,
	// live (the step's total is summed from the requesters at its end).
	written atomic.Int64
	// liveBytes is the logical size after the load.
	liveBytes int64
	// ready is the request step's state from its Setup.
	ready *requestSetup
}

// requestSetup is what the request step's Setup prepares before the clock
// starts: the requesters' connections and the database's size at the start.
type requestSetup struct {
	reqs      []*requester
	sizeStart int64
}

func (r *requestSetup) close() {
	for _, q := range r.reqs {
		if q != nil {
			q.close()
		}
	}
}

// New validates cfg and returns the workload.
func New(cfg Config) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bench{cfg: cfg, g: newGraph(&cfg), node: NodeSchema(cfg.maxNodeData()), link: LinkSchema(), count: CountSchema()}
	b.nextID.Store(cfg.Nodes + 1)
	return b, nil
}

// Name implements workload.Workload.
func (b *Bench) Name() string { return "linkbench" }

// Ops implements workload.Workload.
func (b *Bench) Ops() measure.Ops { return ops }

// Tables implements workload.Workload.
func (b *Bench) Tables() []string { return []string{NodeTable, LinkTable, CountTable} }

// Schemas returns the three tables.
func (b *Bench) Schemas() (node, link, count *model.Table) { return b.node, b.link, b.count }

// Prepare implements workload.Workload. With the load step the tables are
// created afresh, with link's secondary index, as LinkBench's schema has
// them during the load. Without it they must be there from an earlier load,
// and add_node continues above the largest node id.
func (b *Bench) Prepare(ctx context.Context, db model.DB) error {
	if !b.cfg.has(StepLoad) {
		tables, err := db.Tables(ctx)
		if err != nil {
			return fmt.Errorf("list tables: %w", err)
		}
		found := 0
		for _, t := range tables {
			if t.Name == NodeTable || t.Name == CountTable || t.Name == LinkTable && len(t.Indexes) == 1 {
				found++
			}
		}
		if found != 3 {
			return fmt.Errorf("%w: the request step needs the tables of a linkbench load (node, link with its index, count): run --steps load,request, or give the data dir of an earlier load", workload.ErrNotPrepared)
		}
		c, err := db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		defer c.Close()
		if _, err := c.Scan(ctx, b.node, model.ScanSpec{Index: -1, Desc: true, Limit: 1}, func(r model.Row) bool {
			b.nextID.Store(max(b.cfg.Nodes, r[0].Int) + 1)
			return false
		}); err != nil {
			return fmt.Errorf("read the largest node id: %w", err)
		}
		return nil
	}
	for _, t := range []*model.Table{b.node, b.link, b.count} {
		if err := db.CreateTable(ctx, t); err != nil {
			return fmt.Errorf("create table %s: %w", t.Name, err)
		}
		if len(t.Indexes) > 0 {
			if err := db.CreateIndexes(ctx, t); err != nil {
				return fmt.Errorf("create the indexes of %s: %w", t.Name, err)
			}
		}
	}
	return nil
}

// Steps implements workload.Workload.
func (b *Bench) Steps() []workload.Step {
	req := workload.Step{Name: StepRequest, MainOp: OpRequest, Seconds: b.cfg.RequestSeconds, Steady: b.cfg.RequestSeconds > 0, Setup: b.setupRequests, Run: b.request, LogicalBytes: b.written.Load}
	if b.cfg.RequestSeconds == 0 {
		req.Work = b.cfg.Requests * int64(b.cfg.Requesters)
	}
	var out []workload.Step
	if b.cfg.has(StepLoad) {
		out = append(out, workload.Step{Name: StepLoad, MainOp: OpInsert, Run: b.load})
	}
	if b.cfg.has(StepRequest) {
		out = append(out, req)
	}
	return out
}

// ---- load ----

// load inserts every node, its links and its count rows, loaders working on
// contiguous id ranges.
func (b *Bench) load(ctx context.Context, env *workload.Env) error {
	n := b.cfg.Nodes
	loaders := int(min(int64(b.cfg.Loaders), n))
	var nodes, links, counts, bytes atomic.Int64
	err := workload.Parallel(ctx, loaders, func(ctx context.Context, i int) error {
		lo := 1 + n*int64(i)/int64(loaders)
		hi := n * int64(i+1) / int64(loaders)
		st, err := b.loadRange(ctx, env, lo, hi)
		nodes.Add(st.nodes)
		links.Add(st.links)
		counts.Add(st.counts)
		bytes.Add(st.bytes)
		return err
	})
	d := env.Details
	d[DetailNodes], d[DetailLinks], d[DetailCounts] = nodes.Load(), links.Load(), counts.Load()
	d[DetailAvgDegree] = units.Round(float64(links.Load())/float64(max(1, nodes.Load())), 3)
	d[DetailRowsPerCommit] = b.cfg.RowsPerCommit
	d[DetailLoaders] = loaders
	b.liveBytes = bytes.Load()
	d[workload.DetailLogicalBytesInserted] = bytes.Load()
	d[workload.DetailLogicalLiveBytes] = bytes.Load()
	return err
}

type loadStats struct{ nodes, links, counts, bytes int64 }

// loadRange loads nodes [lo, hi]: each batch of nodes, then their links and
// count rows, RowsPerCommit rows per insert.
func (b *Bench) loadRange(ctx context.Context, env *workload.Env, lo, hi int64) (loadStats, error) {
	var st loadStats
	rec := env.Clock.Recorder()
	conn, err := env.DB.Conn(ctx)
	if err != nil {
		return st, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	per := b.cfg.RowsPerCommit
	nodeRows := newRows(per, len(b.node.Columns), NodeData, b.cfg.NodeDataBytes)
	linkRows := newRows(per, len(b.link.Columns), LinkData, b.cfg.LinkDataBytes)
	countRows := newRows(per, len(b.count.Columns), -1, 0)
	var r gen.Rand
	nl, nc := 0, 0
	flush := func(t *model.Table, rows []model.Row) error {
		if len(rows) == 0 {
			return nil
		}
		start := time.Now()
		err := conn.Insert(ctx, t, rows)
		rec.Record(opInsert, len(rows), time.Since(start), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("load %s: %w", t.Name, err)
		}
		return nil
	}
	for first := lo; first <= hi; first += int64(per) {
		last := min(hi, first+int64(per)-1)
		rows := nodeRows[:last-first+1]
		for i := range rows {
			b.g.nodeRow(rows[i], &r, first+int64(i))
			st.bytes += rowBytes(rows[i], NodeData)
		}
		if err := flush(b.node, rows); err != nil {
			return st, err
		}
		st.nodes += int64(len(rows))
		for id1 := first; id1 <= last; id1++ {
			d := b.g.degree(id1)
			for k := 0; k < d; k++ {
				b.g.linkRow(linkRows[nl], &r, id1, k)
				st.bytes += rowBytes(linkRows[nl], LinkData)
				if nl++; nl == per {
					if err := flush(b.link, linkRows); err != nil {
						return st, err
					}
					st.links += int64(nl)
					nl = 0
				}
			}
			for lt := int64(1); lt <= int64(b.cfg.LinkTypes) && lt <= int64(d); lt++ {
				c := countRows[nc]
				c[CountID].Int, c[CountType].Int = id1, lt
				c[CountCount].Int, c[CountTime].Int, c[CountVersion].Int = b.g.count(d, lt), baseTime, 0
				st.bytes += 40
				if nc++; nc == per {
					if err := flush(b.count, countRows); err != nil {
						return st, err
					}
					st.counts += int64(nc)
					nc = 0
				}
			}
		}
	}
	if err := flush(b.link, linkRows[:nl]); err != nil {
		return st, err
	}
	st.links += int64(nl)
	if err := flush(b.count, countRows[:nc]); err != nil {
		return st, err
	}
	st.counts += int64(nc)
	return st, nil
}

// ---- requests ----

// setupRequests is the request step's Setup: it connects the requesters and
// reads the database's size, so neither counts in the step.
func (b *Bench) setupRequests(ctx context.Context, env *workload.Env) error {
	if b.ready != nil {
		// A setup whose step never ran.
		b.ready.close()
		b.ready = nil
	}
	r := &requestSetup{reqs: make([]*requester, b.cfg.Requesters)}
	var err error
	if r.sizeStart, err = env.DB.Size(ctx); err != nil {
		r.sizeStart = -1
	}
	for i := range r.reqs {
		q, err := b.newRequester(ctx, env, i)
		if err != nil {
			r.close()
			return err
		}
		r.reqs[i] = q
	}
	b.ready = r
	return nil
}

func (b *Bench) request(ctx context.Context, env *workload.Env) error {
	r := b.ready
	b.ready = nil
	if r == nil {
		// Run without its Setup (a test calling the step directly).
		if err := b.setupRequests(ctx, env); err != nil {
			return err
		}
		r, b.ready = b.ready, nil
	}
	defer r.close()
	reqs, sizeStart := r.reqs, r.sizeStart
	d := env.Details
	d[DetailSizeStart] = sizeStart
	d[DetailRequesters] = b.cfg.Requesters
	d[DetailMix] = b.cfg.Mix.String()
	var stop atomic.Bool
	start := time.Now()
	var until *measure.Deadline
	if b.cfg.RequestSeconds > 0 {
		// The requests run through the warm-up (fixed, or until the
		// steady-state rule holds) and then RequestSeconds more.
		until = env.Clock.Deadline(time.Duration(b.cfg.RequestSeconds * float64(time.Second)))
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			if until.Wait(wctx) == nil {
				stop.Store(true)
			}
		}()
	}
	err := workload.Parallel(ctx, len(reqs), func(ctx context.Context, i int) error {
		return reqs[i].run(ctx, &stop, start, until)
	})
	var tot reqStats
	for _, q := range reqs {
		tot.add(&q.st)
	}
	byKind := map[string]int64{}
	for k, n := range tot.errs {
		if n > 0 {
			byKind[hotrow.ErrKind(k).String()] = n
		}
	}
	if tot.dups > 0 {
		byKind["duplicate_key"] = tot.dups
	}
	d[DetailErrors] = byKind
	d[DetailRetries] = tot.retries
	d[DetailFailed] = tot.failed
	d[DetailNodesAdded] = tot.nodesAdded
	byType := map[string]int64{}
	for i, n := range tot.byType {
		byType[RequestTypes[i]] = n
	}
	d[DetailRequestsByType] = byType
	if n := tot.byType[indexOf(RequestTypes, OpGetLinkList)]; n > 0 {
		d[DetailLinksPerList] = units.Round(float64(tot.listed)/float64(n), 2)
	}
	if b.cfg.RequestRate > 0 {
		d[DetailTargetRate] = b.cfg.RequestRate * float64(b.cfg.Requesters)
		d[DetailMissed] = tot.missed
	}
	d[workload.DetailLogicalBytesInserted] = tot.bytes
	if b.liveBytes > 0 {
		d[workload.DetailLogicalLiveBytes] = b.liveBytes
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if sizeEnd, serr := env.DB.Size(ectx); serr == nil {
		d[DetailSizeEnd] = sizeEnd
		if sizeStart >= 0 && sizeEnd >= 0 {
			d[DetailSizeGrowth] = sizeEnd - sizeStart
		}
	}
	return err
}

// reqStats are one requester's counts.
type reqStats struct {
	byType                        [len(Mix{})]int64
	retries, dups, listed, missed int64
	failed                        int64 // transient errors left after MaxRetries
	nodesAdded, bytes             int64
	errs                          [8]int64
}

func (s *reqStats) add(o *reqStats) {
	for i := range s.byType {
		s.byType[i] += o.byType[i]
	}
	for i := range s.errs {
		s.errs[i] += o.errs[i]
	}
	s.retries += o.retries
	s.failed += o.failed
	s.dups += o.dups
	s.listed += o.listed
	s.missed += o.missed
	s.nodesAdded += o.nodesAdded
	s.bytes += o.bytes
}

// requester is one worker of the request step; it owns every buffer its
// requests need.
type requester struct {
	b    *Bench
	conn model.Conn
	tr   model.Transactor
	rec  *measure.Recorder
	rnd  gen.Rand // request choice and ids
	jit  gen.Rand // retry backoff jitter (apart, so retries do not change the requests)
	pay  gen.Rand // payloads
	cum  [len(Mix{})]float64
	st   reqStats

	nodeRow, linkRow, countRow model.Row
	pk1, linkPK, countPK       model.Row
	keys                       []model.Row
	mkeys                      [4]model.Row
	ch1, ch2, ch3, chCount     []model.Change
	spec                       model.ScanSpec
	vis                        int64
	found                      bool
	getVis                     func(model.Row)
	countFn                    func(model.Row)
	listFn                     func(model.Row) bool
	noop                       func(model.Row)
}

func (b *Bench) newRequester(ctx context.Context, env *workload.Env, i int) (*requester, error) {
	conn, err := env.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect requester %d: %w", i+1, err)
	}
	tr, ok := conn.(model.Transactor)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("engine %s has no multi-operation transactions, which linkbench needs", env.DB.Info().Name)
	}
	q := &requester{b: b, conn: conn, tr: tr, rec: env.Clock.Recorder()}
	q.rnd.Seed(gen.Mix(uint64(b.cfg.Seed), 0x4e9), uint64(i))
	q.pay.Seed(gen.Mix(uint64(b.cfg.Seed), 0x9a7), uint64(i))
	q.jit.Seed(gen.Mix(uint64(b.cfg.Seed), 0x17e), uint64(i))
	q.cum = cumulative(b.cfg.Mix)
	q.nodeRow = make(model.Row, len(b.node.Columns))
	q.linkRow = make(model.Row, len(b.link.Columns))
	q.countRow = make(model.Row, len(b.count.Columns))
	q.pk1 = make(model.Row, 1)
	q.linkPK = make(model.Row, 3)
	q.countPK = make(model.Row, 2)
	q.keys = make([]model.Row, 0, 8)
	for i := range q.mkeys {
		q.mkeys[i] = make(model.Row, 3)
	}
	q.ch1 = make([]model.Change, 0, 4)
	q.ch2 = make([]model.Change, 1)
	q.ch3 = make([]model.Change, 0, 3)
	q.chCount = make([]model.Change, 3)
	q.spec = model.ScanSpec{Index: 0, Desc: true, Limit: b.cfg.RangeLimit,
		Lower: make(model.Row, 4), Upper: make(model.Row, 4)}
	q.getVis = func(r model.Row) { q.vis, q.found = r[LinkVisibility].Int, true }
	q.countFn = func(model.Row) {}
	q.noop = func(model.Row) {}
	q.listFn = func(model.Row) bool { q.st.listed++; return true }
	return q, nil
}

func (q *requester) close() { q.conn.Close() }

// cumulative turns a mix into cumulative percentages.
func cumulative(m Mix) (c [len(Mix{})]float64) {
	var s float64
	for i, p := range m {
		s += p
		c[i] = s
	}
	c[len(c)-1] = math.Max(c[len(c)-1], 100) // rounding never leaves a gap
	return c
}

// pickType draws a request type index from the mix.
func pickType(r *gen.Rand, cum *[len(Mix{})]float64) int {
	x := r.Float64() * 100
	for i, c := range cum {
		if x < c {
			return i
		}
	}
	return len(cum) - 1
}

// run issues requests until stop is set (time-bounded), or Requests of them.
func (q *requester) run(ctx context.Context, stop *atomic.Bool, start time.Time, until *measure.Deadline) error {
	cfg := &q.b.cfg
	var sched *measure.Schedule
	var timer *time.Timer
	if cfg.RequestRate > 0 {
		backlog := measure.DefaultBacklog(time.Duration(float64(time.Second) / cfg.RequestRate))
		if until != nil {
			sched = measure.NewScheduleUntil(start, until, 1, cfg.RequestRate, backlog)
		} else {
			sched = measure.NewSchedule(start, time.Time{}, 1, cfg.RequestRate, backlog)
		}
		timer = time.NewTimer(time.Hour)
		timer.Stop()
	}
	for n := int64(0); ; n++ {
		if cfg.Requests > 0 && n >= cfg.Requests || cfg.Requests == 0 && stop.Load() {
			break
		}
		var intended time.Time
		if sched != nil {
			_, at, skipped, ok := sched.Next(time.Now())
			q.st.missed += skipped
			if !ok {
				break
			}
			if err := measure.SleepUntil(ctx, timer, at); err != nil {
				return err
			}
			intended = at
		}
		typ := pickType(&q.rnd, &q.cum)
		begin := time.Now()
		before := q.st.bytes
		err := q.do(ctx, typ)
		el := time.Since(begin)
		if d := q.st.bytes - before; d > 0 {
			q.b.written.Add(d)
		}
		q.rec.Record(opType[typ], 1, el, err != nil)
		q.rec.Record(opRequest, 1, el, err != nil)
		if sched != nil {
			q.rec.Record(opResponse, 1, time.Since(intended), err != nil)
		}
		q.st.byType[typ]++
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if transient(err) {
				// Still failing after MaxRetries: given up and counted,
				// as LinkBench counts failed requests, and the run goes on.
				q.st.failed++
				continue
			}
			return fmt.Errorf("%s: %w", RequestTypes[typ], err)
		}
	}
	return nil
}

// do runs one request, retrying it after a transient error (deadlock, lock
// wait timeout, serialization failure, busy, or a duplicate key from a
// concurrent add of the same link): the engine rolled it back, so running
// it again cannot double-count. The policy is the same on every engine
// (engines differ only in which transient errors they raise, marked with
// model's error kinds, see hotrow.Classify): up to MaxRetries retries, after a backoff
// of 200µs·2^n capped at 20ms with equal jitter, so requesters that
// collided do not collide again in lockstep.
func (q *requester) do(ctx context.Context, typ int) error {
	for try := 0; ; try++ {
		err := q.once(ctx, typ)
		if err == nil || ctx.Err() != nil {
			return err
		}
		kind := hotrow.Classify(err)
		dup := errors.Is(err, model.ErrDuplicateKey)
		if dup {
			q.st.dups++
		} else {
			q.st.errs[kind]++
		}
		if !transient(err) || try >= q.b.cfg.MaxRetries {
			return err
		}
		q.st.retries++
		d := min(retryBase<<min(try, 10), retryMax)
		time.Sleep(d/2 + time.Duration(q.jit.IntN(int64(d/2)+1)))
	}
}

// Retry backoff bounds (see do).
const (
	retryBase = 200 * time.Microsecond
	retryMax  = 20 * time.Millisecond
)

// transient reports whether err is one a retry may not meet again.
func transient(err error) bool {
	return errors.Is(err, model.ErrDuplicateKey) || hotrow.Classify(err).Retryable()
}

func (q *requester) now() int64 { return time.Now().UnixMilli() }

// payload fills dst with a fresh payload of the configured shape.
func (q *requester) payload(dst []byte, median, limit int) []byte {
	n := dataLen(&q.pay, median, q.b.cfg.DataSigma, limit)
	return q.pay.Pad(dst, n, q.b.cfg.DataRandomPct)
}

// existingLink names one of id1's loaded links (it may since have been
// hidden), or a random one when id1 had none.
func (q *requester) existingLink(id1 int64) (lt, id2 int64) {
	g := q.b.g
	if d := g.degree(id1); d > 0 {
		k := int(q.rnd.IntN(int64(d)))
		return g.linkType(k), g.id2(id1, k)
	}
	return 1 + q.rnd.IntN(int64(q.b.cfg.LinkTypes)), 1 + q.rnd.IntN(q.b.cfg.Nodes)
}

func (q *requester) once(ctx context.Context, typ int) error {
	b, g := q.b, q.b.g
	id1 := g.pickID1(&q.rnd)
	switch RequestTypes[typ] {
	case OpGetNode:
		q.pk1[0].Int = id1
		q.keys = append(q.keys[:0], q.pk1)
		_, err := q.conn.Get(ctx, b.node, q.keys, q.noop)
		return err
	case OpAddNode:
		id := b.nextID.Add(1) - 1
		r := q.nodeRow
		r[NodeID].Int, r[NodeType].Int, r[NodeVersion].Int, r[NodeTime].Int = id, 1, 0, q.now()
		r[NodeData].Bytes = q.payload(r[NodeData].Bytes, b.cfg.NodeDataBytes, b.cfg.maxNodeData())
		q.keys = append(q.keys[:0], r)
		if err := q.conn.Insert(ctx, b.node, q.keys); err != nil {
			return err
		}
		q.st.nodesAdded++
		q.st.bytes += rowBytes(r, NodeData)
		return nil
	case OpUpdateNode:
		q.pk1[0].Int = id1
		data := q.payload(q.nodeRow[NodeData].Bytes, b.cfg.NodeDataBytes, b.cfg.maxNodeData())
		q.nodeRow[NodeData].Bytes = data
		q.ch1 = append(q.ch1[:0],
			model.Change{Col: NodeVersion, Op: model.Add, Value: model.Value{Int: 1}},
			model.Change{Col: NodeTime, Value: model.Value{Int: q.now()}},
			model.Change{Col: NodeData, Value: model.Value{Bytes: data}})
		found, err := q.conn.Update(ctx, b.node, q.pk1, q.ch1)
		if found {
			q.st.bytes += int64(24 + len(data))
		}
		return err
	case OpDeleteNode:
		q.pk1[0].Int = id1
		_, err := q.conn.Delete(ctx, b.node, q.pk1)
		return err
	case OpCountLink:
		q.countPK[0].Int, q.countPK[1].Int = id1, 1+q.rnd.IntN(int64(b.cfg.LinkTypes))
		q.keys = append(q.keys[:0], q.countPK)
		_, err := q.conn.Get(ctx, b.count, q.keys, q.countFn)
		return err
	case OpGetLinkList:
		lt := 1 + q.rnd.IntN(int64(b.cfg.LinkTypes))
		lo, hi := q.spec.Lower, q.spec.Upper
		lo[0].Int, lo[1].Int, lo[2].Int, lo[3].Int = id1, lt, Visible, 0
		hi[0].Int, hi[1].Int, hi[2].Int, hi[3].Int = id1, lt, Visible, math.MaxInt64
		_, err := q.conn.Scan(ctx, b.link, q.spec, q.listFn)
		return err
	case OpMultigetLink:
		lt, _ := q.existingLink(id1)
		n := 1 + int(q.rnd.IntN(4))
		q.keys = q.keys[:0]
		for i := 0; i < n; i++ {
			k := q.mkeys[i]
			k[0].Int, k[1].Int = lt, id1
			_, k[2].Int = q.existingLink(id1)
			q.keys = append(q.keys, k)
		}
		_, err := q.conn.Get(ctx, b.link, q.keys, q.noop)
		return err
	case OpAddLink:
		lt := 1 + q.rnd.IntN(int64(b.cfg.LinkTypes))
		return q.writeLink(ctx, id1, lt, 1+q.rnd.IntN(b.cfg.Nodes))
	case OpUpdateLink:
		lt, id2 := q.existingLink(id1)
		return q.writeLink(ctx, id1, lt, id2)
	case OpDeleteLink:
		lt, id2 := q.existingLink(id1)
		return q.deleteLink(ctx, id1, lt, id2)
	}
	return fmt.Errorf("unknown request type %d", typ)
}

// writeLink is add_link and update_link: in one transaction, the link row
// is updated (which locks it) or inserted, made visible, and its count row
// changed when it became visible. The first Update is what makes the read
// of the old visibility safe on engines whose reads do not lock.
func (q *requester) writeLink(ctx context.Context, id1, lt, id2 int64) (err error) {
	b := q.b
	tx, err := q.tr.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback(ctx)
		}
	}()
	now := q.now()
	pk := q.linkPK
	pk[0].Int, pk[1].Int, pk[2].Int = lt, id1, id2
	data := q.payload(q.linkRow[LinkData].Bytes, b.cfg.LinkDataBytes, MaxLinkData)
	q.linkRow[LinkData].Bytes = data
	q.ch1 = append(q.ch1[:0],
		model.Change{Col: LinkVersion, Op: model.Add, Value: model.Value{Int: 1}},
		model.Change{Col: LinkTime, Value: model.Value{Int: now}},
		model.Change{Col: LinkData, Value: model.Value{Bytes: data}})
	found, err := tx.Update(ctx, b.link, pk, q.ch1)
	if err != nil {
		return err
	}
	becameVisible := false
	if found {
		q.found = false
		q.keys = append(q.keys[:0], pk)
		if _, err = tx.Get(ctx, b.link, q.keys, q.getVis); err != nil {
			return err
		}
		if q.found && q.vis != Visible {
			q.ch2[0] = model.Change{Col: LinkVisibility, Value: model.Value{Int: Visible}}
			if _, err = tx.Update(ctx, b.link, pk, q.ch2); err != nil {
				return err
			}
			becameVisible = true
		}
	} else {
		r := q.linkRow
		r[LinkID1].Int, r[LinkID2].Int, r[LinkType].Int = id1, id2, lt
		r[LinkVisibility].Int, r[LinkTime].Int, r[LinkVersion].Int = Visible, now, 0
		q.keys = append(q.keys[:0], r)
		if err = tx.Insert(ctx, b.link, q.keys); err != nil {
			return err
		}
		becameVisible = true
	}
	if becameVisible {
		if err = q.changeCount(ctx, tx, id1, lt, 1, now); err != nil {
			return err
		}
	}
	if err = tx.Commit(ctx); err != nil {
		return err
	}
	q.st.bytes += int64(48 + len(data))
	return nil
}

// deleteLink is delete_link as LinkBench runs it by default (no expunge):
// a visible link is hidden and its count decremented, in one transaction.
func (q *requester) deleteLink(ctx context.Context, id1, lt, id2 int64) (err error) {
	b := q.b
	tx, err := q.tr.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback(ctx)
		}
	}()
	now := q.now()
	pk := q.linkPK
	pk[0].Int, pk[1].Int, pk[2].Int = lt, id1, id2
	// Lock the row (a no-op change of version) before reading it.
	q.ch2[0] = model.Change{Col: LinkVersion, Op: model.Add, Value: model.Value{Int: 0}}
	found, err := tx.Update(ctx, b.link, pk, q.ch2)
	if err != nil {
		return err
	}
	if found {
		q.found = false
		q.keys = append(q.keys[:0], pk)
		if _, err = tx.Get(ctx, b.link, q.keys, q.getVis); err != nil {
			return err
		}
		if q.found && q.vis == Visible {
			q.ch3 = append(q.ch3[:0],
				model.Change{Col: LinkVisibility, Value: model.Value{Int: Hidden}},
				model.Change{Col: LinkTime, Value: model.Value{Int: now}})
			if _, err = tx.Update(ctx, b.link, pk, q.ch3); err != nil {
				return err
			}
			if err = q.changeCount(ctx, tx, id1, lt, -1, now); err != nil {
				return err
			}
		}
	}
	return tx.Commit(ctx)
}

// changeCount adds delta to the count row of (id1, lt), creating it when
// missing (LinkBench's INSERT ... ON DUPLICATE KEY UPDATE count = count + d).
func (q *requester) changeCount(ctx context.Context, tx model.Tx, id1, lt, delta, now int64) error {
	r := q.countRow
	r[CountID].Int, r[CountType].Int, r[CountCount].Int, r[CountTime].Int, r[CountVersion].Int = id1, lt, delta, now, 0
	q.chCount[0] = model.Change{Col: CountCount, Op: model.Add, Value: model.Value{Int: delta}}
	q.chCount[1] = model.Change{Col: CountTime, Value: model.Value{Int: now}}
	q.chCount[2] = model.Change{Col: CountVersion, Op: model.Add, Value: model.Value{Int: 1}}
	return tx.Upsert(ctx, q.b.count, r, q.chCount)
}
