// Package kvtest is a conformance suite for model.DB implementations, run by
// the tests of each kv engine against the real engine. It checks every
// operation against an in-memory model of the table.
package kvtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rumbench/internal/engine/kv"
	"rumbench/internal/model"
)

// Opener opens the engine on dir (the same dir again reopens it).
type Opener func(t testing.TB, dir string) model.DB

// Column positions of the ibench-like table.
const (
	cID = iota
	cTime
	cRegister
	cProduct
	cCustomer
	cPrice
	cData
)

// TableConn creates the ibench table pi1 in db and opens a connection,
// closed when the test ends: the start of most single-engine tests.
func TableConn(t testing.TB, db model.DB) (*model.Table, model.Conn) {
	t.Helper()
	ctx := context.Background()
	tbl := IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return tbl, c
}

// IbenchTable is the design §4.1 table with its three secondary indexes.
func IbenchTable(name string) *model.Table {
	return &model.Table{
		Name: name,
		Columns: []model.Column{
			{Name: "transactionid", Type: model.Int},
			{Name: "dateandtime", Type: model.Time},
			{Name: "cashregisterid", Type: model.Int},
			{Name: "productid", Type: model.Int},
			{Name: "customerid", Type: model.Int},
			{Name: "price", Type: model.Int},
			{Name: "data", Type: model.String, MaxLen: 4000},
		},
		PK: []int{cID},
		Indexes: []model.Index{
			{Name: "marketsegment", Columns: []int{cProduct, cCustomer, cPrice}},
			{Name: "registersegment", Columns: []int{cRegister, cCustomer, cPrice}},
			{Name: "pdc", Columns: []int{cPrice, cTime, cCustomer}},
		},
	}
}

// StringTable has a string in the index and in the PK, to exercise escaping
// and prefix order in keys.
func StringTable(name string) *model.Table {
	return &model.Table{
		Name: name,
		Columns: []model.Column{
			{Name: "grp", Type: model.String},
			{Name: "id", Type: model.Int},
			{Name: "name", Type: model.String},
			{Name: "n", Type: model.Int},
		},
		PK:      []int{0, 1},
		Indexes: []model.Index{{Name: "byname", Columns: []int{2, 3}}},
	}
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// IbenchRow fills row (7 columns) for transaction id pk, deterministically.
// Values include negatives and data bytes 0x00 and 0xFF.
func IbenchRow(row model.Row, pk int64) model.Row {
	h := mix(uint64(pk))
	row = append(row[:0], make(model.Row, 7)...)
	row[cID].Int = pk
	row[cTime].Int = 1700000000 + pk/100
	row[cRegister].Int = int64(h % 20)
	row[cProduct].Int = int64(h>>8%30) - 10
	row[cCustomer].Int = int64(h >> 16 % 50)
	row[cPrice].Int = int64(h >> 24 % 40)
	n := int(h >> 32 % 12)
	data := make([]byte, n)
	for i := range data {
		data[i] = []byte{0, 'x', 0xFF, 'y'}[(h>>uint(i*2))&3]
	}
	row[cData].Bytes = data
	return row
}

var strAlphabet = [][]byte{{}, {0}, {0, 0}, {0, 1}, {0xFF}, []byte("a"), []byte("a\x00"), []byte("a\x00b"), []byte("ab"), []byte("a\xff"), []byte("b")}

func stringRow(i int64) model.Row {
	h := mix(uint64(i) + 77)
	return model.Row{
		{Bytes: strAlphabet[h%uint64(len(strAlphabet))]},
		{Int: int64(h>>8%7) - 3},
		{Bytes: strAlphabet[h>>16%uint64(len(strAlphabet))]},
		{Int: int64(h>>24%5) - 2},
	}
}

func cmpValues(t *model.Table, cols []int, a, b model.Row) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		var c int
		if t.Columns[cols[i]].Type == model.String {
			c = bytes.Compare(a[i].Bytes, b[i].Bytes)
		} else if a[i].Int < b[i].Int {
			c = -1
		} else if a[i].Int > b[i].Int {
			c = 1
		}
		if c != 0 {
			return c
		}
	}
	if len(a) < len(b) {
		return -1
	}
	return 0
}

// mem is the model of a table: rows by encoded PK.
type mem struct {
	t    *model.Table
	rows map[string]model.Row
}

func newMem(t *model.Table) *mem { return &mem{t: t, rows: map[string]model.Row{}} }

