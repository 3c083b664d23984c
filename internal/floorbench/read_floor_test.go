package floorbench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/workload/linkbench"
)

// BenchmarkReadFloor answers, per kv engine and per operation the
// workloads issue, how much CPU the kv layer (rumbench's table model over
// the store) costs against the bare store making exactly the same calls:
// point gets (1 and 10 keys, as get_node and qp100), forward and reverse
// range scans of 10 entries on the primary key and on a secondary index
// (qr100), a count of 10,000 index entries, the deleter's oldest-row
// delete (DeleteOldest of 50 rows: its scan, its reads and deletes), a
// hot-row update in a transaction, and LinkBench's request types
// (get_link_list a bounded reverse scan of a node's links, of 1 to 15
// links or, get_link_list_hub, of one of 10 nodes with 2,000, get_node,
// count_link, multiget_link, update_node, add_link, update_link,
// delete_link, add_node, delete_node) as the LinkBench requester makes
// them.
//
// Every operation runs on two stores loaded alike, open together: on the
// first, through the kv layer with every call it makes on the store
// recorded (just before the operation is measured) (a wrapper
// of the store, kv.WithStoreWrapper); on the second, timed, alternately
// through the kv layer (A) and as the recorded calls replayed on the bare
// store (B: views, transactions, gets, iterator steps, Key and Value,
// writes and commits, dispatched by a switch and nothing else), A B A B,
// the first of each pair alternating by round. The writing operations use
// other keys in each phase, so both sides do the same kind of work. The
// figure is the process's CPU per operation (getrusage: the store's own
// threads included) after a GC, per phase, and bare/kv per round: the kv
// layer's rate as a share of the bare store's when CPU-bound (1.00: the
// layer costs nothing). Beside it, bare/kv of the calling thread's CPU
// (the phase runs locked to one OS thread): the operation's own path,
// without the flushes, compactions and checkpoints that land in either
// phase, which make the writing operations' process figures spread.
//
// Sizes: FLOOR_READ_ROWS (the scanned table's rows, default 300000),
// FLOOR_READ_NODES (LinkBench nodes, default 10000), FLOOR_READ_SCALE
// (operations per phase, a multiplier, default 1), FLOOR_ROUNDS (3),
// FLOOR_KV_ENGINES (pebble,rocksdb,wiredtiger,bbolt; engines not built in
// are skipped), FLOOR_READ_OPS (a comma list of operation names; all).
// Run (or scripts/readfloor.sh):
//
//	go test -tags rocksdb,wiredtiger -run '^$' -bench BenchmarkReadFloor -benchtime 1x -timeout 60m ./internal/floorbench
func BenchmarkReadFloor(b *testing.B) {
	for _, eng := range envList("FLOOR_KV_ENGINES", "pebble,rocksdb,wiredtiger,bbolt") {
		b.Run(eng, func(b *testing.B) { readFloor(b, eng) })
	}
}

// floorOp is one operation of the read floor: n per phase, run through
// a connection of the kv layer with i, the operation's number (unique over
// phases, so writes use other keys in each).
type floorOp struct {
	name string
	n    int
	reps int // read-only operations: each phase runs its n operations reps times
	do   func(f *fixture, c model.Conn, i int) error
}

// ops is the operations a phase makes.
func (o floorOp) ops() int { return o.n * max(o.reps, 1) }

const (
	delRows   = 50    // rows per DeleteOldest
	countRows = 10000 // entries per count
	hotRows   = 16
	hubs      = 10 // LinkBench nodes with hubLinks links each
	hubLinks  = 2000
)

// fixture holds the tables and every buffer the operations use, so the
// harness allocates nothing per operation.
type fixture struct {
	rows, nodes int64
	rounds      int
	pi, hot     *model.Table
	node, link  *model.Table
	count       *model.Table
	keys        []model.Row
	key1        []model.Row
	rowBuf      model.Row
	nodeRow     model.Row
	linkRow     model.Row
	countRow    model.Row
	lower       model.Row
	spec        model.ScanSpec
	lbSpec      model.ScanSpec
	ch          []model.Change
	n           int
	vis         int64
	found       bool
	countFn     func(model.Row) bool
	getFn       func(model.Row)
	visFn       func(model.Row)
	maxDelOps   int
}

