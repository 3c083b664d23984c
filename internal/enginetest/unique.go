package enginetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rumbench/internal/model"
)

// testUniqueIndex checks unique secondary indexes beyond Semantics'
// uniqueIndex: racing inserts of one value under different PKs
// (exactly one wins), a Tx insert and an Update that would duplicate a
// value (refused with model.ErrDuplicateKey, nothing changed), and a string
// column in the unique prefix.
func testUniqueIndex(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, t.TempDir())
	defer db.Close()
	tbl := IbenchTable("uq")
	// data short enough for an index key on every engine (MariaDB indexes
	// a longer unique column through a hash column MyRocks lacks).
	tbl.Columns = append([]model.Column(nil), tbl.Columns...)
	tbl.Columns[cData].MaxLen = 16
	// Unique on (cashregisterid, data): an int and a string, no PK column,
	// so the check is a bounded seek over the prefix.
	tbl.Indexes = []model.Index{{Name: "uq_reg", Columns: []int{cRegister, cData}, Unique: true}}
	must(t, db.CreateTable(ctx, tbl))
	must(t, db.CreateIndexes(ctx, tbl))
	row := func(pk, reg int64, data string) model.Row {
		r := IbenchRow(nil, pk)
		r[cRegister].Int, r[cData].Bytes = reg, []byte(data)
		return r
	}
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	must(t, c.Insert(ctx, tbl, []model.Row{row(1, 1, "a"), row(2, 1, "a\x00"), row(3, 1, "ab")}))

	// Racing inserts: value v is inserted by every worker under its own PK.
	const workers, values = 4, 100
	var ok atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := int64(0); w < workers; w++ {
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
			for v := int64(0); v < values; v++ {
				err := wc.Insert(ctx, tbl, []model.Row{row(1000+v*workers+w, 100+v, "x")})
				switch {
				case err == nil:
					ok.Add(1)
				case retryable(err) && time.Now().Before(giveUp):
					v-- // rolled back (an InnoDB deadlock): again
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
	if ok.Load() != values {
		t.Fatalf("%d inserts of %d values by %d workers succeeded, want %d", ok.Load(), values, workers, values)
	}
	count := func() int {
		n, err := c.Scan(ctx, tbl, model.ScanSpec{Index: 0}, func(model.Row) bool { return true })
		must(t, err)
		return n
	}
	if n := count(); n != 3+values {
		t.Fatalf("unique index holds %d entries, want %d", n, 3+values)
	}

	// A Tx: the duplicate fails and the Tx's own earlier row counts too.
	tr, ok2 := c.(model.Transactor)
	if !ok2 {
		t.Fatal("conn is not a Transactor")
	}
	// Each refused insert in a Tx of its own: after a failed statement
	// PostgreSQL refuses the rest of the Tx.
	tx, err := tr.Begin(ctx)
	must(t, err)
	must(t, tx.Insert(ctx, tbl, []model.Row{row(5000, 7, "t")}))
	if err := tx.Insert(ctx, tbl, []model.Row{row(5001, 7, "t")}); !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("Tx insert of its own value: %v, want model.ErrDuplicateKey", err)
	}
	must(t, tx.Rollback(ctx))
	tx, err = tr.Begin(ctx)
	must(t, err)
	if err := tx.Insert(ctx, tbl, []model.Row{row(5002, 1, "ab")}); !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("Tx insert of a value in the table: %v, want model.ErrDuplicateKey", err)
	}
	must(t, tx.Rollback(ctx))

	// An Update onto another row's value fails; onto a free one it works.
	if _, err := c.Update(ctx, tbl, model.Row{{Int: 3}}, []model.Change{{Col: cData, Value: model.Value{Bytes: []byte("a")}}}); !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("update onto an existing value: %v, want model.ErrDuplicateKey", err)
	}
	if found, err := c.Update(ctx, tbl, model.Row{{Int: 3}}, []model.Change{{Col: cData, Value: model.Value{Bytes: []byte("abc")}}}); err != nil || !found {
		t.Fatalf("update onto a free value: %v %v", found, err)
	}
	if n := count(); n != 3+values {
		t.Fatalf("unique index holds %d entries after the updates, want %d", n, 3+values)
	}
}