func (m *mem) key(r model.Row) string {
	var b []byte
	for _, p := range m.t.PK {
		b = fmt.Appendf(b, "%d:%q|", r[p].Int, r[p].Bytes)
	}
	return string(b)
}

func (m *mem) put(r model.Row) { m.rows[m.key(r)] = model.CopyRow(nil, r) }

func (m *mem) pk(r model.Row) model.Row {
	var k model.Row
	for _, p := range m.t.PK {
		k = append(k, r[p])
	}
	return k
}

// entries returns the expected entries of index ix (-1 = PK), sorted.
func (m *mem) entries(ix int) []model.Row {
	proj := m.t.IndexColumns(ix)
	var out []model.Row
	for _, r := range m.rows {
		e := make(model.Row, len(proj))
		for i, c := range proj {
			e[i] = r[c]
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return cmpValues(m.t, proj, out[i], out[j]) < 0 })
	return out
}

func sameRow(a, b model.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Int != b[i].Int || !bytes.Equal(a[i].Bytes, b[i].Bytes) {
			return false
		}
	}
	return true
}

func scanAll(tb testing.TB, c model.Conn, t *model.Table, spec model.ScanSpec) []model.Row {
	tb.Helper()
	var got []model.Row
	n, err := c.Scan(context.Background(), t, spec, func(r model.Row) bool {
		got = append(got, model.CopyRow(nil, r))
		return true
	})
	if err != nil {
		tb.Fatalf("scan %s index %d: %v", t.Name, spec.Index, err)
	}
	if n != len(got) {
		tb.Fatalf("scan %s index %d returned %d, called fn %d times", t.Name, spec.Index, n, len(got))
	}
	return got
}

// check verifies the PK and every index of the table against the model: full
// scans both ways, Get of every model row, and random bounded scans.
func (m *mem) check(tb testing.TB, c model.Conn, r *rand.Rand, gone []model.Row) {
	tb.Helper()
	ctx := context.Background()
	for ix := -1; ix < len(m.t.Indexes); ix++ {
		want := m.entries(ix)
		got := scanAll(tb, c, m.t, model.ScanSpec{Index: ix})
		if len(got) != len(want) {
			tb.Fatalf("%s index %d: full scan has %d entries, want %d", m.t.Name, ix, len(got), len(want))
		}
		for i := range want {
			if !sameRow(got[i], want[i]) {
				tb.Fatalf("%s index %d: entry %d is %v, want %v", m.t.Name, ix, i, got[i], want[i])
			}
		}
		desc := scanAll(tb, c, m.t, model.ScanSpec{Index: ix, Desc: true})
		for i := range desc {
			if !sameRow(desc[i], want[len(want)-1-i]) {
				tb.Fatalf("%s index %d: descending entry %d is %v, want %v", m.t.Name, ix, i, desc[i], want[len(want)-1-i])
			}
		}
		m.checkRanges(tb, c, r, ix, want)
	}
	// Get: every model row, plus keys that must not be found.
	var keys []model.Row
	for _, row := range m.rows {
		keys = append(keys, m.pk(row))
	}
	found := 0
	n, err := c.Get(ctx, m.t, keys, func(row model.Row) {
		want, ok := m.rows[m.key(row)]
		if !ok || !sameRow(row, want) {
			tb.Fatalf("%s: Get returned %v, model has %v", m.t.Name, row, want)
		}
		found++
	})
	if err != nil || n != len(keys) || found != n {
		tb.Fatalf("%s: Get found %d (%d calls) of %d: %v", m.t.Name, n, found, len(keys), err)
	}
	if len(gone) > 0 {
		n, err := c.Get(ctx, m.t, gone, func(row model.Row) { tb.Fatalf("%s: Get found deleted row %v", m.t.Name, row) })
		if err != nil || n != 0 {
			tb.Fatalf("%s: Get of deleted keys found %d: %v", m.t.Name, n, err)
		}
	}
}

