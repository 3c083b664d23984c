package floorbench

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

// The load floor's third side, the kv layer alone: the rows each
// connection handed model.Ops.Insert during rumbench's load, recorded per
// connection (a stream) in order, replayed through a fresh kv DB of the
// same engine and options, one goroutine and connection per stream, with
// the same tables and indexes created first through the model API. What
// it costs above the bare store's replay of the same writes is the kv
// layer's share; what rumbench costs above it is the workload's and the
// runner's.

// modelRecorder wraps the engine the runner opens (engine.WithDBWrapper)
// and keeps the schema calls (CreateTable, CreateIndexes, DropTable) in
// order and each connection's successful inserts, rows copied into the
// recording arena. Any other call on a connection is counted, not
// recorded: a load makes none.
type modelRecorder struct {
	arena      *arena
	mu         sync.Mutex
	streams    []*callStream
	ddl        []ddlCall
	tables     []*model.Table // the tables inserted into, copies, by index
	tableIdx   map[*model.Table]int
	seq        atomic.Int64 // calls so far
	lastDDL    int64        // seq of the last schema call
	firstIns   atomic.Int64 // seq of the first insert (0: none yet)
	unrecorded atomic.Int64
}

const (
	ddlCreate byte = iota
	ddlIndexes
	ddlDrop
)

type ddlCall struct {
	op byte
	t  *model.Table // a copy as of the call
}

// callStream is one connection's inserts, each an encoded call in the
// arena: uvarint table index, row count, column count, then per value its
// Int (varint) and its Bytes (uvarint length+1, 0 for nil, and the bytes).
type callStream struct {
	calls [][]byte
	rows  int64
	cur   []byte // the arena chunk being filled
	pos   int
}

func newModelRecorder(a *arena) *modelRecorder {
	return &modelRecorder{arena: a, tableIdx: map[*model.Table]int{}}
}

func cloneTable(t *model.Table) *model.Table {
	c := &model.Table{Name: t.Name, Columns: slices.Clone(t.Columns), PK: slices.Clone(t.PK)}
	for _, ix := range t.Indexes {
		ix.Columns = slices.Clone(ix.Columns)
		c.Indexes = append(c.Indexes, ix)
	}
	return c
}

func (r *modelRecorder) schema(op byte, t *model.Table) {
	r.mu.Lock()
	r.ddl = append(r.ddl, ddlCall{op, cloneTable(t)})
	r.lastDDL = r.seq.Add(1)
	r.mu.Unlock()
}

// check fails when the recording cannot be replayed as the floor does it:
// calls other than inserts on a connection, or a schema call after the
// first insert (the replay makes every schema call first).
func (r *modelRecorder) check() error {
	if n := r.unrecorded.Load(); n > 0 {
		return fmt.Errorf("%d connection calls other than Insert, which the kv replay does not repeat", n)
	}
	if f := r.firstIns.Load(); f > 0 && r.lastDDL > f {
		return errors.New("a schema call came after the first insert")
	}
	return nil
}

func (r *modelRecorder) rows() int64 {
	var n int64
	for _, s := range r.streams {
		n += s.rows
	}
	return n
}

// wrap is the engine.WithDBWrapper function. The wrapper exposes the
// optional interfaces of the kv engines' DBs, and refuses a DB whose set
// differs, so that the runner takes the same paths with it as without.
func (r *modelRecorder) wrap(db model.DB) model.DB {
	base := &recModelDB{DB: db, r: r}
	_, q := db.(model.Quiescer)
	_, m := db.(model.Maintainer)
	_, cd := db.(model.ConfigDiffer)
	_, ir := db.(model.InternalsReporter)
	_, mr := db.(model.MemoryReporter)
	_, sr := db.(model.StatsReporter)
	_, rr := db.(model.RetryReporter)
	_, iir := db.(model.IntervalInternalsReporter)
	_, po := db.(model.ProcessOwner)
	_, ddo := db.(model.DatabaseDirOwner)
	if !cd || !ir || !mr || !sr || !rr || iir || po || ddo || q != m {
		panic(fmt.Sprintf("floorbench: the model recorder does not expose the optional interfaces of %T", db))
	}
	if q {
		return recModelDBQ{base}
	}
	return base
}

type recModelDB struct {
	model.DB
	r *modelRecorder
}

func (d *recModelDB) CreateTable(ctx context.Context, t *model.Table) error {
	if err := d.DB.CreateTable(ctx, t); err != nil {
		return err
	}
	d.r.schema(ddlCreate, t)
	return nil
}

func (d *recModelDB) CreateIndexes(ctx context.Context, t *model.Table) error {
	if err := d.DB.CreateIndexes(ctx, t); err != nil {
		return err
	}
	d.r.schema(ddlIndexes, t)
	return nil
}

