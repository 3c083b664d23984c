package enginetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"rumbench/internal/model"
)

// testAppendingInserts races inserts of ascending batches at a table's
// tail, where the insert benchmark and the loads write (the kv layer claims
// such a batch's key range instead of reading and locking each key,
// pktail.go), with each other and with the same batches in Txs: batch i
// holds keys [base+step*i, base+step*i+size), so each overlaps the next and
// every worker tries every batch. Every key must be created by exactly one
// batch, refused to every other, with the table and its indexes equal to
// the winners' rows. Then, after a reopen (the kv layer's bound of the
// table's keys is read from the store again), an ascending batch that holds
// the largest stored key is refused and one above it is taken, and a key
// deleted from the tail can be inserted again, once.
func testAppendingInserts(t *testing.T, open Opener) {
	ctx := context.Background()
	dir := t.TempDir()
	db := open(t, dir)
	defer func() { db.Close() }()
	tbl := IbenchTable("pi1")
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	const workers, batches, size, step, base = 4, 150, 20, 10, 1000
	tagged := func(pk, tag int64) model.Row {
		r := IbenchRow(nil, pk)
		r[cPrice].Int = tag // which batch wrote the row
		return r
	}
	var mu sync.Mutex
	winner := map[int64]int64{} // key -> tag of the batch that created it
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			tr, inTx := c.(model.Transactor)
			inTx = inTx && w%2 == 1
			for i := range int64(batches) {
				tag := int64(w)*1000 + i + 1
				batch := make([]model.Row, 0, size)
				for k := int64(0); k < size; k++ {
					batch = append(batch, tagged(base+step*i+k, tag))
				}
				giveUp := time.Now().Add(retryFor)
				for {
					err = insertBatch(ctx, c, tr, inTx, tbl, batch)
					if !retryable(err) || time.Now().After(giveUp) {
						break
					}
				}
				switch {
				case err == nil:
					mu.Lock()
					for _, r := range batch {
						if prev, ok := winner[r[cID].Int]; ok {
							mu.Unlock()
							errs <- fmt.Errorf("key %d created by batch %d and by batch %d", r[cID].Int, prev, tag)
							return
						}
						winner[r[cID].Int] = tag
					}
					mu.Unlock()
				case !errors.Is(err, model.ErrDuplicateKey):
					errs <- fmt.Errorf("worker %d, batch %d (in a Tx: %v): %w", w, i, inTx, err)
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
	if len(winner) == 0 {
		t.Fatal("no batch was inserted")
	}
	m := newMem(tbl)
	maxKey := int64(0)
	for pk, tag := range winner {
		m.put(tagged(pk, tag))
		maxKey = max(maxKey, pk)
	}
	c, err := db.Conn(ctx)
	must(t, err)
	m.check(t, c, rand.New(rand.NewSource(31)), nil)
	must(t, c.Close())

	must(t, db.Close())
	db = open(t, dir)
	c, err = db.Conn(ctx)
	must(t, err)
	defer c.Close()
	ascending := func(from, n int64) []model.Row {
		var rows []model.Row
		for k := from; k < from+n; k++ {
			rows = append(rows, IbenchRow(nil, k))
		}
		return rows
	}
	if err := c.Insert(ctx, tbl, ascending(maxKey, 5)); !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("after a reopen, an ascending batch from the largest stored key %d: %v, want model.ErrDuplicateKey", maxKey, err)
	}
	must(t, c.Insert(ctx, tbl, ascending(maxKey+1, 5)))
	for _, r := range ascending(maxKey+1, 5) {
		m.put(r)
	}
	top := model.Row{{Int: maxKey + 5}}
	found, err := c.Delete(ctx, tbl, top)
	must(t, err)
	if !found {
		t.Fatalf("delete of key %d: not found", maxKey+5)
	}
	must(t, c.Insert(ctx, tbl, ascending(maxKey+5, 2)))
	if err := c.Insert(ctx, tbl, ascending(maxKey+6, 1)); !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("insert again of key %d: %v, want model.ErrDuplicateKey", maxKey+6, err)
	}
	m.put(IbenchRow(nil, maxKey+6))
	m.check(t, c, rand.New(rand.NewSource(32)), nil)
}

// insertBatch inserts rows on c, or in a Tx of its own when inTx.
func insertBatch(ctx context.Context, c model.Conn, tr model.Transactor, inTx bool, tbl *model.Table, rows []model.Row) error {
	if !inTx {
		return c.Insert(ctx, tbl, rows)
	}
	tx, err := tr.Begin(ctx)
	if err != nil {
		return err
	}
	if err := tx.Insert(ctx, tbl, rows); err != nil {
		tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}