// checkRanges runs bounded scans with random lower bounds and limits and
// compares them with the model's sorted entries.
func (m *mem) checkRanges(tb testing.TB, c model.Conn, r *rand.Rand, ix int, want []model.Row) {
	tb.Helper()
	proj := m.t.IndexColumns(ix)
	for k := 0; k < 40; k++ {
		var lower model.Row
		l := 1 + r.Intn(len(proj))
		if len(want) > 0 && r.Intn(3) > 0 {
			lower = model.CopyRow(nil, want[r.Intn(len(want))][:l])
		} else {
			lower = make(model.Row, l)
			for i := range lower {
				if m.t.Columns[proj[i]].Type == model.String {
					lower[i].Bytes = strAlphabet[r.Intn(len(strAlphabet))]
				} else {
					lower[i].Int = int64(r.Intn(60)) - 15
				}
			}
		}
		// Perturb the last value so bounds fall between entries too.
		if last := &lower[l-1]; m.t.Columns[proj[l-1]].Type != model.String && r.Intn(2) == 0 {
			last.Int += int64(r.Intn(3)) - 1
		}
		limit := []int{0, 1, 10, 100}[r.Intn(4)]
		desc := r.Intn(2) == 0
		var exp []model.Row
		if !desc {
			i := sort.Search(len(want), func(i int) bool { return cmpValues(m.t, proj, want[i][:l], lower) >= 0 })
			for ; i < len(want) && (limit == 0 || len(exp) < limit); i++ {
				exp = append(exp, want[i])
			}
		} else {
			i := sort.Search(len(want), func(i int) bool { return cmpValues(m.t, proj, want[i][:l], lower) > 0 }) - 1
			for ; i >= 0 && (limit == 0 || len(exp) < limit); i-- {
				exp = append(exp, want[i])
			}
		}
		got := scanAll(tb, c, m.t, model.ScanSpec{Index: ix, Lower: lower, Limit: limit, Desc: desc})
		if len(got) != len(exp) {
			tb.Fatalf("%s index %d lower %v limit %d desc %v: %d entries, want %d", m.t.Name, ix, lower, limit, desc, len(got), len(exp))
		}
		for i := range exp {
			if !sameRow(got[i], exp[i]) {
				tb.Fatalf("%s index %d lower %v limit %d desc %v: entry %d is %v, want %v", m.t.Name, ix, lower, limit, desc, i, got[i], exp[i])
			}
		}
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func insertRange(tb testing.TB, c model.Conn, t *model.Table, m *mem, from, to int64, batch int) {
	tb.Helper()
	var rows []model.Row
	for pk := from; pk < to; pk++ {
		rows = append(rows, IbenchRow(nil, pk))
		if len(rows) == batch || pk == to-1 {
			must(tb, c.Insert(context.Background(), t, rows))
			for _, r := range rows {
				m.put(r)
			}
			rows = rows[:0]
		}
	}
}

func sameSchema(a, b *model.Table) bool {
	if a.Name != b.Name || len(a.Columns) != len(b.Columns) || len(a.Indexes) != len(b.Indexes) || fmt.Sprint(a.PK) != fmt.Sprint(b.PK) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i] != b.Columns[i] {
			return false
		}
	}
	for i := range a.Indexes {
		if a.Indexes[i].Name != b.Indexes[i].Name || fmt.Sprint(a.Indexes[i].Columns) != fmt.Sprint(b.Indexes[i].Columns) {
			return false
		}
	}
	return true
}

// Run runs the conformance suite.
func Run(t *testing.T, open Opener) {
	t.Run("Ibench", func(t *testing.T) { testIbench(t, open) })
	t.Run("Strings", func(t *testing.T) { testStrings(t, open) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, open) })
	t.Run("Tx", func(t *testing.T) { testTx(t, open) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, open) })
	t.Run("BoundedDelete", func(t *testing.T) { testBoundedDelete(t, open) })
	t.Run("BoundedDeleteConcurrent", func(t *testing.T) { testBoundedDeleteConcurrent(t, open) })
	t.Run("UniqueCheck", func(t *testing.T) { testUniqueCheck(t, open) })
	t.Run("UniqueIndex", func(t *testing.T) { testUniqueIndex(t, open) })
	t.Run("HotRow", func(t *testing.T) { HotRow(t, open, 8, 2000) })
	t.Run("TxCounts", func(t *testing.T) { TxCounts(t, open) })
}

