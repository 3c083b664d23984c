package kvtest

import (
	"context"
	"math/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"rumbench/internal/model"
)

// deleteOldestExpect deletes the n oldest rows and checks they were the
// expected ones: each want key is gone and the key after them is still there.
func deleteOldestExpect(tb testing.TB, c model.Conn, tbl *model.Table, m *mem, want ...int64) {
	tb.Helper()
	ctx := context.Background()
	n, err := c.DeleteOldest(ctx, tbl, len(want))
	if err != nil || n != len(want) {
		tb.Fatalf("DeleteOldest(%d) = %d, %v; want %d", len(want), n, err, len(want))
	}
	for _, pk := range want {
		if _, ok := m.rows[m.key(model.Row{{Int: pk}})]; !ok {
			tb.Fatalf("test bug: %d is not in the model", pk)
		}
		delete(m.rows, m.key(model.Row{{Int: pk}}))
		if got, err := c.Get(ctx, tbl, []model.Row{{{Int: pk}}}, func(model.Row) {}); err != nil || got != 0 {
			tb.Fatalf("DeleteOldest(%d) left row %d (Get found %d, %v): it is not the oldest any more", len(want), pk, got, err)
		}
	}
}

// testLowMark checks that DeleteOldest, which starts from where its last
// call stopped, still finds rows written below that point: by Insert, by a
// Tx, and in a re-created table or a reopened DB.
func testLowMark(t *testing.T, open Opener) {
	ctx := context.Background()
	dir := t.TempDir()
	db := open(t, dir)
	defer func() { db.Close() }()
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	m := newMem(tbl)
	insertRange(t, c, tbl, m, 1000, 6000, 100)
	// Many small deletes, as the ibench deleter does: 1000..3999 go.
	for i := 0; i < 60; i++ {
		if n, err := c.DeleteOldest(ctx, tbl, 50); err != nil || n != 50 {
			t.Fatalf("DeleteOldest(50) call %d = %d, %v", i, n, err)
		}
	}
	for pk := int64(1000); pk < 4000; pk++ {
		delete(m.rows, m.key(model.Row{{Int: pk}}))
	}
	r := rand.New(rand.NewSource(11))
	m.check(t, c, r, []model.Row{{{Int: 1000}}, {{Int: 3999}}})

	// Below the mark: far below, in the deleted range, just below the
	// first live row.
	insertRange(t, c, tbl, m, 2500, 2501, 1)
	deleteOldestExpect(t, c, tbl, m, 2500)
	insertRange(t, c, tbl, m, 3999, 4000, 1)
	insertRange(t, c, tbl, m, 10, 11, 1)
	deleteOldestExpect(t, c, tbl, m, 10, 3999, 4000, 4001)
	// A batch mixing keys above and below the mark.
	must(t, c.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 9000), IbenchRow(nil, 20), IbenchRow(nil, 9001)}))
	for _, pk := range []int64{9000, 20, 9001} {
		m.put(IbenchRow(nil, pk))
	}
	deleteOldestExpect(t, c, tbl, m, 20, 4002)

	if tr, ok := c.(model.Transactor); ok {
		// Committed Tx insert below the mark.
		tx, err := tr.Begin(ctx)
		must(t, err)
		must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 7)}))
		must(t, tx.Commit(ctx))
		m.put(IbenchRow(nil, 7))
		deleteOldestExpect(t, c, tbl, m, 7, 4003)
		// Rolled back: nothing to find below the mark.
		tx, err = tr.Begin(ctx)
		must(t, err)
		must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 8)}))
		must(t, tx.Rollback(ctx))
		deleteOldestExpect(t, c, tbl, m, 4004)
		// DeleteOldest in the Tx sees the Tx's own row below the mark.
		tx, err = tr.Begin(ctx)
		must(t, err)
		must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 9)}))
		if n, err := tx.DeleteOldest(ctx, tbl, 2); err != nil || n != 2 {
			t.Fatalf("DeleteOldest(2) in a Tx = %d, %v", n, err)
		}
		must(t, tx.Commit(ctx))
		delete(m.rows, m.key(model.Row{{Int: 4005}}))
		m.check(t, c, r, []model.Row{{{Int: 9}}, {{Int: 4005}}, {{Int: 8}}})
		deleteOldestExpect(t, c, tbl, m, 4006)
	}
	m.check(t, c, r, []model.Row{{{Int: 10}}, {{Int: 20}}, {{Int: 2500}}})

	// Reopen: the first call finds the oldest row from the table's start.
	must(t, c.Close())
	must(t, db.Close())
	db = open(t, dir)
	c, err = db.Conn(ctx)
	must(t, err)
	insertRange(t, c, tbl, m, 30, 31, 1)
	deleteOldestExpect(t, c, tbl, m, 30, 4007)
	insertRange(t, c, tbl, m, 31, 32, 1)
	deleteOldestExpect(t, c, tbl, m, 31, 4008)

	// Re-create, then drop and create: the new table starts without a mark.
	for _, drop := range []bool{false, true} {
		if drop {
			must(t, db.DropTable(ctx, tbl))
		}
		must(t, db.CreateTable(ctx, tbl))
		must(t, db.CreateIndexes(ctx, tbl))
		m = newMem(tbl)
		insertRange(t, c, tbl, m, 0, 100, 100)
		deleteOldestExpect(t, c, tbl, m, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
		m.check(t, c, r, []model.Row{{{Int: 0}}, {{Int: 9}}})
	}
	must(t, c.Close())
}

