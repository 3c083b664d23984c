package enginetest

import (
	"context"
	"errors"
	"math/rand"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rumbench/internal/model"
)

// deleteFromExpect deletes the len(want) oldest rows at or above from and
// checks they were the expected ones.
func deleteFromExpect(tb testing.TB, c model.Ops, tbl *model.Table, m *mem, from model.Row, want ...int64) {
	tb.Helper()
	ctx := context.Background()
	n, err := c.DeleteOldest(ctx, tbl, from, len(want))
	if err != nil || n != len(want) {
		tb.Fatalf("DeleteOldest(from %v, %d) = %d, %v; want %d", from, len(want), n, err, len(want))
	}
	for _, pk := range want {
		if _, ok := m.rows[m.key(model.Row{{Int: pk}})]; !ok {
			tb.Fatalf("test bug: %d is not in the model", pk)
		}
		delete(m.rows, m.key(model.Row{{Int: pk}}))
		if got, err := c.Get(ctx, tbl, []model.Row{{{Int: pk}}}, func(model.Row) {}); err != nil || got != 0 {
			tb.Fatalf("DeleteOldest(from %v, %d) left row %d (Get found %d, %v)", from, len(want), pk, got, err)
		}
	}
}

// testBoundedDelete checks that DeleteOldest deletes the oldest rows at or
// above the caller's bound, keeps every row below it, and carries no state
// from one call to the next (the kv layer used to keep a hidden low-water
// mark): the same calls on a reopened DB or in a Tx give the same rows.
func testBoundedDelete(t *testing.T, open Opener) {
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
	r := rand.New(rand.NewSource(11))
	insertRange(t, c, tbl, m, 1000, 3000, 100)

	// From the middle: the rows below the bound stay.
	deleteFromExpect(t, c, tbl, m, model.Row{{Int: 2000}}, 2000, 2001, 2002)
	// A bound inside the deleted range starts at the next live row.
	deleteFromExpect(t, c, tbl, m, model.Row{{Int: 1990}}, 1990, 1991, 1992, 1993, 1994, 1995, 1996, 1997, 1998, 1999, 2003)
	// No bound: from the table's start, whatever was deleted before.
	deleteFromExpect(t, c, tbl, m, nil, 1000, 1001)
	// The ibench deleter: many calls, each from where the last stopped.
	next := int64(1002)
	for i := 0; i < 30; i++ { // through the gap, up to 2490
		var want []int64
		for pk := next; pk < next+50; pk++ {
			if pk < 1990 || pk > 2003 {
				want = append(want, pk)
			}
			if len(want) == 50 {
				break
			}
		}
		deleteFromExpect(t, c, tbl, m, model.Row{{Int: next}}, want...)
		next = want[len(want)-1] + 1
	}
	m.check(t, c, r, []model.Row{{{Int: 1000}}, {{Int: 2000}}})

	// A row written below the bound is the caller's business: the bounded
	// delete does not see it, an unbounded one does.
	insertRange(t, c, tbl, m, 10, 11, 1)
	deleteFromExpect(t, c, tbl, m, model.Row{{Int: next}}, next)
	deleteFromExpect(t, c, tbl, m, nil, 10)
	next++

	// Fewer rows than asked, none at all, and a bound that is too long.
	if n, err := c.DeleteOldest(ctx, tbl, model.Row{{Int: 2998}}, 10); err != nil || n != 2 {
		t.Fatalf("DeleteOldest(from 2998, 10) = %d, %v; want the 2 rows left", n, err)
	}
	delete(m.rows, m.key(model.Row{{Int: 2998}}))
	delete(m.rows, m.key(model.Row{{Int: 2999}}))
	if n, err := c.DeleteOldest(ctx, tbl, model.Row{{Int: 5000}}, 10); err != nil || n != 0 {
		t.Fatalf("DeleteOldest(from 5000) = %d, %v; want 0", n, err)
	}
	if _, err := c.DeleteOldest(ctx, tbl, model.Row{{Int: 1}, {Int: 2}}, 10); err == nil || !strings.Contains(err.Error(), "bound") {
		t.Fatalf("DeleteOldest with a 2-value bound on a 1-column key: %v, want an error about the bound", err)
	}

	if tr, ok := c.(model.Transactor); ok {
		// In a Tx: its own row below the bound is kept, one at the bound
		// (deleted before, inserted again) is seen.
		tx, err := tr.Begin(ctx)
		must(t, err)
		must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 7), IbenchRow(nil, next-1)}))
		m.put(IbenchRow(nil, 7))
		m.put(IbenchRow(nil, next-1))
		deleteFromExpect(t, tx, tbl, m, model.Row{{Int: next - 1}}, next-1, next)
		must(t, tx.Commit(ctx))
		next++
		deleteFromExpect(t, c, tbl, m, nil, 7)
	}

	// Reopen: the same bound gives the same rows.
	must(t, c.Close())
	must(t, db.Close())
	db = open(t, dir)
	c, err = db.Conn(ctx)
	must(t, err)
	deleteFromExpect(t, c, tbl, m, model.Row{{Int: next + 5}}, next+5)
	deleteFromExpect(t, c, tbl, m, model.Row{{Int: next}}, next, next+1)
	m.check(t, c, r, nil)
	must(t, c.Close())
}