func testIbench(t *testing.T, open Opener) {
	ctx := context.Background()
	dir := t.TempDir()
	db := open(t, dir)
	defer func() { db.Close() }()
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	m := newMem(tbl)
	r := rand.New(rand.NewSource(1))

	insertRange(t, c, tbl, m, 0, 5000, 100)
	if tabs, err := db.Tables(ctx); err != nil || len(tabs) != 1 || len(tabs[0].Indexes) != 0 {
		t.Fatalf("Tables before CreateIndexes = %v, %v; want pi1 without indexes", tabs, err)
	}
	must(t, db.CreateIndexes(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl)) // idempotent
	tabs, err := db.Tables(ctx)
	if err != nil || len(tabs) != 1 || !sameSchema(tabs[0], tbl) {
		t.Fatalf("Tables after CreateIndexes = %v, %v; want %v", tabs, err, tbl)
	}
	insertRange(t, c, tbl, m, 5000, 6000, 50)

	// Delete the oldest rows in a few calls.
	var gone []model.Row
	for _, n := range []int{1, 99, 400, 500} {
		got, err := c.DeleteOldest(ctx, tbl, nil, n)
		must(t, err)
		if got != n {
			t.Fatalf("DeleteOldest(%d) = %d", n, got)
		}
	}
	for pk := int64(0); pk < 1000; pk++ {
		row := IbenchRow(nil, pk)
		delete(m.rows, m.key(row))
		gone = append(gone, model.Row{{Int: pk}})
	}
	m.check(t, c, r, gone)

	// Update: Set of an indexed column moves its entries; Add on a
	// non-indexed path; a missing row reports false.
	pk := model.Row{{Int: 1234}}
	ok, err := c.Update(ctx, tbl, pk, []model.Change{{Col: cCustomer, Op: model.Set, Value: model.Value{Int: 777}}, {Col: cData, Op: model.Set, Value: model.Value{Bytes: []byte("new\x00data")}}})
	if err != nil || !ok {
		t.Fatalf("Update = %v, %v", ok, err)
	}
	row := m.rows[m.key(model.Row{{Int: 1234}})]
	row[cCustomer].Int = 777
	row[cData].Bytes = []byte("new\x00data")
	if ok, err := c.Update(ctx, tbl, model.Row{{Int: 3}}, []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 1}}}); ok || err != nil {
		t.Fatalf("Update of a deleted row = %v, %v; want false, nil", ok, err)
	}
	// The moved entry is found by a bounded scan on the new value.
	var hit bool
	_, err = c.Scan(ctx, tbl, model.ScanSpec{Index: 0, Lower: model.Row{row[cProduct], {Int: 777}}, Limit: 1}, func(e model.Row) bool {
		hit = e[0].Int == row[cProduct].Int && e[1].Int == 777 && e[3].Int == 1234
		return true
	})
	if err != nil || !hit {
		t.Fatalf("scan for the updated entry: hit %v, %v", hit, err)
	}

	// Concurrent Adds on one row, on an indexed column, lose nothing (an
	// engine with its own concurrency control may fail some with a
	// conflict: they are retried).
	hot := model.Row{{Int: 2000}}
	const workers, adds = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer wc.Close()
			for i := 0; i < adds; i++ {
				ok, err := wc.Update(ctx, tbl, hot, []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 1}}})
				if errors.Is(err, kv.ErrConflict) {
					i--
					runtime.Gosched()
					continue
				}
				if err != nil || !ok {
					errs <- fmt.Errorf("update: %v %v", ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	m.rows[m.key(hot)][cPrice].Int += workers * adds
	m.check(t, c, r, gone)

	// Reopen: same schemas, same rows.
	must(t, c.Close())
	must(t, db.Close())
	db = open(t, dir)
	tabs, err = db.Tables(ctx)
	if err != nil || len(tabs) != 1 || !sameSchema(tabs[0], tbl) {
		t.Fatalf("Tables after reopen = %v, %v; want %v", tabs, err, tbl)
	}
	c, err = db.Conn(ctx)
	must(t, err)
	m.check(t, c, r, gone)
	if n, err := db.Size(ctx); err != nil || n <= 0 {
		t.Fatalf("Size = %d, %v", n, err)
	}
	if sr, ok := db.(model.StatsReporter); ok {
		if st, err := sr.Stats(ctx); err != nil || len(st) == 0 {
			t.Fatalf("Stats = %v, %v", st, err)
		}
	}
	if mt, ok := db.(model.Maintainer); ok {
		must(t, mt.Maintain(ctx))
		m.check(t, c, r, gone)
	}
	if q, ok := db.(model.Quiescer); ok {
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		waits, err := q.Quiesce(qctx)
		cancel()
		must(t, err)
		if len(waits) == 0 {
			t.Fatal("Quiesce said nothing of what it waited for")
		}
		for _, w := range waits {
			if !w.Reached || w.What == "" || w.After == "" {
				t.Fatalf("quiesce wait not reached within a minute on an idle engine: %+v", w)
			}
		}
		m.check(t, c, r, gone)
	}

	// CreateTable replaces the table: empty, no indexes.
	must(t, db.CreateTable(ctx, tbl))
	tabs, _ = db.Tables(ctx)
	if len(tabs) != 1 || len(tabs[0].Indexes) != 0 {
		t.Fatalf("Tables after re-create = %v", tabs)
	}
	if n, err := c.Scan(ctx, tbl, model.ScanSpec{Index: -1}, func(model.Row) bool { return true }); err != nil || n != 0 {
		t.Fatalf("scan of the re-created table: %d rows, %v", n, err)
	}
	if _, err := c.Scan(ctx, tbl, model.ScanSpec{Index: 0}, func(model.Row) bool { return true }); err == nil {
		t.Fatalf("scan of an index that is not built: want an error")
	}
	must(t, db.DropTable(ctx, tbl))
	if tabs, _ := db.Tables(ctx); len(tabs) != 0 {
		t.Fatalf("Tables after drop = %v", tabs)
	}
	if err := c.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 1)}); err == nil {
		t.Fatalf("insert into a dropped table: want an error")
	}
	must(t, c.Close())
}

