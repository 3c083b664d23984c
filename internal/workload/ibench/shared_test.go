package ibench

import (
	"context"
	"fmt"
	"testing"

	"rumbench/internal/verify"
)

// --tables: 4 clients on 1 and on 2 tables load, churn and run a query step
// with one deleter per table; every table ends with exactly rows × its
// clients rows, its PKs dense and in order, and consistent indexes. With
// --unique-index the unique index never refuses a generated row.
func TestSharedTables(t *testing.T) {
	for _, eng := range []string{"pebble", "sqlite"} {
		for _, tables := range []int{1, 2} {
			for _, unique := range []string{"", "marketsegment"} {
				t.Run(fmt.Sprintf("%s/tables=%d/unique=%s", eng, tables, unique), func(t *testing.T) {
					if raceEnabled && tables > 1 {
						// All 4 clients on one table is the most sharing;
						// two tables run without the detector.
						t.Skip("two tables: run without the race detector")
					}
					sharedTables(t, eng, tables, unique)
				})
			}
		}
	}
}

func sharedTables(t *testing.T, eng string, tables int, unique string) {
	const clients, rows, churn = 4, 2000, 1000
	b, err := New(Config{Clients: clients, Tables: tables, UniqueIndex: unique, Rows: rows, ChurnRows: churn,
		Indexes: MaxIndexes, PadMin: 10, PadMax: 20, PadRandomPct: 50, QuerySeconds: 1, Seed: 9,
		RowsPerCommit: 10, Steps: []string{StepLoadIndexed}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.tables) != tables {
		t.Fatalf("%d tables, want %d", len(b.tables), tables)
	}
	db := openEngine(t, eng)
	ctx := context.Background()
	if err := b.Prepare(ctx, db); err != nil {
		t.Fatal(err)
	}
	if sum := runStep(t, db, b, StepLoadIndexed); sum.Inserted != clients*rows {
		t.Fatalf("l.i0x inserted %d, want %d", sum.Inserted, clients*rows)
	}
	for _, step := range []string{StepChurnBig, StepChurnSmall, StepQP1000, StepQR1000} {
		sum := runStep(t, db, b, step)
		if sum.Deleted != sum.Inserted || sum.Inserted == 0 || sum.Details["table_growth_rows"] != int64(0) {
			t.Fatalf("%s inserted %d deleted %d (growth %v): want as many deleted as inserted", step, sum.Inserted, sum.Deleted, sum.Details["table_growth_rows"])
		}
	}
	perTable := int64(clients / tables * rows)
	var total int64
	for i, ts := range b.tables {
		n := countRows(t, db, b, i)
		total += n
		if n != perTable || ts.Rows() != perTable {
			t.Errorf("table %s holds %d rows (PK range %d..%d), want %d", ts.schema.Name, n, ts.minPK.Load(), ts.nextPK.Load()-1, perTable)
		}
		lo, hi, _, err := pkBounds(ctx, mustConn(t, db), ts.schema)
		if err != nil || hi-lo+1 != perTable {
			t.Errorf("table %s: PKs %d..%d (%v), want %d dense keys", ts.schema.Name, lo, hi, err, perTable)
		}
	}
	if total != clients*rows {
		t.Errorf("tables hold %d rows, want rows × clients = %d", total, clients*rows)
	}
	res, err := verify.Run(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Indexes) != tables*MaxIndexes {
		t.Fatalf("verify: %+v", res)
	}
	tbls, err := db.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tbls {
		for _, ix := range tb.Indexes {
			if ix.Unique != (ix.Name == unique) {
				t.Errorf("%s.%s unique=%v, want only %q unique", tb.Name, ix.Name, ix.Unique, unique)
			}
		}
	}
}

func TestUniqueIndexFlag(t *testing.T) {
	for _, tc := range []struct {
		name    string
		indexes int
		ok      bool
	}{{"marketsegment", 1, true}, {"pdc", 3, true}, {"pdc", 2, false}, {"nosuch", 3, false}} {
		cfg := Config{Clients: 1, Rows: 10, Indexes: tc.indexes, PadMax: 20, UniqueIndex: tc.name, Steps: []string{StepLoad}}
		if err := cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("--unique-index %s --indexes %d: %v", tc.name, tc.indexes, err)
		}
	}
	tbl := Table("pi1", MaxIndexes, 20)
	if !MakeUnique(tbl, "registersegment") {
		t.Fatal("no registersegment")
	}
	if ix := tbl.Indexes[1]; !ix.Unique || fmt.Sprint(ix.Columns) != fmt.Sprint([]int{ColCashRegisterID, ColCustomerID, ColPrice, ColTransactionID}) {
		t.Errorf("unique registersegment = %+v", ix)
	}
	if cfg := (Config{Clients: 2, Tables: 3, Rows: 1, PadMax: 1, Steps: []string{StepLoad}}); cfg.Validate() == nil {
		t.Error("--tables 3 with 2 clients validated")
	}
}

// Batches of a shared table commit out of order: the committed range ends
// at the first batch still in flight, and the deleter may delete only
// below it.
func TestCommittedRange(t *testing.T) {
	ts := &tableState{clients: 3, ahead: map[int64]int64{}}
	ts.minPK.Store(1)
	ts.nextPK.Store(1)
	ts.committed.Store(1)
	a, b, c := ts.reserve(10), ts.reserve(5), ts.reserve(10) // 1, 11, 16
	if a != 1 || b != 11 || c != 16 || ts.nextPK.Load() != 26 {
		t.Fatalf("reserved %d %d %d, next %d", a, b, c, ts.nextPK.Load())
	}
	ts.commit(c, 10)
	ts.commit(b, 5)
	if ts.committed.Load() != 1 || ts.deletable() != 0 {
		t.Fatalf("committed %d with the first batch in flight, want 1", ts.committed.Load())
	}
	ts.commit(a, 10)
	if ts.committed.Load() != 26 || ts.deletable() != 25 || len(ts.ahead) != 0 {
		t.Fatalf("committed %d (ahead %v), want 26", ts.committed.Load(), ts.ahead)
	}
	d := ts.reserve(10) // fails: never committed
	ts.settle()
	if ts.committed.Load() != d+10 {
		t.Fatalf("settle: committed %d, want %d", ts.committed.Load(), d+10)
	}
}
