package floorbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

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

// callStream is one connection's inserts, in order.
type callStream struct {
	calls []insertCall
	rows  int64
	cur   []byte // the arena chunk being filled
	pos   int
}

// insertCall is one recorded insert: the table's index in the recorder's
// tables and the rows, built in the arena ready to be passed to Insert
// again (the rows' slices, their values and the values' bytes all in the
// arena, outside the Go heap: the garbage collector neither scans them
// nor follows their pointers, which point into the arena only), so that
// the replay does nothing per row but the kv layer's work. Decoding a
// compact encoding instead cost 0.05 µs per row, as much as the insert
// benchmark's own row generation.
type insertCall struct {
	table int
	rows  []model.Row
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
	const rowSize, valSize = int(unsafe.Sizeof(model.Row{})), int(unsafe.Sizeof(model.Value{}))
	need := 8 + len(rows)*(rowSize+ncols*valSize)
	for _, row := range rows {
		if len(row) != ncols {
			return fmt.Errorf("record: a row of %d values for %d columns of %s", len(row), ncols, t.Name)
		}
		for _, v := range row {
			need += len(v.Bytes)
		}
	}
	s := c.s
	if s.pos+need > len(s.cur) {
		s.cur, s.pos = c.r.arena.chunk(), 0
		if s.cur == nil || need > len(s.cur) {
			return errArenaFull
		}
	}
	buf, p := s.cur, (s.pos+7)&^7 // the chunk is page-aligned
	out := unsafe.Slice((*model.Row)(unsafe.Pointer(&buf[p])), len(rows))
	p += len(rows) * rowSize
	vals := unsafe.Slice((*model.Value)(unsafe.Pointer(&buf[p])), len(rows)*ncols)
	p += len(vals) * valSize
	k := 0
	for i, row := range rows {
		out[i] = vals[k : k+ncols : k+ncols]
		for _, v := range row {
			vals[k].Int = v.Int
			if v.Bytes != nil {
				n := copy(buf[p:], v.Bytes)
				vals[k].Bytes = buf[p : p+n : p+n]
				p += n
			}
			k++
		}
	}
	s.calls = append(s.calls, insertCall{ti, out})
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

// kvReplay is what replayKV measured: the rows inserted, the seconds and
// process CPU (µs) to the last insert, the CPU until the engine was quiet
// after it, and the UTC times at which the timed span started and the
// engine was quiet (or the last insert ended).
type kvReplay struct {
	rows                 int64
	secs, cpuUs, quietUs float64
	from, to             time.Time
	// The Go heap's allocations and collections to the last insert: the
	// kv layer's garbage, which a small live heap (the replay's) collects
	// more often than a larger one (rumbench's).
	allocBytes, allocs int64
	gcs                uint32
	// proc is what the process counted to the last insert (procStats:
	// the same, with the system CPU and the collector's).
	proc procStats
	// readUs is the CPU µs of reading every recorded row alone, once
	// (FLOOR_KV_WARM): taken out of cpuUs and quietUs, 0 without.
	readUs float64
	// ticks is what the engine's own counters counted over the replay,
	// until quiet (engineTickers; nil: it has none).
	ticks map[string]int64
}

// rowSink keeps readRows' sums live.
var rowSink atomic.Uint64

// loadSerial reports FLOOR_LOAD_SERIAL=1: the load floor's replays (the
// store's and the kv layer's) play their streams one after the other on
// one goroutine instead of all at once. On a store with one writer at a
// time (bbolt) the streams' writes cannot overlap anyway, and two
// streams ready back to back make a waiting writer spin on the lock:
// CPU the floor would count as the store's cost of the rows.
func loadSerial() bool { return os.Getenv("FLOOR_LOAD_SERIAL") == "1" }

// readRows reads every value of rows (each Int, and each string's bytes a
// cache line apart), bringing them into the cache as rumbench's generator
// leaves the rows it has just written.
func readRows(rows []model.Row) {
	var sum uint64
	for _, row := range rows {
		for i := range row {
			sum += uint64(row[i].Int)
			b := row[i].Bytes
			for j := 0; j < len(b); j += 64 {
				sum += uint64(b[j])
			}
		}
	}
	rowSink.Add(sum)
}

// replayKV opens a fresh kv DB of eng on dir, makes the recorded schema
// calls (untimed), and then the recorded inserts, each stream on a
// connection and goroutine of its own, all at once, timed (kvReplay).
// quietUs is 0 when the engine cannot tell it is quiet, or
// without quiesce: no wait; WiredTiger's is until its next checkpoint,
// which tests need not wait for). wrap, when set, wraps the replay's DB (the test's recorder of the
// replayed calls): stream i is replayed on the replay's i-th connection.
func replayKV(eng string, opts map[string]string, r *modelRecorder, dir string, quiesce bool, wrap func(model.DB) model.DB) (*kvReplay, error) {
	ctx := context.Background()
	if wrap != nil {
		ctx = engine.WithDBWrapper(ctx, wrap)
	}
	db, err := engine.Open(ctx, eng, model.Config{DataDir: dir, Options: opts})
	if err != nil {
		return nil, err
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
			return nil, fmt.Errorf("kv replay: schema of %s: %w", c.t.Name, err)
		}
	}
	conns := make([]model.Conn, len(r.streams))
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			return nil, fmt.Errorf("kv replay: %w", err)
		}
		defer conns[i].Close()
	}
	// FLOOR_KV_WARM: each call's rows are read just before the call, so
	// the kv layer finds them in the cache, as it does in rumbench's run
	// (the generator has just written them), where the recording's rows
	// come from memory; the CPU of that read, measured alone in a pass
	// over the same streams first, is taken out (perf's samples put the
	// read between the inserts within 1% of the read alone, docs/kv-floor.md).
	warm := envInt("FLOOR_KV_WARM", 0) != 0
	var readUs float64
	if warm {
		runtime.GC()
		var wg sync.WaitGroup
		c0 := cpuNow()
		for _, s := range r.streams {
			wg.Go(func() {
				for _, call := range s.calls {
					readRows(call.rows)
				}
			})
		}
		wg.Wait()
		readUs = cpuNow() - c0
	}
	runtime.GC()
	errs := make([]error, len(r.streams))
	var wg sync.WaitGroup
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	tick0 := engineTickers(db)
	p0 := procStatsNow()
	cpu0, start := cpuNow(), time.Now()
	out := &kvReplay{rows: r.rows(), from: start.UTC(), readUs: readUs}
	for i, s := range r.streams {
		play := func() {
			for _, call := range s.calls {
				if warm {
					readRows(call.rows)
				}
				if err := conns[i].Insert(ctx, r.tables[call.table], call.rows); err != nil {
					errs[i] = fmt.Errorf("kv replay: insert into %s: %w", r.tables[call.table].Name, err)
					return
				}
			}
		}
		if loadSerial() {
			play()
			continue
		}
		wg.Go(play)
	}
	wg.Wait()
	out.cpuUs, out.to, out.proc = cpuNow()-cpu0-readUs, time.Now().UTC(), procStatsNow().since(p0)
	out.secs = out.to.Sub(start).Seconds()
	runtime.ReadMemStats(&m1)
	out.allocBytes, out.allocs, out.gcs = int64(m1.TotalAlloc-m0.TotalAlloc), int64(m1.Mallocs-m0.Mallocs), m1.NumGC-m0.NumGC
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if q, ok := db.(model.Quiescer); ok && quiesce {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		_, err := q.Quiesce(qctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("kv replay: quiesce: %w", err)
		}
		out.quietUs, out.to = cpuNow()-cpu0-readUs, time.Now().UTC()
	}
	out.ticks = tickerDelta(tick0, engineTickers(db))
	return out, nil
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
			cx, cy := x.calls[i], y.calls[i]
			tx, ty := a.tables[cx.table].Name, b.tables[cy.table].Name
			if tx != ty || len(cx.rows) != len(cy.rows) {
				return fmt.Errorf("stream %d: insert %d replayed as %d rows into %s, recorded as %d into %s", s, i, len(cy.rows), ty, len(cx.rows), tx)
			}
			for j := range cx.rows {
				if !sameRow(cx.rows[j], cy.rows[j]) {
					return fmt.Errorf("stream %d: insert %d, row %d replayed as %v, recorded as %v", s, i, j, cy.rows[j], cx.rows[j])
				}
			}
		}
	}
	return nil
}

// sameRow: the same values, nil bytes and empty ones told apart.
func sameRow(a, b model.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Int != b[i].Int || !bytes.Equal(a[i].Bytes, b[i].Bytes) || (a[i].Bytes == nil) != (b[i].Bytes == nil) {
			return false
		}
	}
	return true
}

// TestSameRecordingCatchesChanges: the comparison the kv replay's test
// relies on tells a dropped insert, a changed value, a nil turned empty and
// another table from the recorded calls, and a recording holds the rows
// recorded.
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
	for i, call := range base.streams[0].calls {
		if base.tables[call.table].Name != "t" || len(call.rows) != len(calls[i]) {
			t.Fatalf("call %d recorded as %d rows of %s", i, len(call.rows), base.tables[call.table].Name)
		}
		for j := range call.rows {
			if !sameRow(call.rows[j], calls[i][j]) {
				t.Fatalf("call %d, row %d recorded as %v, made as %v", i, j, call.rows[j], calls[i][j])
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