func testStrings(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := StringTable("s")
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	m := newMem(tbl)
	var rows []model.Row
	for i := int64(0); i < 300; i++ {
		row := stringRow(i)
		if _, dup := m.rows[m.key(row)]; dup {
			continue
		}
		m.put(row)
		rows = append(rows, row)
	}
	must(t, c.Insert(ctx, tbl, rows))
	m.check(t, c, rand.New(rand.NewSource(2)), nil)
	n, err := c.DeleteOldest(ctx, tbl, nil, 5)
	if err != nil || n != 5 {
		t.Fatalf("DeleteOldest = %d, %v", n, err)
	}
	for _, e := range m.entries(-1)[:5] {
		delete(m.rows, m.key(model.Row{e[0], e[1]}))
	}
	m.check(t, c, rand.New(rand.NewSource(3)), nil)
}

// testConcurrent runs the ibench write pattern: an inserter appending at the
// PK tail, a deleter removing from the head, and a query worker, each on its
// own Conn.
func testConcurrent(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	ins, err := db.Conn(ctx)
	must(t, err)
	m := newMem(tbl)
	insertRange(t, ins, tbl, m, 0, 3000, 100)

	// The indexes are built while the writers run.
	const total = 8000
	var inserted, deleted atomic.Int64
	var built atomic.Bool
	inserted.Store(3000)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	stop := make(chan struct{})
	wg.Add(5)
	go func() { // index build
		defer wg.Done()
		for inserted.Load() < 3500 {
			time.Sleep(time.Millisecond)
		}
		if err := db.CreateIndexes(ctx, tbl); err != nil {
			errs <- err
			return
		}
		built.Store(true)
	}()
	go func() { // updater: +1 then -1 on live rows, so values end unchanged
		defer wg.Done()
		c, err := db.Conn(ctx)
		if err != nil {
			errs <- err
			return
		}
		defer c.Close()
		r := rand.New(rand.NewSource(8))
		for {
			select {
			case <-stop:
				return
			default:
			}
			lo, hi := deleted.Load(), inserted.Load()
			pk := model.Row{{Int: lo + r.Int63n(hi-lo)}}
			col := []int{cPrice, cCustomer, cTime}[r.Intn(3)]
			ok, err := c.Update(ctx, tbl, pk, []model.Change{{Col: col, Op: model.Add, Value: model.Value{Int: 1}}})
			if errors.Is(err, kv.ErrConflict) {
				continue // lost to a DeleteOldest of the row: nothing changed
			}
			for err == nil && ok {
				// Undo until it sticks or the row is deleted.
				ok, err = c.Update(ctx, tbl, pk, []model.Change{{Col: col, Op: model.Add, Value: model.Value{Int: -1}}})
				if errors.Is(err, kv.ErrConflict) {
					// Back off, or the Update and a DeleteOldest of the
					// row may keep failing each other.
					time.Sleep(time.Duration(r.Intn(200)) * time.Microsecond)
					ok, err = true, nil
					continue
				}
				ok = false
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	go func() { // inserter
		defer wg.Done()
		var rows []model.Row
		for pk := int64(3000); pk < total; pk += 20 {
			rows = rows[:0]
			for k := pk; k < pk+20; k++ {
				rows = append(rows, IbenchRow(nil, k))
			}
			if err := ins.Insert(ctx, tbl, rows); err != nil {
				errs <- err
				return
			}
			inserted.Add(20)
		}
	}()
	go func() { // deleter: keeps about 1000 rows
		defer wg.Done()
		c, err := db.Conn(ctx)
		if err != nil {
			errs <- err
			return
		}
		defer c.Close()
		for deleted.Load() < total-1000 {
			select {
			case <-stop:
				return
			default:
			}
			if inserted.Load()-deleted.Load() < 1000 {
				runtime.Gosched()
				continue
			}
			// The rows go in PK order from 0: the bound is the count.
			n, err := c.DeleteOldest(ctx, tbl, model.Row{{Int: deleted.Load()}}, 20)
			if err != nil {
				errs <- err
				return
			}
			deleted.Add(int64(n))
		}
	}()
	go func() { // query worker
		defer wg.Done()
		c, err := db.Conn(ctx)
		if err != nil {
			errs <- err
			return
		}
		defer c.Close()
		r := rand.New(rand.NewSource(9))
		for {
			select {
			case <-stop:
				return
			default:
			}
			ix := r.Intn(3)
			if !built.Load() {
				ix = -1
			}
			var prev model.Row
			proj := tbl.IndexColumns(ix)
			_, err := c.Scan(ctx, tbl, model.ScanSpec{Index: ix, Lower: model.Row{{Int: int64(r.Intn(30))}}, Limit: 10}, func(e model.Row) bool {
				if prev != nil && cmpValues(tbl, proj, prev, e) >= 0 {
					err = fmt.Errorf("index %d out of order: %v then %v", ix, prev, e)
				}
				prev = model.CopyRow(prev, e)
				return true
			})
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	// Wait for the writers, then stop the reader. The watchdog is on
	// progress, not on the whole: a slow machine (-race, other load) is
	// not a hang.
	lastDone, lastAt := int64(-1), time.Now()
	for inserted.Load() < total || deleted.Load() < total-1000 || !built.Load() {
		select {
		case err := <-errs:
			close(stop)
			t.Fatal(err)
		default:
		}
		done := inserted.Load() + deleted.Load()
		if built.Load() {
			done++
		}
		if done != lastDone {
			lastDone, lastAt = done, time.Now()
		} else if time.Since(lastAt) > 30*time.Second {
			close(stop)
			t.Fatalf("no progress for 30 s: %d inserted, %d deleted", inserted.Load(), deleted.Load())
		}
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	m = newMem(tbl)
	for pk := int64(total - 1000); pk < total; pk++ {
		m.put(IbenchRow(nil, pk))
	}
	m.check(t, ins, rand.New(rand.NewSource(4)), []model.Row{{{Int: 0}}, {{Int: total - 1001}}})
	must(t, ins.Close())
}

func testTx(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	m := newMem(tbl)
	insertRange(t, c, tbl, m, 0, 100, 100)
	tr, ok := c.(model.Transactor)
	if !ok {
		t.Skip("engine has no transactions")
	}
	price := func(conn model.Ops, pk int64) int64 {
		var p int64 = -1
		if _, err := conn.Get(ctx, tbl, []model.Row{{{Int: pk}}}, func(r model.Row) { p = r[cPrice].Int }); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := price(c, 5)

	// Rollback discards; reads inside see the Tx's own writes.
	tx, err := tr.Begin(ctx)
	must(t, err)
	if err := c.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 500)}); err == nil {
		t.Fatal("conn use during its open Tx: want an error")
	}
	if _, err := tx.Update(ctx, tbl, model.Row{{Int: 5}}, []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 1000}}}); err != nil {
		t.Fatal(err)
	}
	if got := price(tx, 5); got != before+1000 {
		t.Fatalf("price inside the Tx = %d, want %d", got, before+1000)
	}
	must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 500)}))
	if n, err := tx.Scan(ctx, tbl, model.ScanSpec{Index: -1, Lower: model.Row{{Int: 500}}}, func(model.Row) bool { return true }); err != nil || n != 1 {
		t.Fatalf("scan inside the Tx for its insert: %d, %v", n, err)
	}
	must(t, tx.Rollback(ctx))
	if got := price(c, 5); got != before {
		t.Fatalf("price after rollback = %d, want %d", got, before)
	}
	if err := tx.Commit(ctx); err == nil {
		t.Fatal("commit after rollback: want an error")
	}

	// Commit applies everything at once.
	tx, err = tr.Begin(ctx)
	must(t, err)
	if _, err := tx.Update(ctx, tbl, model.Row{{Int: 5}}, []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 7}}}); err != nil {
		t.Fatal(err)
	}
	must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 500)}))
	if n, err := tx.DeleteOldest(ctx, tbl, nil, 2); err != nil || n != 2 {
		t.Fatalf("DeleteOldest in Tx = %d, %v", n, err)
	}
	must(t, tx.Commit(ctx))
	m.rows[m.key(model.Row{{Int: 5}})][cPrice].Int += 7
	m.put(IbenchRow(nil, 500))
	delete(m.rows, m.key(model.Row{{Int: 0}}))
	delete(m.rows, m.key(model.Row{{Int: 1}}))
	m.check(t, c, rand.New(rand.NewSource(5)), []model.Row{{{Int: 0}}, {{Int: 1}}})
}