// testBoundedDeleteConcurrent races an inserter at the tail with a deleter
// working from its own bound, as in ibench, and checks that the deleter
// never deleted a row it was not asked for and that the table drains.
func testBoundedDeleteConcurrent(t *testing.T, open Opener) {
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
	const preload, keep = 3000, 2000
	total := int64(30000)
	if raceEnabled {
		total = 10000 // still 350 batches racing the deleter
	}
	m := newMem(tbl)
	insertRange(t, c, tbl, m, 0, preload, 200)
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
		var batch []model.Row
		for pk := int64(preload); pk < total; pk += 20 {
			batch = batch[:0]
			for k := pk; k < pk+20; k++ {
				batch = append(batch, IbenchRow(nil, k))
			}
			if err := ic.Insert(ctx, tbl, batch); err != nil {
				errs <- err
				return
			}
			inserted.Add(20)
		}
	}()
	go func() { // deleter: the bound advances by the rows deleted
		defer wg.Done()
		dc, err := db.Conn(ctx)
		if err != nil {
			errs <- err
			return
		}
		defer dc.Close()
		from := model.Row{{}}
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
			from[0].Int = deleted.Load()
			n, err := dc.DeleteOldest(ctx, tbl, from, 20)
			if err == nil && n != 20 {
				err = errors.New("a bounded delete of committed rows deleted fewer than asked")
			}
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
	// Exactly [0, deleted) is gone.
	for pk := int64(0); pk < total; pk++ {
		if pk >= deleted.Load() {
			m.put(IbenchRow(nil, pk))
		} else {
			delete(m.rows, m.key(model.Row{{Int: pk}}))
		}
	}
	m.check(t, c, rand.New(rand.NewSource(13)), []model.Row{{{Int: 0}}, {{Int: deleted.Load() - 1}}})
}

