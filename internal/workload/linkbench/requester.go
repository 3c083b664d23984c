package linkbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"rumbench/internal/gen"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/ratesearch"
	"rumbench/internal/workload"
	"rumbench/internal/workload/retry"
)

// The request step's workers: one requester per client draws request
// types from the mix and runs them as the published LinkBench does.

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
	// arrivalSeed seeds this requester's Poisson arrivals (--arrivals).
	arrivalSeed uint64

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
	q.arrivalSeed = gen.Mix(uint64(b.cfg.Seed), 0xa55) + uint64(i)
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
	q.spec = model.ScanSpec{Index: 0, Desc: true, Limit: b.cfg.RangeLimit, Cols: model.NoCols, // listFn counts
		Lower: make(model.Row, 4), Upper: make(model.Row, 4)}
	q.getVis = func(r model.Row) { q.vis, q.found = r[LinkVisibility].Int, true }
	q.countFn = func(model.Row) {}
	q.noop = func(model.Row) {}
	q.listFn = func(model.Row) bool { q.st.listed++; return true }
	return q, nil
}

func (q *requester) close() { q.conn.Close() }

// reconnect gives the requester a new connection: a session whose context
// ended is not used again (its I/O was interrupted), so each probe of a
// search runs on fresh connections, opened before its clock time starts.
func (q *requester) reconnect(ctx context.Context, db model.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("reconnect requester: %w", err)
	}
	tr, ok := conn.(model.Transactor)
	if !ok {
		conn.Close()
		return fmt.Errorf("engine %s has no multi-operation transactions, which linkbench needs", db.Info().Name)
	}
	q.conn.Close()
	q.conn, q.tr = conn, tr
	return nil
}

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

// WorkerRequester names the request step's requesters under
// workload.WorkerLabel: a CPU profile splits their CPU (and that of what
// they start) from the rest with pprof -tagfocus worker=requester.
const WorkerRequester = "requester"

var requesterLabels = pprof.Labels(workload.WorkerLabel, WorkerRequester)

// run issues requests until stop is set (time-bounded), or Requests of them,
// under the requesters' profiler label. rate paces it (requests/s; 0: as
// fast as possible); w, when set, is its record of a search probe's window.
func (q *requester) run(ctx context.Context, stop *atomic.Bool, start time.Time, until *measure.Deadline, rate float64, w *ratesearch.Window) (err error) {
	pprof.Do(ctx, requesterLabels, func(ctx context.Context) {
		err = q.requests(ctx, stop, start, until, rate, w)
	})
	return err
}

func (q *requester) requests(ctx context.Context, stop *atomic.Bool, start time.Time, until *measure.Deadline, rate float64, w *ratesearch.Window) error {
	cfg := &q.b.cfg
	var sched *measure.Schedule
	var timer *time.Timer
	if rate > 0 {
		backlog := measure.DefaultBacklog(time.Duration(float64(time.Second) / rate))
		if until != nil {
			sched = measure.NewScheduleUntil(start, until, 1, rate, backlog)
		} else {
			sched = measure.NewSchedule(start, time.Time{}, 1, rate, backlog)
		}
		arr, _ := measure.ParseArrivals(cfg.Arrivals) // validated with the config
		sched.WithArrivals(arr, q.arrivalSeed)
		timer = time.NewTimer(time.Hour)
		timer.Stop()
	}
	for n := int64(0); ; n++ {
		if cfg.Requests > 0 && n >= cfg.Requests || cfg.Requests == 0 && stop.Load() {
			break
		}
		var intended time.Time
		if sched != nil {
			now := time.Now()
			slot, at, skipped, ok := sched.Next(now)
			q.st.missed += skipped
			w.RecordSkipped(sched, slot, skipped, now)
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
			resp := time.Since(intended)
			q.rec.Record(opResponse, 1, resp, err != nil)
			if w != nil && err == nil {
				w.Record(time.Now(), resp, 1)
			}
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
// model's error kinds, see retry.Classify): up to MaxRetries retries, after a backoff
// of 200µs·2^n capped at 20ms with equal jitter, so requesters that
// collided do not collide again in lockstep.
func (q *requester) do(ctx context.Context, typ int) error {
	for try := 0; ; try++ {
		err := q.once(ctx, typ)
		if err == nil || ctx.Err() != nil {
			return err
		}
		kind := retry.Classify(err)
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
	return errors.Is(err, model.ErrDuplicateKey) || retry.Classify(err).Retryable()
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