func testBadInput(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	if err := c.Insert(ctx, tbl, []model.Row{{{Int: 1}}}); err == nil {
		t.Error("insert of a short row: want an error")
	}
	if _, err := c.Get(ctx, tbl, []model.Row{{}}, func(model.Row) {}); err == nil {
		t.Error("get with an empty key: want an error")
	}
	must(t, c.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 1)}))
	if _, err := c.Update(ctx, tbl, model.Row{{Int: 1}}, []model.Change{{Col: cID, Op: model.Set}}); err == nil {
		t.Error("update of the PK column: want an error")
	}
	if _, err := c.Update(ctx, tbl, model.Row{{Int: 1}}, []model.Change{{Col: cData, Op: model.Add}}); err == nil {
		t.Error("add to a string column: want an error")
	}
	if _, err := c.Update(ctx, tbl, model.Row{{Int: 1}}, []model.Change{{Col: 99}}); err == nil {
		t.Error("update of column 99: want an error")
	}
	if _, err := c.Scan(ctx, tbl, model.ScanSpec{Index: 5}, func(model.Row) bool { return true }); err == nil {
		t.Error("scan of index 5: want an error")
	}
	if _, err := c.Scan(ctx, tbl, model.ScanSpec{Index: -1, Lower: model.Row{{}, {}}}, func(model.Row) bool { return true }); err == nil {
		t.Error("scan with a lower bound longer than the key: want an error")
	}
	bad := IbenchTable("bad")
	bad.Indexes = []model.Index{{Name: "x", Columns: []int{42}}}
	if err := db.CreateIndexes(ctx, bad); err == nil {
		t.Error("create indexes on a missing table: want an error")
	}
	tbl2 := IbenchTable("pi1")
	tbl2.Indexes = []model.Index{{Name: "x", Columns: []int{42}}}
	if err := db.CreateIndexes(ctx, tbl2); err == nil {
		t.Error("index on column 42: want an error")
	}
	if err := db.CreateTable(ctx, &model.Table{Name: "nopk", Columns: []model.Column{{Name: "a"}}}); err == nil {
		t.Error("table without a PK: want an error")
	}
	if _, err := c.Scan(ctx, &model.Table{Name: "missing"}, model.ScanSpec{Index: -1}, func(model.Row) bool { return true }); err == nil {
		t.Error("scan of a missing table: want an error")
	}
}