func (d *recModelDB) DropTable(ctx context.Context, t *model.Table) error {
	if err := d.DB.DropTable(ctx, t); err != nil {
		return err
	}
	d.r.schema(ddlDrop, t)
	return nil
}

func (d *recModelDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	s := &callStream{}
	d.r.mu.Lock()
	d.r.streams = append(d.r.streams, s)
	d.r.mu.Unlock()
	return &recModelConn{Conn: c, r: d.r, s: s}, nil
}

func (d *recModelDB) ConfigDiff(ctx context.Context) (*model.ConfigDiff, error) {
	return d.DB.(model.ConfigDiffer).ConfigDiff(ctx)
}
func (d *recModelDB) Internals(ctx context.Context) (model.Internals, error) {
	return d.DB.(model.InternalsReporter).Internals(ctx)
}
func (d *recModelDB) Memory(ctx context.Context) (model.Memory, error) {
	return d.DB.(model.MemoryReporter).Memory(ctx)
}
func (d *recModelDB) Stats(ctx context.Context) (map[string]any, error) {
	return d.DB.(model.StatsReporter).Stats(ctx)
}
func (d *recModelDB) Retries() int64 { return d.DB.(model.RetryReporter).Retries() }

type recModelDBQ struct{ *recModelDB }

func (d recModelDBQ) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	return d.DB.(model.Quiescer).Quiesce(ctx)
}
func (d recModelDBQ) Maintain(ctx context.Context) error {
	return d.DB.(model.Maintainer).Maintain(ctx)
}

// recModelConn records its successful inserts in its stream; its other
// operations pass through, counted.
type recModelConn struct {
	model.Conn
	r     *modelRecorder
	s     *callStream
	lastT *model.Table // the table of the last insert and its index
	lastI int
}

func (c *recModelConn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if err := c.Conn.Insert(ctx, t, rows); err != nil {
		return err
	}
	return c.record(t, rows)
}

func (c *recModelConn) tableIndex(t *model.Table) int {
	if t == c.lastT {
		return c.lastI
	}
	r := c.r
	r.mu.Lock()
	i, ok := r.tableIdx[t]
	if !ok {
		i = len(r.tables)
		r.tables = append(r.tables, cloneTable(t))
		r.tableIdx[t] = i
	}
	r.mu.Unlock()
	c.lastT, c.lastI = t, i
	return i
}

func (c *recModelConn) record(t *model.Table, rows []model.Row) error {
	if s := c.r.seq.Add(1); c.r.firstIns.Load() == 0 {
		c.r.firstIns.CompareAndSwap(0, s)
	}
	ti := c.tableIndex(t)
	ncols := len(t.Columns)
	need := 3 * binary.MaxVarintLen64
	for _, row := range rows {
		if len(row) != ncols {
			return fmt.Errorf("record: a row of %d values for %d columns of %s", len(row), ncols, t.Name)
		}
		for _, v := range row {
			need += 2*binary.MaxVarintLen64 + len(v.Bytes)
		}
	}
	s := c.s
	if s.pos+need > len(s.cur) {
		s.cur, s.pos = c.r.arena.chunk(), 0
		if s.cur == nil || need > len(s.cur) {
			return errArenaFull
		}
	}
	buf, p := s.cur, s.pos
	p += binary.PutUvarint(buf[p:], uint64(ti))
	p += binary.PutUvarint(buf[p:], uint64(len(rows)))
	p += binary.PutUvarint(buf[p:], uint64(ncols))
	for _, row := range rows {
		for _, v := range row {
			p += binary.PutVarint(buf[p:], v.Int)
			if v.Bytes == nil {
				buf[p] = 0
				p++
				continue
			}
			p += binary.PutUvarint(buf[p:], uint64(len(v.Bytes))+1)
			p += copy(buf[p:], v.Bytes)
		}
	}
	s.calls = append(s.calls, buf[s.pos:p:p])
	s.pos = p
	s.rows += int64(len(rows))
	return nil
}

func (c *recModelConn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	c.r.unrecorded.Add(1)
	return c.Conn.DeleteOldest(ctx, t, from, n)
}
func (c *recModelConn) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	c.r.unrecorded.Add(1)
	return c.Conn.Get(ctx, t, keys, fn)
}
func (c *recModelConn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	c.r.unrecorded.Add(1)
	return c.Conn.Scan(ctx, t, spec, fn)
}
func (c *recModelConn) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	c.r.unrecorded.Add(1)
	return c.Conn.Update(ctx, t, pk, changes)
}
func (c *recModelConn) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	c.r.unrecorded.Add(1)
	return c.Conn.Delete(ctx, t, pk)
}
func (c *recModelConn) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	c.r.unrecorded.Add(1)
	return c.Conn.Upsert(ctx, t, row, changes)
}

