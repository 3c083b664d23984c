package sqlite

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"rumbench/internal/engine"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// ibenchTable is the table of design §4.1 with its three indexes.
func ibenchTable(name string) *model.Table {
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
		PK: []int{0},
		Indexes: []model.Index{
			{Name: "marketsegment", Columns: []int{3, 4, 5}},
			{Name: "registersegment", Columns: []int{2, 4, 5}},
			{Name: "pdc", Columns: []int{5, 1, 4}},
		},
	}
}

// genRow makes row id deterministically; data lengths include 0 and a few
// large values.
func genRow(id int64) model.Row {
	r := rand.New(rand.NewPCG(uint64(id), 42))
	n := 10 + r.IntN(11)
	switch id % 97 {
	case 0:
		n = 0
	case 1:
		n = 5000
	}
	var data []byte
	if n > 0 {
		data = bytes.Repeat([]byte{byte('a' + id%26)}, n)
	}
	return model.Row{
		{Int: id},
		{Int: 1_700_000_000 + id/100},
		{Int: r.Int64N(1000)},
		{Int: r.Int64N(10000)},
		{Int: r.Int64N(100000)},
		{Int: r.Int64N(500)},
		{Bytes: data},
	}
}

func openDB(t testing.TB, dir string, opts map[string]string) model.DB {
	t.Helper()
	db, err := engine.Open(context.Background(), "sqlite", model.Config{DataDir: dir, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func openConn(t testing.TB, db model.DB) model.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func insertRange(t testing.TB, c model.Conn, tbl *model.Table, from, to int64, batch int) {
	t.Helper()
	var rows []model.Row
	flush := func() {
		if err := c.Insert(context.Background(), tbl, rows); err != nil {
			t.Fatal(err)
		}
		rows = rows[:0]
	}
	for id := from; id < to; id++ {
		rows = append(rows, genRow(id))
		if len(rows) == batch {
			flush()
		}
	}
	if len(rows) > 0 {
		flush()
	}
}

// rowsEqual compares rows treating nil and empty bytes alike.
func rowsEqual(a, b model.Row) bool {
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

// entries returns the expected index entries (t.IndexColumns(idx)) of rows
// ids, in index order.
func entries(tbl *model.Table, idx int, ids []int64) [][]int64 {
	cols := tbl.IndexColumns(idx)
	out := make([][]int64, 0, len(ids))
	for _, id := range ids {
		r := genRow(id)
		e := make([]int64, len(cols))
		for i, c := range cols {
			e[i] = r[c].Int
		}
		out = append(out, e)
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

// scanAll runs a scan and returns the Int values of each entry.
func scanAll(t testing.TB, c model.Ops, tbl *model.Table, spec model.ScanSpec) [][]int64 {
	t.Helper()
	var got [][]int64
	n, err := c.Scan(context.Background(), tbl, spec, func(r model.Row) bool {
		e := make([]int64, len(r))
		for i, v := range r {
			e[i] = v.Int
		}
		got = append(got, e)
		return true
	})
	if err != nil {
		t.Fatalf("scan %+v: %v", spec, err)
	}
	if n != len(got) {
		t.Fatalf("scan %+v returned %d, called fn %d times", spec, n, len(got))
	}
	return got
}

// expectScan computes what spec should return from the sorted entries.
func expectScan(all [][]int64, spec model.ScanSpec) [][]int64 {
	var lower []int64
	for _, v := range spec.Lower {
		lower = append(lower, v.Int)
	}
	var out [][]int64
	pick := func(e []int64) bool {
		c := slices.Compare(e[:len(lower)], lower)
		if spec.Desc {
			return c <= 0
		}
		return c >= 0
	}
	n := len(all)
	for i := 0; i < n; i++ {
		e := all[i]
		if spec.Desc {
			e = all[n-1-i]
		}
		if pick(e) {
			out = append(out, e)
			if spec.Limit > 0 && len(out) == spec.Limit {
				break
			}
		}
	}
	return out
}

// checkScans compares full and bounded scans of every index with the model.
func checkScans(t *testing.T, c model.Ops, tbl *model.Table, live []int64) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	for idx := -1; idx < len(tbl.Indexes); idx++ {
		all := entries(tbl, idx, live)
		for _, desc := range []bool{false, true} {
			full := scanAll(t, c, tbl, model.ScanSpec{Index: idx, Desc: desc})
			if want := expectScan(all, model.ScanSpec{Desc: desc}); !reflect.DeepEqual(full, want) {
				t.Fatalf("full scan of index %d desc=%v: %d entries, want %d (first %v, want %v)", idx, desc, len(full), len(want), full[:min(1, len(full))], want[:min(1, len(want))])
			}
		}
		ncols := len(tbl.IndexColumns(idx))
		for i := 0; i < 40; i++ {
			// Bounds from existing entries (exact hits) and random values.
			src := all[r.IntN(len(all))]
			prefix := 1 + r.IntN(ncols)
			lower := make(model.Row, prefix)
			for j := range lower {
				lower[j].Int = src[j]
				if i%3 == 0 {
					lower[j].Int += int64(r.IntN(5)) - 2
				}
			}
			spec := model.ScanSpec{Index: idx, Lower: lower, Limit: []int{10, 1, 0, 500}[i%4], Desc: i%2 == 1}
			got := scanAll(t, c, tbl, spec)
			want := expectScan(all, spec)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("scan %+v: got %d entries %v..., want %d %v...", spec, len(got), got[:min(2, len(got))], len(want), want[:min(2, len(want))])
			}
		}
	}
}

// TestConformance runs the conformance suite every engine runs.
func TestConformance(t *testing.T) {
	enginetest.Conformance(t, func(tb testing.TB, dir string) model.DB { return openDB(tb, dir, nil) })
}

// TestStatementSplit: an Insert batch and a Get larger than one statement
// can carry (MaxParams/7 = 4680 rows) are split inside one call, and the
// rows come back whole. The rest of the operations' behaviour is the
// conformance suite's (TestConformance).
func TestStatementSplit(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), nil)
	defer db.Close()
	tbl := ibenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c := openConn(t, db)
	defer c.Close()
	insertRange(t, c, tbl, 0, 100, 7)
	insertRange(t, c, tbl, 100, 300, 100)
	insertRange(t, c, tbl, 300, 5000, 4700)
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if n, err := c.DeleteOldest(ctx, tbl, nil, 1000); err != nil || n != 1000 {
		t.Fatalf("DeleteOldest(1000) = %d, %v", n, err)
	}
	var live []int64
	for id := int64(1000); id < 5000; id++ {
		live = append(live, id)
	}
	seen := map[int64]bool{}
	var keys []model.Row
	for id := int64(0); id < 40000; id++ {
		keys = append(keys, model.Row{{Int: id}})
	}
	got, err := c.Get(ctx, tbl, keys, func(r model.Row) {
		id := r[0].Int
		if seen[id] {
			t.Fatalf("Get returned %d twice", id)
		}
		seen[id] = true
		if !rowsEqual(r, genRow(id)) {
			t.Fatalf("Get row %d = %v, want %v", id, r, genRow(id))
		}
	})
	if err != nil || got != len(live) || len(seen) != len(live) {
		t.Fatalf("Get of 40000 keys = %d (%d distinct), %v; want %d", got, len(seen), err, len(live))
	}
	checkScans(t, c, tbl, live)
}

// TestRowValueFallback runs the scans again with the spelled-out form of a
// multi-column bound that dialects without row values use.
func TestRowValueFallback(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), nil)
	defer db.Close()
	tbl := ibenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c := openConn(t, db)
	insertRange(t, c, tbl, 0, 2000, 500)
	c.Close()
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	alt, err := sqleng.New(ctx, db.(*DB).SQL(), noRowValues{}, model.Info{})
	if err != nil {
		t.Fatal(err)
	}
	ac := openConn(t, alt)
	defer ac.Close()
	var live []int64
	for id := int64(0); id < 2000; id++ {
		live = append(live, id)
	}
	checkScans(t, ac, tbl, live)
}