func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb3fe1a85ec53
	x ^= x >> 33
	return x
}

// degree is node id1's number of loaded links (1 to 15).
func degree(id1 int64) int64 { return 1 + int64(mix64(uint64(id1)*7+1)%15) }

// link is node id1's k-th loaded link: its type and id2.
func (f *fixture) linkOf(id1, k int64) (lt, id2 int64) {
	return 1 + k%2, 1 + int64(mix64(uint64(id1)<<8|uint64(k))%uint64(f.nodes))
}

func newFixture(rows, nodes int64, rounds int) *fixture {
	f := &fixture{rows: rows, nodes: nodes, rounds: rounds}
	f.pi = enginetest.IbenchTable("pi1")
	f.hot = &model.Table{Name: "hot", Columns: []model.Column{
		{Name: "id", Type: model.Int}, {Name: "counter", Type: model.Int}, {Name: "data", Type: model.String, MaxLen: 100}},
		PK: []int{0}}
	f.node, f.link, f.count = linkbench.NodeSchema(256), linkbench.LinkSchema(), linkbench.CountSchema()
	f.keys = make([]model.Row, 10)
	for i := range f.keys {
		f.keys[i] = make(model.Row, 3)
	}
	f.key1 = make([]model.Row, 1)
	f.nodeRow = make(model.Row, len(f.node.Columns))
	f.linkRow = make(model.Row, len(f.link.Columns))
	f.countRow = make(model.Row, len(f.count.Columns))
	f.nodeRow[linkbench.NodeData].Bytes = []byte("node data of an updated node, about a hundred bytes long as LinkBench's defaults make them...")
	f.lower = make(model.Row, 1)
	f.lbSpec = model.ScanSpec{Index: 0, Desc: true, Limit: 10000, Lower: make(model.Row, 4), Upper: make(model.Row, 4), Cols: model.NoCols}
	f.ch = make([]model.Change, 0, 4)
	f.countFn = func(model.Row) bool { f.n++; return true }
	f.getFn = func(model.Row) { f.n++ }
	f.visFn = func(r model.Row) { f.vis, f.found = r[linkbench.LinkVisibility].Int, true }
	return f
}

// delZone is the PK range [1, delZone] the deleter consumes; the other
// operations read above it.
func (f *fixture) delZone(ops []floorOp) int64 {
	for _, o := range ops {
		if o.name == "deleter" {
			return int64(o.n) * int64(2*f.rounds) * delRows
		}
	}
	return 0
}

