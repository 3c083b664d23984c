package enginetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rumbench/internal/engine/kv"
	"rumbench/internal/model"
	"rumbench/internal/workload/retry"
)

// Opener opens the engine on dir (the same dir again reopens it).
type Opener func(t testing.TB, dir string) model.DB

// Conformance runs the conformance suite, the one every engine's tests run
// against the real engine (the kv engines with several option sets): each
// operation checked against an in-memory model of the table (oracle.go),
// reopening, concurrent writers, transactions, bad input, bounded deletes,
// unique checks, and Semantics. open opens the engine under test on a data
// directory; a server engine's opener maps it to a database (ServerOpener).
func Conformance(t *testing.T, open Opener) {
	t.Run("Ibench", func(t *testing.T) { testIbench(t, open) })
	t.Run("Strings", func(t *testing.T) { testStrings(t, open) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, open) })
	t.Run("Tx", func(t *testing.T) { testTx(t, open) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, open) })
	t.Run("BoundedDelete", func(t *testing.T) { testBoundedDelete(t, open) })
	t.Run("BoundedDeleteConcurrent", func(t *testing.T) { testBoundedDeleteConcurrent(t, open) })
	t.Run("UniqueCheck", func(t *testing.T) { testUniqueCheck(t, open) })
	t.Run("AppendingInserts", func(t *testing.T) { testAppendingInserts(t, open) })
	t.Run("UniqueIndex", func(t *testing.T) { testUniqueIndex(t, open) })
	t.Run("HotRow", func(t *testing.T) { HotRow(t, open, 8, 2000) })
	t.Run("TxCounts", func(t *testing.T) { TxCounts(t, open) })
	t.Run("Semantics", func(t *testing.T) {
		db := open(t, t.TempDir())
		t.Cleanup(func() { db.Close() })
		Semantics(t, db)
	})
}

// retryable reports whether the suite's concurrent writers retry err: a
// conflict the engine rolled back (kv.ErrConflict, or a deadlock, lock wait
// timeout, serialization failure or busy error of a server or SQLite, as
// hotrow classifies them), so running the operation again cannot
// double-count.
func retryable(err error) bool {
	return errors.Is(err, kv.ErrConflict) || retry.Classify(err).Retryable()
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
				if retryable(err) {
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
	// An index that is not built: the kv layer and the engines that force
	// an index (SQLite, MySQL) refuse the scan, PostgreSQL reads the empty
	// table by sorting; none returns entries.
	if n, err := c.Scan(ctx, tbl, model.ScanSpec{Index: 0}, func(model.Row) bool { return true }); err == nil && n != 0 {
		t.Fatalf("scan of an index that is not built: %d entries, want an error or none", n)
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
			if retryable(err) {
				continue // lost to a DeleteOldest of the row: nothing changed
			}
			for err == nil && ok {
				// Undo until it sticks or the row is deleted.
				ok, err = c.Update(ctx, tbl, pk, []model.Change{{Col: col, Op: model.Add, Value: model.Value{Int: -1}}})
				if retryable(err) {
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
			err := ins.Insert(ctx, tbl, rows)
			if retryable(err) { // rolled back (a MyRocks snapshot conflict): again
				pk -= 20
				continue
			}
			if err != nil {
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
			if retryable(err) {
				continue // rolled back (a MyRocks snapshot conflict): again
			}
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
// (retryable), and checks that no update was lost: the counter grew by
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
				if retryable(err) {
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
