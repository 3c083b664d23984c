package linkbench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"rumbench/internal/gen"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/ratesearch"
	"rumbench/internal/results"
	"rumbench/internal/units"
	"rumbench/internal/workload"
	"rumbench/internal/workload/retry"
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
	DetailNodes         = "nodes"
	DetailLinks         = "links"
	DetailCounts        = "count_rows"
	DetailAvgDegree     = "avg_out_degree"
	DetailRowsPerCommit = "rows_per_commit"
	DetailLoaders       = "loaders"
	DetailRequesters    = "requesters"
	DetailMix           = "mix"
	DetailSizeStart     = "size_start_bytes"
	DetailSizeEnd       = "size_end_bytes"
	DetailSizeGrowth    = "size_growth_bytes"
	DetailRetries       = "retries"
	DetailFailed        = "requests_failed"
	DetailErrors        = "errors_by_kind"
	DetailLinksPerList  = "links_per_get_link_list"
	DetailNodesAdded    = "nodes_added"
	DetailMissed        = "missed_slots"
	// DetailSustainedRate and DetailSearch: --request-rate max's result
	// (requests/s over all requesters) and its probes.
	DetailSustainedRate  = "sustained_rate"
	DetailSearch         = "search"
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
		if _, err := c.Scan(ctx, b.node, model.ScanSpec{Index: -1, Desc: true, Limit: 1, Cols: []int{0}}, func(r model.Row) bool {
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
	switch {
	case b.cfg.RateSearch:
		// The search's probes set the step's length.
		req.Seconds, req.Steady = 0, false
	case b.cfg.RequestSeconds == 0:
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

// searchRate is --request-rate max: probes of the requesters paced at
// targets ratesearch raises and bisects (requests/s over all of them), one
// after another on the same connections; the step's details hold the
// sustained rate and every probe.
func (b *Bench) searchRate(ctx context.Context, env *workload.Env, reqs []*requester) error {
	set := b.cfg.Settings
	first := true
	res, err := ratesearch.Find(ctx, set.Config(DefaultSearchStart), set.Rule(), func(ctx context.Context, target float64) (results.SearchProbe, error) {
		if !first {
			for _, q := range reqs {
				if err := q.reconnect(ctx, env.DB); err != nil {
					return results.SearchProbe{}, err
				}
			}
		}
		first = false
		start := time.Now()
		until := measure.FixedDeadline(set.End(start))
		_, windows := set.Windows(start, len(reqs))
		var stop atomic.Bool
		err := workload.Parallel(ctx, len(reqs), func(ctx context.Context, i int) error {
			return reqs[i].run(ctx, &stop, start, until, target/float64(len(reqs)), windows[i])
		})
		if err != nil {
			return results.SearchProbe{}, fmt.Errorf("probe at %.0f requests/s: %w", target, err)
		}
		p := set.Measure(target, windows)
		env.Logf("probe %.0f requests/s: achieved %.0f, p99 %d µs, %d stalled s", target, p.Achieved, p.P99Us, p.Stalled)
		return p, nil
	})
	env.Details[DetailSustainedRate] = res.Sustained
	env.Details[DetailSearch] = res
	return err
}

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
	var err error
	if b.cfg.RateSearch {
		err = b.searchRate(ctx, env, reqs)
	} else {
		err = workload.Parallel(ctx, len(reqs), func(ctx context.Context, i int) error {
			return reqs[i].run(ctx, &stop, start, until, b.cfg.RequestRate, nil)
		})
	}
	var tot reqStats
	for _, q := range reqs {
		tot.add(&q.st)
	}
	byKind := map[string]int64{}
	for k, n := range tot.errs {
		if n > 0 {
			byKind[retry.ErrKind(k).String()] = n
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
		// Judged on the step's summary: the request rate reached over
		// the measured step, met at 95% of the target.
		env.Pace(OpRequest, "requests", b.cfg.RequestRate*float64(b.cfg.Requesters))
	}
	if b.cfg.RateSearch {
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