// testUniqueCheck checks that Insert enforces the primary key: a key already
// in the table or twice in one batch is an error wrapping
// model.ErrDuplicateKey, nothing of the batch is written, and the row and
// its index entries are as before. Concurrent inserts of one key: exactly
// one succeeds.
func testUniqueCheck(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	if uc, ok := db.Info().Settings["unique_check"]; ok && uc != "true" {
		t.Fatalf("settings %v: want unique_check=true by default", db.Info().Settings)
	}
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	m := newMem(tbl)
	insertRange(t, c, tbl, m, 0, 100, 50)
	// A duplicate with other values: it must not replace the row.
	dup := func(pk int64) model.Row {
		r := IbenchRow(nil, pk+1000)
		r[cID].Int = pk
		return r
	}
	for _, tc := range []struct {
		name string
		rows []model.Row
	}{
		{"existing key", []model.Row{IbenchRow(nil, 200), dup(5), IbenchRow(nil, 201)}},
		{"twice in the batch", []model.Row{IbenchRow(nil, 300), IbenchRow(nil, 301), IbenchRow(nil, 300)}},
		{"twice in an unordered batch", []model.Row{IbenchRow(nil, 402), IbenchRow(nil, 400), IbenchRow(nil, 401), IbenchRow(nil, 400)}},
		{"only an existing key", []model.Row{dup(99)}},
	} {
		err := c.Insert(ctx, tbl, tc.rows)
		if !errors.Is(err, model.ErrDuplicateKey) {
			t.Fatalf("insert of a %s: %v, want an error wrapping model.ErrDuplicateKey", tc.name, err)
		}
		t.Logf("%s: %v", tc.name, err)
	}
	if tr, ok := c.(model.Transactor); ok {
		// Each refused insert in a Tx of its own: after a failed statement
		// PostgreSQL refuses the rest of the Tx.
		tx, err := tr.Begin(ctx)
		must(t, err)
		must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 500)}))
		if err := tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 501), dup(500)}); !errors.Is(err, model.ErrDuplicateKey) {
			t.Fatalf("insert in a Tx of its own row: %v, want model.ErrDuplicateKey", err)
		}
		must(t, tx.Rollback(ctx))
		tx, err = tr.Begin(ctx)
		must(t, err)
		if err := tx.Insert(ctx, tbl, []model.Row{dup(7)}); !errors.Is(err, model.ErrDuplicateKey) {
			t.Fatalf("insert in a Tx of an existing row: %v, want model.ErrDuplicateKey", err)
		}
		must(t, tx.Rollback(ctx))
		tx, err = tr.Begin(ctx)
		must(t, err)
		must(t, tx.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 500)}))
		must(t, tx.Commit(ctx))
		m.put(IbenchRow(nil, 500))
	}
	// Nothing of the failed batches is there, and the old rows and their
	// index entries are unchanged.
	m.check(t, c, rand.New(rand.NewSource(21)), []model.Row{{{Int: 200}}, {{Int: 300}}, {{Int: 400}}, {{Int: 501}}})

	// Batches whose keys interleave with stored ones (the check merges the
	// batch with an iterator, stepping, seeking, or reading points when
	// the batch is scattered): stored keys 20000 + 10i, a batch of keys in
	// the gaps, 1 or 9 stored keys apart, in order or shuffled, with one
	// stored key planted at its start, middle or end, fails; without it,
	// succeeds.
	const base, stored = 20000, 3000
	for i := int64(0); i < stored; i += 500 {
		batch := make([]model.Row, 0, 500)
		for k := i; k < i+500; k++ {
			batch = append(batch, IbenchRow(nil, base+10*k))
		}
		must(t, c.Insert(ctx, tbl, batch))
		for _, r := range batch {
			m.put(r)
		}
	}
	rnd := rand.New(rand.NewSource(23))
	next := int64(1)
	for _, spread := range []int64{1, 9} { // stored keys between batch keys
		for _, at := range []int{-1, 0, 150, 299} { // where the planted key goes; -1: none
			for _, shuffle := range []bool{false, true} {
				batch := make([]model.Row, 0, 300)
				for k := int64(0); k < 300; k++ {
					batch = append(batch, IbenchRow(nil, base+10*(k*(spread+1))+next)) // gaps no batch filled yet
				}
				if at >= 0 {
					batch[at] = dup(base + 10*(int64(at)*(spread+1)))
				}
				if shuffle {
					rnd.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
				}
				err := c.Insert(ctx, tbl, batch)
				if at >= 0 {
					if !errors.Is(err, model.ErrDuplicateKey) {
						t.Fatalf("interleaved batch (spread %d, shuffled %v) with a stored key at %d: %v, want model.ErrDuplicateKey", spread, shuffle, at, err)
					}
					continue
				}
				must(t, err)
				next++
				for _, r := range batch {
					m.put(r)
				}
			}
		}
	}
	m.check(t, c, rand.New(rand.NewSource(24)), nil)

	// Racing inserts of the same keys: each key is inserted once.
	const workers, keys = 4, 200
	var ok atomic.Int64
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
			giveUp := time.Now().Add(retryFor)
			for k := int64(0); k < keys; k++ {
				err := wc.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 10000+k)})
				switch {
				case err == nil:
					ok.Add(1)
				case retryable(err) && time.Now().Before(giveUp):
					k-- // rolled back (an InnoDB deadlock): again
				case !errors.Is(err, model.ErrDuplicateKey):
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
	if ok.Load() != keys {
		t.Fatalf("%d inserts of %d keys by %d workers succeeded, want %d", ok.Load(), keys, workers, keys)
	}
	for k := int64(0); k < keys; k++ {
		m.put(IbenchRow(nil, 10000+k))
	}
	m.check(t, c, rand.New(rand.NewSource(22)), nil)
}

// BlindInsert checks unique_check=false (open must apply it): a
// duplicate is no error and overwrites the row.
func BlindInsert(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	if db.Info().Settings["unique_check"] != "false" {
		t.Fatalf("settings %v: want unique_check=false", db.Info().Settings)
	}
	tbl := IbenchTable("pi1")
	tbl.Indexes = nil // a blind duplicate leaves the old row's entries behind
	must(t, db.CreateTable(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	m := newMem(tbl)
	insertRange(t, c, tbl, m, 0, 10, 10)
	r := IbenchRow(nil, 1005)
	r[cID].Int = 5
	must(t, c.Insert(ctx, tbl, []model.Row{r, r}))
	m.put(r)
	m.check(t, c, rand.New(rand.NewSource(23)), nil)
}