// testLowMarkConcurrent races an inserter writing below, inside and above
// the range a deleter is working on with that deleter, then drains the
// table: a row the deleter skipped would be left over.
func testLowMarkConcurrent(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	tbl.Indexes = tbl.Indexes[:1]
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	// The ibench pattern on even keys: a preloaded table, an inserter
	// appending at the tail and a deleter keeping about keep rows. The
	// inserter also adds odd keys around the oldest even row (mostly in
	// the range the deleter is working on) and ever smaller negative keys.
	const preload, keep, total = 3000, 2000, 40000
	m := newMem(tbl)
	var rows []model.Row
	for i := int64(0); i < preload; i++ {
		rows = append(rows, IbenchRow(nil, 2*i))
		if len(rows) == 200 {
			must(t, c.Insert(ctx, tbl, rows))
			rows = rows[:0]
		}
	}
	var deleted, inserted atomic.Int64
	inserted.Store(preload)
	done := make(chan struct{})
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // inserter
		defer wg.Done()
		defer close(done)
		ic, err := db.Conn(ctx)
		if err != nil {
			errs <- err
			return
		}
		defer ic.Close()
		r := rand.New(rand.NewSource(12))
		used := map[int64]bool{}
		tail, neg, front := int64(2*preload), int64(-1), int64(0)
		var batch []model.Row
		for inserted.Load() < total {
			batch = append(batch[:0], IbenchRow(nil, tail), IbenchRow(nil, tail+2))
			tail += 4
			// The even rows go in order: scan from the last front seen,
			// not over every tombstone.
			if _, err := ic.Scan(ctx, tbl, model.ScanSpec{Index: -1, Lower: model.Row{{Int: front}}}, func(row model.Row) bool {
				front = row[0].Int
				return front&1 != 0
			}); err != nil {
				errs <- err
				return
			}
			if pk := front&^1 + 2*int64(r.Intn(32)-2) + 1; pk > 0 && !used[pk] {
				used[pk] = true
				batch = append(batch, IbenchRow(nil, pk))
			}
			if r.Intn(8) == 0 {
				batch = append(batch, IbenchRow(nil, neg))
				neg--
			}
			if err := ic.Insert(ctx, tbl, batch); err != nil {
				errs <- err
				return
			}
			inserted.Add(int64(len(batch)))
		}
	}()
	go func() { // deleter
		defer wg.Done()
		dc, err := db.Conn(ctx)
		if err != nil {
			errs <- err
			return
		}
		defer dc.Close()
		for {
			select {
			case <-done:
				return
			default:
			}
			if inserted.Load()-deleted.Load() < keep {
				runtime.Gosched()
				continue
			}
			n, err := dc.DeleteOldest(ctx, tbl, 20)
			if err != nil {
				errs <- err
				return
			}
			deleted.Add(int64(n))
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Drain: every row must be found.
	for {
		n, err := c.DeleteOldest(ctx, tbl, 100)
		must(t, err)
		if n == 0 {
			break
		}
		deleted.Add(int64(n))
	}
	left := scanAll(t, c, tbl, model.ScanSpec{Index: -1})
	if len(left) != 0 || deleted.Load() != inserted.Load() {
		t.Fatalf("after draining: %d rows left (first %v), %d deleted of %d inserted", len(left), left[0], deleted.Load(), inserted.Load())
	}
	m.check(t, c, rand.New(rand.NewSource(13)), nil)
}

// BenchDeleteOldest measures DeleteOldest of 50 rows from the ibench table
// (three indexes) after the oldest prefix rows have already been deleted by
// the same kind of calls: the cost should not grow with prefix.
func BenchDeleteOldest(b *testing.B, open Opener, prefix int) {
	const per = 50
	ctx := context.Background()
	db := open(b, b.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	must(b, db.CreateTable(ctx, tbl))
	must(b, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(b, err)
	defer c.Close()
	total := int64(prefix + (b.N+1)*per)
	rows := make([]model.Row, 500)
	for pk := int64(0); pk < total; pk += int64(len(rows)) {
		k := min(int64(len(rows)), total-pk)
		for i := range rows[:k] {
			rows[i] = IbenchRow(rows[i], pk+int64(i))
		}
		must(b, c.Insert(ctx, tbl, rows[:k]))
	}
	for i := 0; i < prefix/per; i++ {
		if n, err := c.DeleteOldest(ctx, tbl, per); err != nil || n != per {
			b.Fatalf("delete the prefix: %d, %v", n, err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n, err := c.DeleteOldest(ctx, tbl, per); err != nil || n != per {
			b.Fatalf("DeleteOldest(%d) = %d, %v", per, n, err)
		}
	}
}