// BenchInsert measures Insert of rows per batch into the ibench table with
// nIdx secondary indexes. Row generation reuses its rows.
func BenchInsert(b *testing.B, open Opener, rowsPerBatch, nIdx int) {
	ctx := context.Background()
	db := open(b, b.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	tbl.Indexes = tbl.Indexes[:nIdx]
	must(b, db.CreateTable(ctx, tbl))
	must(b, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(b, err)
	defer c.Close()
	rows := make([]model.Row, rowsPerBatch)
	for i := range rows {
		rows[i] = IbenchRow(nil, int64(i))
	}
	pk := int64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			r[cID].Int = pk
			r[cTime].Int = 1700000000 + pk/1000
			pk++
		}
		if err := c.Insert(ctx, tbl, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rowsPerBatch), "ns/row")
}

// OpAllocs measures heap allocations per call of each operation, at two
// sizes (10 and 100 rows), on a loaded ibench table with three indexes.
// Equal counts at both sizes mean nothing is allocated per row.
func OpAllocs(tb testing.TB, open Opener) map[string]float64 {
	ctx := context.Background()
	db := open(tb, tb.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	must(tb, db.CreateTable(ctx, tbl))
	must(tb, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(tb, err)
	defer c.Close()
	m := newMem(tbl)
	insertRange(tb, c, tbl, m, 0, 20000, 500)
	out := map[string]float64{}
	next := int64(20000)
	for _, n := range []int{10, 100} {
		rows := make([]model.Row, n)
		keys := make([]model.Row, n)
		for i := range rows {
			rows[i] = IbenchRow(nil, int64(i))
			keys[i] = model.Row{{Int: int64(10000 + i)}}
		}
		out[fmt.Sprintf("insert/%d", n)] = testing.AllocsPerRun(20, func() {
			for _, r := range rows {
				r[cID].Int = next
				next++
			}
			must(tb, c.Insert(ctx, tbl, rows))
		})
		out[fmt.Sprintf("get/%d", n)] = testing.AllocsPerRun(20, func() {
			if _, err := c.Get(ctx, tbl, keys, func(model.Row) {}); err != nil {
				tb.Fatal(err)
			}
		})
		lower := model.Row{{Int: 3}}
		for ix := -1; ix < 3; ix++ {
			for _, desc := range []bool{false, true} {
				spec := model.ScanSpec{Index: ix, Lower: lower, Limit: n, Desc: desc}
				out[fmt.Sprintf("scan%d/desc=%v/%d", ix, desc, n)] = testing.AllocsPerRun(20, func() {
					if _, err := c.Scan(ctx, tbl, spec, func(model.Row) bool { return true }); err != nil {
						tb.Fatal(err)
					}
				})
			}
		}
		out[fmt.Sprintf("delete/%d", n)] = testing.AllocsPerRun(20, func() {
			if _, err := c.DeleteOldest(ctx, tbl, nil, n); err != nil {
				tb.Fatal(err)
			}
		})
	}
	changes := []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 1}}}
	pk := model.Row{{Int: 15000}}
	out["update"] = testing.AllocsPerRun(20, func() {
		if _, err := c.Update(ctx, tbl, pk, changes); err != nil {
			tb.Fatal(err)
		}
	})
	if tr, ok := c.(model.Transactor); ok {
		out["tx/update"] = testing.AllocsPerRun(20, func() {
			tx, err := tr.Begin(ctx)
			must(tb, err)
			if _, err := tx.Update(ctx, tbl, pk, changes); err != nil {
				tb.Fatal(err)
			}
			must(tb, tx.Commit(ctx))
		})
	}
	return out
}