// rowDecoder turns a stream's encoded calls back into rows, into buffers
// it keeps, the Bytes pointing into the arena (read only during the
// replay): the replay's per-row work is a few varints.
type rowDecoder struct {
	rows []model.Row
	vals []model.Value
}

func (d *rowDecoder) decode(call []byte) (table int, rows []model.Row) {
	p := 0
	next := func() uint64 {
		v, w := binary.Uvarint(call[p:])
		p += w
		return v
	}
	table = int(next())
	n, ncols := int(next()), int(next())
	if need := n * ncols; cap(d.vals) < need {
		d.vals = make([]model.Value, need)
	}
	if cap(d.rows) < n {
		d.rows = make([]model.Row, n)
	}
	vals, rows := d.vals[:n*ncols], d.rows[:n]
	for i := range vals {
		v, w := binary.Varint(call[p:])
		p += w
		vals[i].Int = v
		l := next()
		if l == 0 {
			vals[i].Bytes = nil
			continue
		}
		vals[i].Bytes = call[p : p+int(l)-1 : p+int(l)-1]
		p += int(l) - 1
	}
	for i := range rows {
		rows[i] = vals[i*ncols : (i+1)*ncols : (i+1)*ncols]
	}
	return table, rows
}

// replayKV opens a fresh kv DB of eng on dir, makes the recorded schema
// calls (untimed), and then the recorded inserts, each stream on a
// connection and goroutine of its own, all at once. It returns the rows
// inserted, the seconds and process CPU (µs) to the last insert, and the
// CPU until the engine was quiet after it (0 when it cannot tell, or
// without quiesce: no wait; WiredTiger's is until its next checkpoint,
// which tests need not wait for). wrap, when set, wraps the replay's DB (the test's recorder of the
// replayed calls): stream i is replayed on the replay's i-th connection.
func replayKV(eng string, opts map[string]string, r *modelRecorder, dir string, quiesce bool, wrap func(model.DB) model.DB) (rows int64, secs, cpuUs, quietUs float64, err error) {
	ctx := context.Background()
	if wrap != nil {
		ctx = engine.WithDBWrapper(ctx, wrap)
	}
	db, err := engine.Open(ctx, eng, model.Config{DataDir: dir, Options: opts})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer db.Close()
	for _, c := range r.ddl {
		switch c.op {
		case ddlCreate:
			err = db.CreateTable(ctx, c.t)
		case ddlIndexes:
			err = db.CreateIndexes(ctx, c.t)
		case ddlDrop:
			err = db.DropTable(ctx, c.t)
		}
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("kv replay: schema of %s: %w", c.t.Name, err)
		}
	}
	conns := make([]model.Conn, len(r.streams))
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("kv replay: %w", err)
		}
		defer conns[i].Close()
	}
	runtime.GC()
	errs := make([]error, len(r.streams))
	var wg sync.WaitGroup
	cpu0, start := cpuNow(), time.Now()
	for i, s := range r.streams {
		wg.Go(func() {
			var d rowDecoder
			for _, call := range s.calls {
				ti, rows := d.decode(call)
				if err := conns[i].Insert(ctx, r.tables[ti], rows); err != nil {
					errs[i] = fmt.Errorf("kv replay: insert into %s: %w", r.tables[ti].Name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	secs, cpuUs = time.Since(start).Seconds(), cpuNow()-cpu0
	if err := errors.Join(errs...); err != nil {
		return 0, 0, 0, 0, err
	}
	if q, ok := db.(model.Quiescer); ok && quiesce {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		_, err := q.Quiesce(qctx)
		cancel()
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("kv replay: quiesce: %w", err)
		}
		quietUs = cpuNow() - cpu0
	}
	return r.rows(), secs, cpuUs, quietUs, nil
}

// sameRecording reports how the replay's recording b differs from
// rumbench's a (nil: not at all): the same schema calls in order, and per
// stream the same inserts in order, into tables of the same names, with
// the same rows, value for value.
func sameRecording(a, b *modelRecorder) error {
	if len(a.ddl) != len(b.ddl) {
		return fmt.Errorf("%d schema calls replayed, %d recorded", len(b.ddl), len(a.ddl))
	}
	for i := range a.ddl {
		x, y := a.ddl[i], b.ddl[i]
		if x.op != y.op || x.t.Name != y.t.Name || len(x.t.Indexes) != len(y.t.Indexes) {
			return fmt.Errorf("schema call %d: replayed %d on %s, recorded %d on %s", i, y.op, y.t.Name, x.op, x.t.Name)
		}
	}
	if len(a.streams) != len(b.streams) {
		return fmt.Errorf("%d streams replayed, %d recorded", len(b.streams), len(a.streams))
	}
	for s := range a.streams {
		x, y := a.streams[s], b.streams[s]
		if len(x.calls) != len(y.calls) || x.rows != y.rows {
			return fmt.Errorf("stream %d: %d inserts of %d rows replayed, %d of %d recorded", s, len(y.calls), y.rows, len(x.calls), x.rows)
		}
		for i := range x.calls {
			tx, rx := splitCall(x.calls[i])
			ty, ry := splitCall(y.calls[i])
			if a.tables[tx].Name != b.tables[ty].Name || !bytes.Equal(rx, ry) {
				return fmt.Errorf("stream %d: insert %d replayed into %s as %x, recorded into %s as %x", s, i, b.tables[ty].Name, ry, a.tables[tx].Name, rx)
			}
		}
	}
	return nil
}

// splitCall returns an encoded call's table index and the rest.
func splitCall(call []byte) (int, []byte) {
	t, w := binary.Uvarint(call)
	return int(t), call[w:]
}

// TestSameRecordingCatchesChanges: the comparison the kv replay's test
// relies on tells a dropped insert, a changed value, a nil turned empty and
// another table from the recorded calls, and a recording decodes back to
// the rows recorded.
func TestSameRecordingCatchesChanges(t *testing.T) {
	a, err := newArena(16 * arenaChunk)
	if err != nil {
		t.Fatal(err)
	}
	defer a.free()
	tab := &model.Table{Name: "t", Columns: []model.Column{{Name: "id", Type: model.Int}, {Name: "s", Type: model.String}}, PK: []int{0}}
	other := &model.Table{Name: "u", Columns: tab.Columns, PK: tab.PK}
	calls := [][]model.Row{
		{{{Int: 1}, {Bytes: []byte("a")}}, {{Int: -2}, {Bytes: []byte{}}}},
		{{{Int: 3}, {}}},
	}
	rec := func(mut func(i int, t *model.Table, rows []model.Row) (*model.Table, []model.Row)) *modelRecorder {
		r := newModelRecorder(a)
		r.schema(ddlCreate, tab)
		c := &recModelConn{r: r, s: &callStream{}}
		r.streams = append(r.streams, c.s)
		for i, rows := range calls {
			rows = slices.Clone(rows)
			tb := tab
			if mut != nil {
				if tb, rows = mut(i, tb, rows); rows == nil {
					continue
				}
			}
			if err := c.record(tb, rows); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	base := rec(nil)
	if err := sameRecording(base, rec(nil)); err != nil {
		t.Fatalf("the same calls compare different: %v", err)
	}
	var d rowDecoder
	for i, call := range base.streams[0].calls {
		ti, rows := d.decode(call)
		if base.tables[ti].Name != "t" || len(rows) != len(calls[i]) {
			t.Fatalf("call %d decodes to %d rows of %s", i, len(rows), base.tables[ti].Name)
		}
		for j := range rows {
			for k, v := range rows[j] {
				w := calls[i][j][k]
				if v.Int != w.Int || !bytes.Equal(v.Bytes, w.Bytes) || (v.Bytes == nil) != (w.Bytes == nil) {
					t.Fatalf("call %d, row %d, value %d decodes to %+v, recorded %+v", i, j, k, v, w)
				}
			}
		}
	}
	for name, mut := range map[string]func(int, *model.Table, []model.Row) (*model.Table, []model.Row){
		"dropped": func(i int, t *model.Table, rows []model.Row) (*model.Table, []model.Row) {
			if i == 1 {
				return t, nil
			}
			return t, rows
		},
		"changed": func(i int, t *model.Table, rows []model.Row) (*model.Table, []model.Row) {
			if i == 0 {
				rows[0] = model.Row{{Int: 1}, {Bytes: []byte("b")}}
			}
			return t, rows
		},
		"nil to empty": func(i int, t *model.Table, rows []model.Row) (*model.Table, []model.Row) {
			if i == 1 {
				rows[0] = model.Row{{Int: 3}, {Bytes: []byte{}}}
			}
			return t, rows
		},
		"other table": func(i int, t *model.Table, rows []model.Row) (*model.Table, []model.Row) {
			if i == 1 {
				return other, rows
			}
			return t, rows
		},
	} {
		if err := sameRecording(base, rec(mut)); err == nil {
			t.Errorf("%s: a replay with a call %s compares equal", name, name)
		}
	}
}