// load fills db: pi1 (the insert benchmark's table, 3 indexes), hot, and
// LinkBench's node, link (with its index) and count tables.
func (f *fixture) load(tb testing.TB, db model.DB) {
	ctx := context.Background()
	for _, t := range []*model.Table{f.pi, f.hot, f.node, f.link, f.count} {
		ix := t.Indexes
		t2 := *t
		t2.Indexes = nil
		if err := db.CreateTable(ctx, &t2); err != nil {
			tb.Fatal(err)
		}
		if len(ix) > 0 {
			if err := db.CreateIndexes(ctx, t); err != nil {
				tb.Fatal(err)
			}
		}
	}
	c, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	var batch []model.Row
	flush := func(t *model.Table) {
		if len(batch) > 0 {
			if err := c.Insert(ctx, t, batch); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	add := func(t *model.Table, r model.Row) {
		batch = append(batch, r)
		if len(batch) == 100 {
			flush(t)
		}
	}
	for pk := int64(1); pk <= f.rows; pk++ {
		add(f.pi, enginetest.IbenchRow(nil, pk))
	}
	flush(f.pi)
	for id := int64(1); id <= hotRows; id++ {
		add(f.hot, model.Row{{Int: id}, {Int: 0}, {Bytes: []byte("hot row padding")}})
	}
	flush(f.hot)
	data := func(h uint64, n int) []byte {
		d := make([]byte, n)
		for i := range d {
			d[i] = 'a' + byte(mix64(h+uint64(i))%26)
		}
		return d
	}
	for id := int64(1); id <= f.nodes; id++ {
		add(f.node, model.Row{{Int: id}, {Int: 1}, {Int: 0}, {Int: 1700000000 + id}, {Bytes: data(uint64(id), 80+int(id%40))}})
	}
	flush(f.node)
	counts := map[[2]int64]int64{}
	for id1 := int64(1); id1 <= f.nodes; id1++ {
		seen := map[[2]int64]bool{}
		for k := range degree(id1) {
			lt, id2 := f.linkOf(id1, k)
			if seen[[2]int64{lt, id2}] {
				continue
			}
			seen[[2]int64{lt, id2}] = true
			r := make(model.Row, len(f.link.Columns))
			r[linkbench.LinkID1].Int, r[linkbench.LinkID2].Int, r[linkbench.LinkType].Int = id1, id2, lt
			r[linkbench.LinkVisibility].Int, r[linkbench.LinkTime].Int = linkbench.Visible, 1700000000+id1*10+k
			r[linkbench.LinkData].Bytes = data(uint64(id1)<<8|uint64(k), 6+int(k%10))
			add(f.link, r)
			counts[[2]int64{id1, lt}]++
		}
		flush(f.link)
	}
	// The hubs: nodes -1 to -hubs (ids no other operation draws), each with
	// hubLinks visible links of type 1, as LinkBench's most linked nodes.
	for h := int64(1); h <= hubs; h++ {
		for k := range int64(hubLinks) {
			r := make(model.Row, len(f.link.Columns))
			r[linkbench.LinkID1].Int, r[linkbench.LinkID2].Int, r[linkbench.LinkType].Int = -h, 1+k, 1
			r[linkbench.LinkVisibility].Int, r[linkbench.LinkTime].Int = linkbench.Visible, 1700000000+k
			r[linkbench.LinkData].Bytes = data(uint64(h)<<32|uint64(k), 6+int(k%10))
			add(f.link, r)
		}
		flush(f.link)
	}
	for id1 := int64(1); id1 <= f.nodes; id1++ {
		for lt := int64(1); lt <= 2; lt++ {
			if n := counts[[2]int64{id1, lt}]; n > 0 {
				add(f.count, model.Row{{Int: id1}, {Int: lt}, {Int: n}, {Int: 1700000000}, {Int: 0}})
			}
		}
	}
	flush(f.count)
}

// readPK is a PK of pi1 above the deleter's zone.
func (f *fixture) readPK(h uint64, zone int64) int64 {
	return zone + 1 + int64(h%uint64(f.rows-zone-20))
}

func (f *fixture) ops(scale int) []floorOp {
	ctx := context.Background()
	var zone int64
	n := func(k int) int { return max(1, k*scale) }
	scan := func(ix int, desc bool) func(f *fixture, c model.Conn, i int) error {
		return func(f *fixture, c model.Conn, i int) error {
			h := mix64(uint64(i) + 11)
			f.spec = model.ScanSpec{Index: ix, Lower: f.lower, Limit: 10, Desc: desc, Cols: model.NoCols}
			if ix < 0 {
				f.lower[0].Int = f.readPK(h, zone)
			} else {
				f.spec.Index = int(h % 3)
				f.lower[0].Int = int64(h>>8%40) - 10
			}
			_, err := c.Scan(ctx, f.pi, f.spec, f.countFn)
			return err
		}
	}
	tx := func(c model.Conn, fn func(model.Tx) error) error {
		x, err := c.(model.Transactor).Begin(ctx)
		if err != nil {
			return err
		}
		if err := fn(x); err != nil {
			x.Rollback(ctx)
			return err
		}
		return x.Commit(ctx)
	}
	// writeLink and deleteLink are the LinkBench requester's.
	writeLink := func(f *fixture, c model.Conn, id1, lt, id2 int64) error {
		return tx(c, func(x model.Tx) error {
			pk := f.keys[0][:3]
			pk[0].Int, pk[1].Int, pk[2].Int = lt, id1, id2
			f.ch = append(f.ch[:0],
				model.Change{Col: linkbench.LinkVersion, Op: model.Add, Value: model.Value{Int: 1}},
				model.Change{Col: linkbench.LinkTime, Value: model.Value{Int: 1800000000}},
				model.Change{Col: linkbench.LinkData, Value: model.Value{Bytes: []byte("new data")}})
			found, err := x.Update(ctx, f.link, pk, f.ch)
			if err != nil {
				return err
			}
			visible := false
			if found {
				f.found = false
				f.key1[0] = pk
				if _, err := x.Get(ctx, f.link, f.key1, f.visFn); err != nil {
					return err
				}
				if f.found && f.vis != linkbench.Visible {
					f.ch = append(f.ch[:0], model.Change{Col: linkbench.LinkVisibility, Value: model.Value{Int: linkbench.Visible}})
					if _, err := x.Update(ctx, f.link, pk, f.ch); err != nil {
						return err
					}
					visible = true
				}
			} else {
				r := f.linkRow
				r[linkbench.LinkID1].Int, r[linkbench.LinkID2].Int, r[linkbench.LinkType].Int = id1, id2, lt
				r[linkbench.LinkVisibility].Int, r[linkbench.LinkTime].Int, r[linkbench.LinkVersion].Int = linkbench.Visible, 1800000000, 0
				r[linkbench.LinkData].Bytes = []byte("new data")
				f.key1[0] = r
				if err := x.Insert(ctx, f.link, f.key1); err != nil {
					return err
				}
				visible = true
			}
			if visible {
				return f.changeCount(x, id1, lt, 1)
			}
			return nil
		})
	}
	deleteLink := func(f *fixture, c model.Conn, id1, lt, id2 int64) error {
		return tx(c, func(x model.Tx) error {
			pk := f.keys[0][:3]
			pk[0].Int, pk[1].Int, pk[2].Int = lt, id1, id2
			f.ch = append(f.ch[:0], model.Change{Col: linkbench.LinkVersion, Op: model.Add, Value: model.Value{Int: 0}})
			found, err := x.Update(ctx, f.link, pk, f.ch)
			if err != nil || !found {
				return err
			}
			f.found = false
			f.key1[0] = pk
			if _, err := x.Get(ctx, f.link, f.key1, f.visFn); err != nil {
				return err
			}
			if f.found && f.vis == linkbench.Visible {
				f.ch = append(f.ch[:0],
					model.Change{Col: linkbench.LinkVisibility, Value: model.Value{Int: linkbench.Hidden}},
					model.Change{Col: linkbench.LinkTime, Value: model.Value{Int: 1800000000}})
				if _, err := x.Update(ctx, f.link, pk, f.ch); err != nil {
					return err
				}
				return f.changeCount(x, id1, lt, -1)
			}
			return nil
		})
	}
	ops := []floorOp{
		{"get", n(5000), 40, func(f *fixture, c model.Conn, i int) error {
			f.keys[0][0].Int = f.readPK(mix64(uint64(i)), zone)
			f.key1[0] = f.keys[0][:1]
			_, err := c.Get(ctx, f.pi, f.key1, f.getFn)
			return err
		}},
		{"get10", n(2000), 10, func(f *fixture, c model.Conn, i int) error {
			for k := range f.keys {
				f.keys[k] = f.keys[k][:1]
				f.keys[k][0].Int = f.readPK(mix64(uint64(i)*16+uint64(k)), zone)
			}
			_, err := c.Get(ctx, f.pi, f.keys, f.getFn)
			return err
		}},
		{"scan-pk", n(5000), 16, scan(-1, false)},
		{"scan-pk-desc", n(5000), 16, scan(-1, true)},
		{"scan-ix", n(5000), 8, scan(0, false)},
		{"scan-ix-desc", n(5000), 8, scan(0, true)},
		{"count", n(20), 5, func(f *fixture, c model.Conn, i int) error {
			f.lower[0].Int = int64(mix64(uint64(i))%20) - 10
			f.spec = model.ScanSpec{Index: 0, Lower: f.lower, Limit: countRows, Cols: model.NoCols}
			_, err := c.Scan(ctx, f.pi, f.spec, f.countFn)
			return err
		}},
		{"hotrow", n(40000), 1, func(f *fixture, c model.Conn, i int) error {
			return tx(c, func(x model.Tx) error {
				f.keys[0] = f.keys[0][:1]
				f.keys[0][0].Int = 1 + int64(i%hotRows)
				f.ch = append(f.ch[:0], model.Change{Col: 1, Op: model.Add, Value: model.Value{Int: 1}})
				_, err := x.Update(ctx, f.hot, f.keys[0], f.ch)
				return err
			})
		}},
		{"get_link_list", n(5000), 16, func(f *fixture, c model.Conn, i int) error {
			h := mix64(uint64(i) + 5)
			id1, lt := 1+int64(h%uint64(f.nodes)), 1+int64(h>>40%2)
			lo, hi := f.lbSpec.Lower, f.lbSpec.Upper
			lo[0].Int, lo[1].Int, lo[2].Int, lo[3].Int = id1, lt, linkbench.Visible, 0
			hi[0].Int, hi[1].Int, hi[2].Int, hi[3].Int = id1, lt, linkbench.Visible, math.MaxInt64
			_, err := c.Scan(ctx, f.link, f.lbSpec, f.countFn)
			return err
		}},
		{"get_link_list_hub", n(50), 4, func(f *fixture, c model.Conn, i int) error {
			lo, hi := f.lbSpec.Lower, f.lbSpec.Upper
			lo[0].Int, lo[1].Int, lo[2].Int, lo[3].Int = -1-int64(i%hubs), 1, linkbench.Visible, 0
			hi[0].Int, hi[1].Int, hi[2].Int, hi[3].Int = -1-int64(i%hubs), 1, linkbench.Visible, math.MaxInt64
			_, err := c.Scan(ctx, f.link, f.lbSpec, f.countFn)
			return err
		}},
		{"get_node", n(5000), 40, func(f *fixture, c model.Conn, i int) error {
			f.keys[0] = f.keys[0][:1]
			f.keys[0][0].Int = 1 + int64(mix64(uint64(i)+6)%uint64(f.nodes))
			f.key1[0] = f.keys[0]
			_, err := c.Get(ctx, f.node, f.key1, f.getFn)
			return err
		}},
		{"count_link", n(5000), 40, func(f *fixture, c model.Conn, i int) error {
			h := mix64(uint64(i) + 7)
			f.keys[0] = f.keys[0][:2]
			f.keys[0][0].Int, f.keys[0][1].Int = 1+int64(h%uint64(f.nodes)), 1+int64(h>>40%2)
			f.key1[0] = f.keys[0]
			_, err := c.Get(ctx, f.count, f.key1, f.getFn)
			return err
		}},
		{"multiget_link", n(5000), 16, func(f *fixture, c model.Conn, i int) error {
			h := mix64(uint64(i) + 8)
			id1 := 1 + int64(h%uint64(f.nodes))
			m := 1 + int(h>>40%4)
			for k := range m {
				lt, id2 := f.linkOf(id1, int64(k)%degree(id1))
				f.keys[k] = f.keys[k][:3]
				f.keys[k][0].Int, f.keys[k][1].Int, f.keys[k][2].Int = lt, id1, id2
			}
			_, err := c.Get(ctx, f.link, f.keys[:m], f.getFn)
			return err
		}},
		{"update_node", n(30000), 1, func(f *fixture, c model.Conn, i int) error {
			f.keys[0] = f.keys[0][:1]
			f.keys[0][0].Int = 1 + int64(mix64(uint64(i)+9)%uint64(f.nodes))
			f.ch = append(f.ch[:0],
				model.Change{Col: linkbench.NodeVersion, Op: model.Add, Value: model.Value{Int: 1}},
				model.Change{Col: linkbench.NodeTime, Value: model.Value{Int: 1800000000}},
				model.Change{Col: linkbench.NodeData, Value: model.Value{Bytes: f.nodeRow[linkbench.NodeData].Bytes}})
			_, err := c.Update(ctx, f.node, f.keys[0], f.ch)
			return err
		}},
		{"update_link", n(20000), 1, func(f *fixture, c model.Conn, i int) error {
			id1 := 1 + int64(mix64(uint64(i)+10)%uint64(f.nodes))
			lt, id2 := f.linkOf(id1, degree(id1)-1)
			return writeLink(f, c, id1, lt, id2)
		}},
		{"add_link", n(20000), 1, func(f *fixture, c model.Conn, i int) error {
			// A new link: id2 above every node.
			id1 := 1 + int64(mix64(uint64(i)+12)%uint64(f.nodes))
			return writeLink(f, c, id1, 1+int64(i%2), f.nodes+1+int64(i))
		}},
		{"delete_link", n(1500), 1, func(f *fixture, c model.Conn, i int) error {
			// Each operation hides another node's first link.
			id1 := 1 + int64(i)%f.nodes
			lt, id2 := f.linkOf(id1, 0)
			return deleteLink(f, c, id1, lt, id2)
		}},
		{"add_node", n(30000), 1, func(f *fixture, c model.Conn, i int) error {
			r := f.nodeRow
			r[linkbench.NodeID].Int, r[linkbench.NodeType].Int, r[linkbench.NodeVersion].Int = f.nodes+1+int64(i), 1, 0
			r[linkbench.NodeTime].Int, r[linkbench.NodeData].Bytes = 1800000000, append(r[linkbench.NodeData].Bytes[:0], "node data of a new node, about a hundred bytes long as LinkBench's defaults make..."...)
			f.key1[0] = r
			return c.Insert(ctx, f.node, f.key1)
		}},
		{"delete_node", n(1500), 1, func(f *fixture, c model.Conn, i int) error {
			f.keys[0] = f.keys[0][:1]
			f.keys[0][0].Int = 1 + int64(i)%f.nodes
			_, err := c.Delete(ctx, f.node, f.keys[0])
			return err
		}},
		{"deleter", n(500), 1, func(f *fixture, c model.Conn, i int) error {
			f.lower[0].Int = 1 + int64(i)*delRows
			got, err := c.DeleteOldest(ctx, f.pi, f.lower, delRows)
			if err == nil && got != delRows {
				err = fmt.Errorf("deleter: %d rows deleted of %d", got, delRows)
			}
			return err
		}},
	}
	if want := envList("FLOOR_READ_OPS", ""); len(want) > 0 && want[0] != "" {
		var sel []floorOp
		for _, o := range ops {
			for _, w := range want {
				if o.name == w {
					sel = append(sel, o)
				}
			}
		}
		ops = sel
	}
	zone = f.delZone(ops)
	return ops
}

func (f *fixture) changeCount(x model.Tx, id1, lt, delta int64) error {
	r := f.countRow
	r[linkbench.CountID].Int, r[linkbench.CountType].Int, r[linkbench.CountCount].Int = id1, lt, delta
	r[linkbench.CountTime].Int, r[linkbench.CountVersion].Int = 1800000000, 0
	f.ch = append(f.ch[:0],
		model.Change{Col: linkbench.CountCount, Op: model.Add, Value: model.Value{Int: delta}},
		model.Change{Col: linkbench.CountTime, Value: model.Value{Int: 1800000000}},
		model.Change{Col: linkbench.CountVersion, Op: model.Add, Value: model.Value{Int: 1}})
	return x.Upsert(context.Background(), f.count, r, f.ch)
}

// phaseOps is the numbers of the operations of one phase: round r, side s
// (0 the kv layer, 1 the bare store).
func phaseFirst(o floorOp, r, s int) int { return (2*r + s) * o.n }

func readFloor(b *testing.B, eng string) {
	if _, err := engine.Lookup(eng); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	rounds := int(envInt("FLOOR_ROUNDS", 3))
	f := newFixture(envInt("FLOOR_READ_ROWS", 300000), envInt("FLOOR_READ_NODES", 10000), rounds)
	ops := f.ops(int(envInt("FLOOR_READ_SCALE", 1)))
	if z := f.delZone(ops); z > f.rows-1000 {
		b.Fatalf("the deleter's %d rounds take %d rows: FLOOR_READ_ROWS must be above %d", rounds, z, z+1000)
	}

	// The recording: every bare phase's operations on a store of their own.
	tr := &tracer{}
	recDB, err := engine.Open(kv.WithStoreWrapper(ctx, tr.wrap), eng, model.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	f.load(b, recDB)
	rc, err := recDB.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	defer recDB.Close()

	// The measured store.
	var raw kv.Store
	db, err := engine.Open(kv.WithStoreWrapper(ctx, func(s kv.Store) kv.Store { raw = s; return s }), eng, model.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	f.load(b, db)
	c, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p := newPlayer(raw)
	defer p.close()

	var lines []string
	for _, o := range ops {
		// The operation's bare phases, recorded just before they are
		// replayed and dropped after: the heap the measured phases' garbage
		// collections mark holds one operation's recording, not all.
		trace := make([][]tOp, rounds)
		for r := range rounds {
			first := phaseFirst(o, r, 1)
			for i := first; i < first+o.n; i++ {
				tr.startOp(&trace[r])
				if err := o.do(f, rc, i); err != nil {
					b.Fatalf("%s on %s (recording): %v", o.name, eng, err)
				}
				tr.stop()
			}
		}
		calls := len(trace[0])
		// The recording store's background work (flushes, compactions
		// after the recorded writes) is let finish, not timed.
		if q, ok := recDB.(model.Quiescer); ok {
			qctx, cancel := context.WithTimeout(ctx, time.Minute)
			q.Quiesce(qctx)
			cancel()
		}
		var kvCPU, bareCPU, ratio, allocs, kvThread, bareThread, threadRatio []float64
		var ms runtime.MemStats
		for r := range rounds {
			for j := range 2 {
				side := j
				if r%2 == 1 {
					side = 1 - j
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				m0 := ms.Mallocs
				runtime.LockOSThread()
				cpu0, th0 := cpuNow(), threadCPUNow()
				if side == 0 {
					first := phaseFirst(o, r, 0)
					for range max(o.reps, 1) {
						for i := first; i < first+o.n; i++ {
							if err := o.do(f, c, i); err != nil {
								b.Fatalf("%s on %s: %v", o.name, eng, err)
							}
						}
					}
				} else {
					for range max(o.reps, 1) {
						if err := p.play(trace[r]); err != nil {
							b.Fatalf("%s on %s, bare: %v", o.name, eng, err)
						}
					}
				}
				cpu := (cpuNow() - cpu0) / float64(o.ops())
				th := (threadCPUNow() - th0) / float64(o.ops())
				runtime.UnlockOSThread()
				runtime.ReadMemStats(&ms)
				if side == 0 {
					kvCPU, kvThread = append(kvCPU, cpu), append(kvThread, th)
					allocs = append(allocs, float64(ms.Mallocs-m0)/float64(o.ops()))
				} else {
					bareCPU, bareThread = append(bareCPU, cpu), append(bareThread, th)
				}
			}
			ratio = append(ratio, bareCPU[r]/kvCPU[r])
			threadRatio = append(threadRatio, bareThread[r]/kvThread[r])
		}
		line := fmt.Sprintf("| %-10s | %-13s | %6d | %5.1f | %9.2f | %9.2f | %5.2f | %-16s | %6.1f | %9.2f | %9.2f | %5.2f | %-16s |",
			eng, o.name, o.ops(), float64(calls)/float64(o.n), median(kvCPU), median(bareCPU), median(ratio), fmtList(ratio), median(allocs),
			median(kvThread), median(bareThread), median(threadRatio), fmtList(threadRatio))
		lines = append(lines, line)
		b.Logf("%s (load %s)", line, loadAvg())
		b.ReportMetric(median(ratio), o.name+"-bare/kv")
		b.ReportMetric(median(threadRatio), o.name+"-thread-bare/kv")
	}
	b.ReportMetric(0, "ns/op")
	b.Logf("%s, %d rounds (A B / B A alternating), µs of process CPU per operation, bare/kv: the kv layer's rate as a share of the bare store's; then the same of the calling thread's CPU\n"+
		"| engine     | op            | ops/ph | calls | kv µs/op  | bare µs/op | bare/kv | per round      | allocs | kv thread | bare thread | bare/kv | per round |\n"+
		"| ---------- | ------------- | -----: | ----: | --------: | ---------: | ----: | ---------------- | -----: | --------: | --------: | ----: | ---------------- |\n%s",
		eng, rounds, strings.Join(lines, "\n"))
}

// TestReadFloorReplaysTheCalls: for every operation of the read floor, the
// bare loop makes on a store loaded alike exactly the calls the kv layer
// made (the same calls, in the same order, with the same keys, bounds and
// values), so the floor's bare figure is for the same work.
func TestReadFloorReplaysTheCalls(t *testing.T) {
	for _, eng := range []string{"pebble", "bbolt", "rocksdb", "wiredtiger"} {
		t.Run(eng, func(t *testing.T) {
			if _, err := engine.Lookup(eng); err != nil {
				t.Skip(err)
			}
			ctx := context.Background()
			f := newFixture(3000, 300, 1)
			ops := f.ops(1)
			for k := range ops {
				ops[k].n = max(1, ops[k].n/1000)
			}
			open := func(tr *tracer) (model.DB, kv.Store) {
				var raw kv.Store
				db, err := engine.Open(kv.WithStoreWrapper(ctx, func(s kv.Store) kv.Store { raw = s; return tr.wrap(s) }), eng, model.Config{DataDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				f.load(t, db)
				return db, raw
			}
			tr, tr2 := &tracer{}, &tracer{}
			db, _ := open(tr)
			defer db.Close()
			db2, raw := open(&tracer{})
			defer db2.Close()
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			p := newPlayer(tr2.wrap(raw))
			defer p.close()
			for _, o := range ops {
				calls := 0
				for i := range o.n {
					var want, got []tOp
					tr.startOp(&want)
					if err := o.do(f, c, i); err != nil {
						t.Fatalf("%s: %v", o.name, err)
					}
					tr.stop()
					tr2.startOp(&got)
					if err := p.play(want); err != nil {
						t.Fatalf("%s: %v", o.name, err)
					}
					tr2.stop()
					calls += len(want)
					if len(got) != len(want) {
						t.Fatalf("%s: %d calls replayed, %d recorded", o.name, len(got), len(want))
					}
					for i := range want {
						w, g := want[i], got[i]
						if w.op != g.op || w.h != g.h || w.r != g.r || w.ro != g.ro || !bytes.Equal(w.k, g.k) || !bytes.Equal(w.v, g.v) || (w.k == nil) != (g.k == nil) || (w.v == nil) != (g.v == nil) {
							t.Fatalf("%s: call %d replayed as %+v, recorded %+v", o.name, i, g, w)
						}
					}
				}
				if calls == 0 {
					t.Fatalf("%s: no store call recorded", o.name)
				}
			}
		})
	}
}

// BenchmarkReadOps is the read floor's read-only operations (and hotrow) as Go
// benchmarks, for profiles and -benchmem: per engine (FLOOR_KV_ENGINES,
// default pebble) and operation, "kv" runs the operation through the kv
// layer and "bare" replays its recorded store calls, cycling over the
// phase's operations (FLOOR_READ_ROWS default 100000 here); cpu-ns/op is
// the process's CPU per operation. Run:
//
//	go test -run '^$' -bench 'BenchmarkReadOps/pebble/get_link_list' -benchmem ./internal/floorbench
func BenchmarkReadOps(b *testing.B) {
	for _, eng := range envList("FLOOR_KV_ENGINES", "pebble") {
		b.Run(eng, func(b *testing.B) {
			if _, err := engine.Lookup(eng); err != nil {
				b.Skip(err)
			}
			ctx := context.Background()
			f := newFixture(envInt("FLOOR_READ_ROWS", 100000), envInt("FLOOR_READ_NODES", 10000), 1)
			var ops []floorOp
			for _, o := range f.ops(1) {
				// hotrow rewrites the same 16 rows: it repeats like a read.
				if o.reps > 1 || o.name == "hotrow" {
					ops = append(ops, o)
				}
			}
			tr := &tracer{}
			var raw kv.Store
			db, err := engine.Open(kv.WithStoreWrapper(ctx, func(s kv.Store) kv.Store { raw = s; return s }), eng, model.Config{DataDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			f.load(b, db)
			recDB, err := engine.Open(kv.WithStoreWrapper(ctx, tr.wrap), eng, model.Config{DataDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			f.load(b, recDB)
			rc, err := recDB.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			traces := make([][][]tOp, len(ops))
			for k, o := range ops {
				traces[k] = make([][]tOp, o.n)
				for i := range o.n {
					tr.startOp(&traces[k][i])
					if err := o.do(f, rc, i); err != nil {
						b.Fatal(err)
					}
					tr.stop()
				}
			}
			rc.Close()
			recDB.Close()
			c, err := db.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			p := newPlayer(raw)
			defer p.close()
			for k, o := range ops {
				b.Run(o.name+"/kv", func(b *testing.B) {
					b.ReportAllocs()
					cpu0 := cpuNow()
					for i := range b.N {
						if err := o.do(f, c, i%o.n); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric((cpuNow()-cpu0)*1e3/float64(b.N), "cpu-ns/op")
				})
				b.Run(o.name+"/bare", func(b *testing.B) {
					b.ReportAllocs()
					cpu0 := cpuNow()
					for i := range b.N {
						if err := p.play(traces[k][i%o.n]); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric((cpuNow()-cpu0)*1e3/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}
