//go:build wiredtiger

package wiredtiger

import (
	"context"
	"errors"
	"testing"
	"time"

	"rumbench/internal/engine/kv"
	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestInsertRetriesRollback: an insert batch whose commit gets WT_ROLLBACK
// (here a write conflict with another transaction's uncommitted write of
// its key; under cache pressure WiredTiger returns the same code) is
// committed again after a backoff, counted in Retries, until it goes
// through; with a deadline it gives up with both the conflict and the
// deadline in its error, and leaves nothing behind in the conn's batch.
func TestInsertRetriesRollback(t *testing.T) {
	ctx := context.Background()
	db := open(map[string]string{"cache_size": "16MB"})(t, t.TempDir())
	defer db.Close()
	tbl, c := enginetest.TableConn(t, db)
	rr := db.(model.RetryReporter)
	st := db.(*DB).st
	// hold writes, uncommitted, the PK entry of row pk of table 1 (the
	// first table of a fresh DB), so that another write of it conflicts.
	hold := func(pk int64) kv.UpdateTxn {
		t.Helper()
		h, err := st.BeginUpdate()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Set(keyenc.AppendInt([]byte{0, 0, 0, 1, 0}, pk), []byte("x")); err != nil {
			t.Fatal(err)
		}
		return h
	}

	// Given up at the deadline: the batch is dropped, not committed later.
	h := hold(7)
	before := rr.Retries()
	dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err := c.Insert(dctx, tbl, []model.Row{enginetest.IbenchRow(nil, 7)})
	cancel()
	if !errors.Is(err, kv.ErrConflict) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("insert of a row another transaction is writing, 50ms deadline: %v; want WT_ROLLBACK and the deadline", err)
	}
	if n := rr.Retries() - before; n < 1 {
		t.Fatalf("%d retries counted before the deadline", n)
	}
	if err := h.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := c.Insert(ctx, tbl, []model.Row{enginetest.IbenchRow(nil, 8)}); err != nil {
		t.Fatal(err)
	}

	// Retried until the other transaction ends, then committed.
	h = hold(7)
	before = rr.Retries()
	done := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		h.Rollback()
		close(done)
	}()
	start := time.Now()
	if err := c.Insert(ctx, tbl, []model.Row{enginetest.IbenchRow(nil, 7)}); err != nil {
		t.Fatalf("insert retried after WT_ROLLBACK: %v", err)
	}
	<-done
	if took, n := time.Since(start), rr.Retries()-before; n < 1 || took < 90*time.Millisecond {
		t.Fatalf("insert went through after %v with %d retries: it did not wait for the conflicting transaction", took, n)
	}
	// Row 7 is there once, row 8 too (a leftover of the failed batch would
	// have been written with row 8).
	for _, pk := range []int64{7, 8} {
		if err := c.Insert(ctx, tbl, []model.Row{enginetest.IbenchRow(nil, pk)}); !errors.Is(err, model.ErrDuplicateKey) {
			t.Fatalf("insert of row %d again: %v; want a duplicate key", pk, err)
		}
	}
}