// HotRowUntilConflict runs HotRow up to 3 times, until an attempt sees a
// conflict: conflicts need two updates in flight at once, and on a loaded
// 2-core machine 8 goroutines can run one after another for a whole
// attempt.
func HotRowUntilConflict(t *testing.T, open Opener, clients int, commits int64) (conflicts int64, conflictErr error) {
	for range 3 {
		if conflicts, conflictErr = HotRow(t, open, clients, commits); conflicts > 0 {
			break
		}
	}
	return conflicts, conflictErr
}

// HotRow runs clients goroutines that add 1 to one row's counter until
// commits updates have committed, retrying the ones that lose a conflict
// (kv.ErrConflict), and checks that no update was lost: the counter grew by
// exactly the updates committed. It returns the conflicts seen and one of
// their errors (nil if none).
func HotRow(t *testing.T, open Opener, clients int, commits int64) (conflicts int64, conflictErr error) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("hot")
	must(t, db.CreateTable(ctx, tbl))
	c0, err := db.Conn(ctx)
	must(t, err)
	defer c0.Close()
	must(t, c0.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 1), IbenchRow(nil, 2)}))
	price := func() int64 {
		var p int64
		if _, err := c0.Get(ctx, tbl, []model.Row{{{Int: 1}}}, func(r model.Row) { p = r[cPrice].Int }); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := price()
	var committed, nConflicts atomic.Int64
	var conflictOnce sync.Once
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			pk := model.Row{{Int: 1}}
			ch := []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 1}}}
			for committed.Load() < commits {
				ok, err := c.Update(ctx, tbl, pk, ch)
				if errors.Is(err, kv.ErrConflict) {
					nConflicts.Add(1)
					conflictOnce.Do(func() { conflictErr = err })
					runtime.Gosched()
					continue
				}
				if err != nil || !ok {
					errs <- fmt.Errorf("update: found %v, %v", ok, err)
					return
				}
				committed.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got, want := price()-before, committed.Load(); got != want {
		t.Fatalf("counter grew by %d, %d updates committed: %d lost", got, want, want-got)
	}
	return nConflicts.Load(), conflictErr
}