type noRowValues struct{ Dialect }

func (noRowValues) RowValues() bool { return false }

// TestConcurrentUpdates checks that increments from 8 connections are not
// lost, both as single statements and as read-modify-write transactions,
// and that rollback undoes.
func TestConcurrentUpdates(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), nil)
	defer db.Close()
	tbl := ibenchTable("hot")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c := openConn(t, db)
	defer c.Close()
	row := genRow(1)
	row[5].Int = 0
	if err := c.Insert(ctx, tbl, []model.Row{row}); err != nil {
		t.Fatal(err)
	}
	key := model.Row{{Int: 1}}
	price := func() int64 {
		var v int64 = -1
		if _, err := c.Get(ctx, tbl, []model.Row{key}, func(r model.Row) { v = r[5].Int }); err != nil {
			t.Fatal(err)
		}
		return v
	}

	const workers, each = 8, 40
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
			for i := 0; i < each; i++ {
				if i%2 == 0 {
					if _, err := wc.Update(ctx, tbl, key, []model.Change{{Col: 5, Op: model.Add, Value: model.Value{Int: 1}}}); err != nil {
						errs <- err
						return
					}
					continue
				}
				// Read, then write what was read plus one: only correct if
				// transactions are serialised from their start.
				tx, err := wc.(model.Transactor).Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				var v int64
				if _, err := tx.Get(ctx, tbl, []model.Row{key}, func(r model.Row) { v = r[5].Int }); err != nil {
					tx.Rollback(ctx)
					errs <- err
					return
				}
				if _, err := tx.Update(ctx, tbl, key, []model.Change{{Col: 5, Op: model.Set, Value: model.Value{Int: v + 1}}}); err != nil {
					tx.Rollback(ctx)
					errs <- err
					return
				}
				if err := tx.Commit(ctx); err != nil {
					errs <- err
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
	if got := price(); got != workers*each {
		t.Fatalf("after %d increments price = %d", workers*each, got)
	}

	tx, err := c.(model.Transactor).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, tbl, []model.Row{key}, func(model.Row) {}); err == nil {
		t.Fatal("Conn operation while a Tx is open succeeded")
	}
	if _, err := tx.Update(ctx, tbl, key, []model.Change{{Col: 5, Op: model.Add, Value: model.Value{Int: 1000}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(ctx, tbl, []model.Row{genRow(2)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, sqleng.ErrTxDone) {
		t.Fatalf("Commit after Rollback = %v", err)
	}
	if got := price(); got != workers*each {
		t.Fatalf("after rollback price = %d", got)
	}
	if n, _ := c.Get(ctx, tbl, []model.Row{{{Int: 2}}}, func(model.Row) {}); n != 0 {
		t.Fatal("rolled back insert is visible")
	}

	tx, err = c.(model.Transactor).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Update(ctx, tbl, key, []model.Change{{Col: 5, Op: model.Add, Value: model.Value{Int: 5}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(ctx, tbl, []model.Row{genRow(2)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatalf("Rollback after Commit = %v", err)
	}
	if got := price(); got != workers*each+5 {
		t.Fatalf("after commit price = %d", got)
	}
	if n, _ := c.Get(ctx, tbl, []model.Row{{{Int: 2}}}, func(model.Row) {}); n != 1 {
		t.Fatal("committed insert is not visible")
	}
}

// TestReopen checks that schemas and rows survive Close and Open.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := map[string]string{"page_size": "8192", "cache_size": "8MB"}
	db := openDB(t, dir, opts)
	t1, t2 := ibenchTable("pi1"), ibenchTable("pi2")
	t2.Indexes = t2.Indexes[:1]
	c := openConn(t, db)
	for _, tbl := range []*model.Table{t1, t2} {
		if err := db.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		insertRange(t, c, tbl, 0, 1000, 100)
	}
	if err := db.CreateIndexes(ctx, t1); err != nil {
		t.Fatal(err)
	}
	if got := db.Info().Settings["page_size"]; got != "8192" {
		t.Fatalf("page_size setting = %q", got)
	}
	size, err := db.Size(ctx)
	if err != nil || size < 1000*20 {
		t.Fatalf("Size = %d, %v", size, err)
	}
	if err := db.(model.Maintainer).Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopening with another page size keeps the file's.
	db = openDB(t, dir, map[string]string{"page_size": "1024"})
	defer db.Close()
	if got := db.Info().Settings["page_size"]; got != "8192" {
		t.Fatalf("page_size after reopen = %q", got)
	}
	tables, err := db.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []*model.Table{t1, ibenchTable("pi2")}; len(tables) != 2 || !reflect.DeepEqual(tables[0], want[0]) {
		t.Fatalf("Tables() = %+v", tables)
	}
	if len(tables[1].Indexes) != 0 {
		t.Fatalf("pi2 has indexes %v, none were built", tables[1].Indexes)
	}
	c = openConn(t, db)
	defer c.Close()
	for _, tbl := range tables {
		got := scanAll(t, c, tbl, model.ScanSpec{Index: -1})
		if len(got) != 1000 {
			t.Fatalf("%s has %d rows after reopen", tbl.Name, len(got))
		}
	}
	var live []int64
	for id := int64(0); id < 1000; id++ {
		live = append(live, id)
	}
	checkScans(t, c, tables[0], live)
	n, err := c.Get(ctx, tables[1], []model.Row{{{Int: 999}}}, func(r model.Row) {
		if !rowsEqual(r, genRow(999)) {
			t.Fatalf("row after reopen = %v", r)
		}
	})
	if err != nil || n != 1 {
		t.Fatalf("Get after reopen = %d, %v", n, err)
	}
	// Building the remaining index of pi2 keeps the built one.
	t2full := ibenchTable("pi2")
	if err := db.CreateIndexes(ctx, t2full); err != nil {
		t.Fatal(err)
	}
	if tables, _ := db.Tables(ctx); !reflect.DeepEqual(tables[1], t2full) {
		t.Fatalf("pi2 after CreateIndexes = %+v", tables[1])
	}
	st, err := db.(model.StatsReporter).Stats(ctx)
	if err != nil || st["page_size"] != int64(8192) {
		t.Fatalf("Stats = %v, %v", st, err)
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ key, val, want string }{
		{"journal_mode", "wall", "journal_mode"},
		{"synchronous", "sometimes", "off, normal, full"},
		{"cache_size", "lots", "cache_size"},
		{"cache_size", "-5MB", "cache_size"},
		{"busy_timeout", "10s", "busy_timeout"},
		{"mmap_size", "1TBB", "mmap_size"},
		{"page_size", "1000", "power of two"},
		{"wal_autocheckpoint", "-1", "wal_autocheckpoint"},
		{"page_size", "131072", "page_size"},
		{"no_such", "1", "has no setting"},
	} {
		_, err := engine.Open(ctx, "sqlite", model.Config{DataDir: t.TempDir(), Options: map[string]string{tc.key: tc.val}})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: err = %v, want a one-line error mentioning %q", tc.key, tc.val, err, tc.want)
		}
	}
	for in, want := range map[string]int64{"0": 0, "4096": 4096, "64MB": 64 << 20, "64 MiB": 64 << 20, "1g": 1 << 30, "512k": 512 << 10, "100B": 100} {
		if got, err := parseBytes("x", in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	db := openDB(t, t.TempDir(), map[string]string{"journal_mode": "DELETE", "synchronous": "full", "mmap_size": "16MB"})
	defer db.Close()
	info := db.Info()
	if info.Settings["journal_mode"] != "delete" || info.Settings["synchronous"] != "full" || !strings.HasPrefix(info.Version, "3.") {
		t.Fatalf("Info = %+v", info)
	}
	if err := db.(model.Maintainer).Maintain(ctx); err != nil {
		t.Fatalf("Maintain in delete mode: %v", err)
	}
	if d, err := engine.Lookup("sqlite"); err != nil || d.Available() != nil || d.Family() != model.BTree {
		t.Fatalf("driver: %v", err)
	}
}

func TestDeleteOldestForms(t *testing.T) {
	ctx := context.Background()
	defer func(v bool) { deleteRange = v }(deleteRange)
	for _, rng := range []bool{true, false} {
		deleteRange = rng
		db := openDB(t, t.TempDir(), nil)
		tbl := ibenchTable("pi1")
		if err := db.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		c := openConn(t, db)
		insertRange(t, c, tbl, 0, 300, 100)
		// From a bound: rows below it stay.
		for _, step := range []struct {
			from    int64
			n, want int
		}{{200, 10, 10}, {205, 10, 10}, {295, 10, 5}, {300, 10, 0}} {
			if got, err := c.DeleteOldest(ctx, tbl, model.Row{{Int: step.from}}, step.n); err != nil || got != step.want {
				t.Fatalf("range=%v DeleteOldest(from %d, %d) = %d, %v; want %d", rng, step.from, step.n, got, err, step.want)
			}
		}
		if n, err := c.Scan(ctx, tbl, model.ScanSpec{Index: -1, Lower: model.Row{{Int: 199}}, Limit: 2}, func(r model.Row) bool { return true }); err != nil || n != 2 {
			t.Fatalf("range=%v: scan from 199: %d rows, %v", rng, n, err)
		}
		// Without a bound: 0..199 and 220..294 are left (275 rows).
		for _, step := range []struct{ n, want int }{{1, 1}, {99, 99}, {150, 150}, {100, 25}, {10, 0}} {
			if got, err := c.DeleteOldest(ctx, tbl, nil, step.n); err != nil || got != step.want {
				t.Fatalf("range=%v DeleteOldest(%d) = %d, %v; want %d", rng, step.n, got, err, step.want)
			}
		}
		c.Close()
		db.Close()
	}
}

// TestPlans checks that every read shape is an index range read with no
// sort, for the rowid table and for a WITHOUT ROWID one.
func TestPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), nil)
	defer db.Close()
	composite := ibenchTable("pc")
	composite.PK = []int{0, 1}
	for _, tbl := range []*model.Table{ibenchTable("pi1"), composite} {
		if err := db.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateIndexes(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		for _, d := range []sqleng.Dialect{Dialect{}, noRowValues{}} {
			for _, q := range sqleng.QueryShapes(d, tbl) {
				args := make([]any, strings.Count(q, "?"))
				for i := range args {
					args[i] = int64(1)
				}
				rows, err := db.(*DB).SQL().QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				var plan []string
				for rows.Next() {
					var id, parent, unused int
					var detail string
					if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
						t.Fatal(err)
					}
					plan = append(plan, detail)
				}
				rows.Close()
				p := strings.Join(plan, "; ")
				if strings.Contains(p, "TEMP B-TREE") {
					t.Errorf("%s\n  sorts: %s", q, p)
				}
				if strings.Contains(q, "INDEXED BY") && !strings.Contains(p, "COVERING INDEX") {
					t.Errorf("%s\n  is not covering: %s", q, p)
				}
			}
		}
	}
}
