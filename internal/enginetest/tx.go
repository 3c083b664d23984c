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
)

// retryFor bounds how long one operation of the concurrency tests retries
// its conflicts: by time, not by count, since a writer the engine makes
// retry (internal/engine/kv/retry.go) can hold a key through backoffs of up to 50 ms
// while a conflicting one spins.
const retryFor = 10 * time.Second

// TxCounts runs transactions that upsert counters (LinkBench's count rows:
// add 1, or create the row) beside autocommit upserts and inserts of the
// same keys, retrying what loses a conflict (retryable), and checks
// that nothing is lost or doubled: every counter equals the increments
// committed to it, plus 1000 when an autocommit insert created it (at most
// one creator per key wins).
func TxCounts(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("cnt")
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	const keys, workers, txs = 12, 4, 150
	var added [keys]atomic.Int64 // increments committed per key
	var created [keys]atomic.Bool
	var conflicts atomic.Int64
	row := func(k int, price int64) model.Row {
		r := IbenchRow(nil, int64(1000+k))
		r[cPrice].Int = price
		return r
	}
	inc := []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 1}}}
	var wg sync.WaitGroup
	errs := make(chan error, workers+2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			tr, ok := c.(model.Transactor)
			if !ok {
				errs <- errors.New("no transactions")
				return
			}
			r := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < txs; i++ {
				a, b := r.Intn(keys), r.Intn(keys)
				giveUp := time.Now().Add(retryFor)
				for {
					err := func() (err error) {
						tx, err := tr.Begin(ctx)
						if err != nil {
							return err
						}
						defer func() {
							if err != nil {
								tx.Rollback(ctx)
							}
						}()
						if err = tx.Upsert(ctx, tbl, row(a, 1), inc); err != nil {
							return err
						}
						if err = tx.Upsert(ctx, tbl, row(b, 1), inc); err != nil {
							return err
						}
						return tx.Commit(ctx)
					}()
					if err == nil {
						added[a].Add(1)
						added[b].Add(1)
						break
					}
					if !retryable(err) || time.Now().After(giveUp) {
						errs <- fmt.Errorf("tx upserts of %d, %d: %w", a, b, err)
						return
					}
					conflicts.Add(1)
					time.Sleep(time.Duration(1+r.Intn(200)) * time.Microsecond)
				}
			}
		}()
	}
	// Autocommit inserts and upserts of the same keys.
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := db.Conn(ctx)
		if err != nil {
			errs <- err
			return
		}
		defer c.Close()
		r := rand.New(rand.NewSource(99))
		for i := 0; i < 2*keys; i++ {
			k := r.Intn(keys)
			if i%2 == 0 {
				err := c.Insert(ctx, tbl, []model.Row{row(k, 1000)})
				switch {
				case err == nil:
					if created[k].Swap(true) {
						errs <- fmt.Errorf("key %d created twice by inserts", k)
						return
					}
				case errors.Is(err, model.ErrDuplicateKey):
				default:
					errs <- fmt.Errorf("insert of %d: %w", k, err)
					return
				}
				continue
			}
			giveUp := time.Now().Add(retryFor)
			for {
				err := c.Upsert(ctx, tbl, row(k, 1), inc)
				if err == nil {
					added[k].Add(1)
					break
				}
				if !retryable(err) || time.Now().After(giveUp) {
					errs <- fmt.Errorf("upsert of %d: %w", k, err)
					return
				}
				runtime.Gosched()
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	for k := 0; k < keys; k++ {
		var got int64
		n, err := c.Get(ctx, tbl, []model.Row{{{Int: int64(1000 + k)}}}, func(r model.Row) { got = r[cPrice].Int })
		must(t, err)
		want := added[k].Load()
		if created[k].Load() {
			want += 1000
		}
		if n == 0 && want != 0 || got != want {
			t.Fatalf("key %d: counter %d (found %d), want %d (%d increments committed, created by insert %v)", k, got, n, want, added[k].Load(), created[k].Load())
		}
	}
	t.Logf("%d conflicts retried", conflicts.Load())
}

// ConcurrentTx checks, on a store that isolates transactions itself
// (kv.ConcurrentStore: RocksDB, WiredTiger) or whose transactions the kv
// layer's row locks isolate (Pebble), that a Tx does not hold the
// DB to itself: two Txs of two connections are open at once, write, and
// both commit. It also checks that Txs writing one row conflict (one waits
// or fails with kv.ErrConflict, never both commit a lost update), that an
// insert of a key another open Tx created fails with kv.ErrConflict, and
// that two Txs updating two rows in opposite orders do not both commit.
func ConcurrentTx(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	c1, err := db.Conn(ctx)
	must(t, err)
	defer c1.Close()
	c2, err := db.Conn(ctx)
	must(t, err)
	defer c2.Close()
	m := newMem(tbl)
	insertRange(t, c1, tbl, m, 0, 100, 100)
	tr1, tr2 := c1.(model.Transactor), c2.(model.Transactor)
	inc := func(n int64) []model.Change {
		return []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: n}}}
	}
	price := func(pk int64) int64 {
		var p int64 = -1
		if _, err := c1.Get(ctx, tbl, []model.Row{{{Int: pk}}}, func(r model.Row) { p = r[cPrice].Int }); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p1, p2 := price(1), price(2)

	// With a Tx holding the DB, the second Begin would never return: the
	// steps run in a goroutine so that the test fails, not hangs.
	done := make(chan error, 1)
	go func() {
		done <- func() error {
			tx1, err := tr1.Begin(ctx)
			if err != nil {
				return err
			}
			if _, err := tx1.Update(ctx, tbl, model.Row{{Int: 1}}, inc(10)); err != nil {
				return err
			}
			tx2, err := tr2.Begin(ctx)
			if err != nil {
				return err
			}
			if _, err := tx2.Update(ctx, tbl, model.Row{{Int: 2}}, inc(20)); err != nil {
				return err
			}
			if err := tx2.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 600)}); err != nil {
				return err
			}
			if err := tx1.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 601)}); err != nil {
				return err
			}
			// tx2 created 600 and has not committed: an insert of it in tx1
			// conflicts (the key's insert lock).
			if err := tx1.Insert(ctx, tbl, []model.Row{IbenchRow(nil, 600)}); !errors.Is(err, kv.ErrConflict) {
				return fmt.Errorf("insert in one Tx of a key another open Tx inserted: %v, want kv.ErrConflict", err)
			}
			if err := tx2.Commit(ctx); err != nil {
				return err
			}
			return tx1.Commit(ctx)
		}()
	}()
	select {
	case err := <-done:
		if errors.Is(err, kv.ErrConflict) {
			t.Fatalf("two Txs on different rows: %v (a conflict where none is)", err)
		}
		must(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the second Tx could not begin or write while the first was open: transactions serialise")
	}
	if got := price(1); got != p1+10 {
		t.Fatalf("row 1 price %d, want %d", got, p1+10)
	}
	if got := price(2); got != p2+20 {
		t.Fatalf("row 2 price %d, want %d", got, p2+20)
	}
	m.rows[m.key(model.Row{{Int: 1}})][cPrice].Int += 10
	m.rows[m.key(model.Row{{Int: 2}})][cPrice].Int += 20
	m.put(IbenchRow(nil, 600))
	m.put(IbenchRow(nil, 601))
	m.check(t, c1, rand.New(rand.NewSource(31)), nil)

	// Two Txs update one row: tx2 waits for tx1's lock and times out, or
	// fails at once, or (optimistic) fails at commit; tx1 commits.
	tx1, err := tr1.Begin(ctx)
	must(t, err)
	if _, err := tx1.Update(ctx, tbl, model.Row{{Int: 3}}, inc(1)); err != nil {
		t.Fatal(err)
	}
	tx2, err := tr2.Begin(ctx)
	must(t, err)
	_, err2 := tx2.Update(ctx, tbl, model.Row{{Int: 3}}, inc(100))
	if err2 != nil {
		tx2.Rollback(ctx)
	}
	must(t, tx1.Commit(ctx))
	if err2 == nil {
		err2 = tx2.Commit(ctx)
	}
	if !errors.Is(err2, kv.ErrConflict) {
		t.Fatalf("second of two Txs updating one row: %v, want kv.ErrConflict", err2)
	}
	t.Logf("conflict: %v", err2)
	m.rows[m.key(model.Row{{Int: 3}})][cPrice].Int++
	m.check(t, c1, rand.New(rand.NewSource(32)), nil)

	// Two Txs update two rows in opposite orders: a lock cycle (or a
	// write conflict). At least one fails with a conflict and is rolled
	// back; what commits is counted whole, nothing else.
	p4, p5 := price(4), price(5)
	tx1, err = tr1.Begin(ctx)
	must(t, err)
	tx2, err = tr2.Begin(ctx)
	must(t, err)
	_, err1 := tx1.Update(ctx, tbl, model.Row{{Int: 4}}, inc(1))
	_, err2 = tx2.Update(ctx, tbl, model.Row{{Int: 5}}, inc(10))
	// Each Tx's second update, and its rollback when it fails, runs in a
	// goroutine of its own, so that the loser's rollback ends the
	// winner's wait; then each commits if it can.
	second := func(x model.Tx, first error, pk, n int64) <-chan error {
		done := make(chan error, 1)
		go func() {
			err := first
			if err == nil {
				_, err = x.Update(ctx, tbl, model.Row{{Int: pk}}, inc(n))
			}
			if err == nil {
				err = x.Commit(ctx)
			}
			if err != nil {
				x.Rollback(ctx)
			}
			done <- err
		}()
		return done
	}
	r1, r2 := second(tx1, err1, 5, 1), second(tx2, err2, 4, 10)
	committed := func(err error) bool {
		if err != nil && !errors.Is(err, kv.ErrConflict) {
			t.Fatalf("crossed updates: %v, want a conflict", err)
		}
		if err != nil {
			t.Logf("crossed updates: %v", err)
		}
		return err == nil
	}
	ok1, ok2 := committed(<-r1), committed(<-r2)
	if ok1 && ok2 {
		t.Fatal("two Txs updated two rows in opposite orders and both committed")
	}
	var d4, d5 int64
	if ok1 {
		d4, d5 = d4+1, d5+1
	}
	if ok2 {
		d4, d5 = d4+10, d5+10
	}
	if got4, got5 := price(4), price(5); got4 != p4+d4 || got5 != p5+d5 {
		t.Fatalf("crossed updates (tx1 committed %v, tx2 %v): rows 4, 5 priced %d, %d; want %d, %d", ok1, ok2, got4, got5, p4+d4, p5+d5)
	}
	m.rows[m.key(model.Row{{Int: 4}})][cPrice].Int += d4
	m.rows[m.key(model.Row{{Int: 5}})][cPrice].Int += d5
	m.check(t, c1, rand.New(rand.NewSource(33)), nil)
}
