package ibench

import (
	"context"
	"strings"
	"testing"

	"rumbench/internal/model"
	"rumbench/internal/verify"
)

// l.i0x loads with the secondary indexes in place: afterwards every index
// holds exactly the table's rows (verify), on a B-tree and an LSM.
func TestIndexedLoad(t *testing.T) {
	for _, eng := range []string{"sqlite", "pebble"} {
		t.Run(eng, func(t *testing.T) {
			b, err := New(Config{Clients: 2, Rows: 3000, Indexes: MaxIndexes, PadMin: 10, PadMax: 20, PadRandomPct: 50,
				Seed: 3, Steps: []string{StepLoadIndexed}})
			if err != nil {
				t.Fatal(err)
			}
			db := openEngine(t, eng)
			ctx := context.Background()
			if err := b.Prepare(ctx, db); err != nil {
				t.Fatal(err)
			}
			sum := runStep(t, db, b, StepLoadIndexed)
			if sum.Inserted != 6000 || sum.MainOp != OpInsert {
				t.Fatalf("l.i0x inserted %d rows (main %s), want 6000", sum.Inserted, sum.MainOp)
			}
			res, err := verify.Run(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK || len(res.Indexes) != 2*MaxIndexes {
				t.Fatalf("verify after l.i0x: %+v", res)
			}
			for _, ix := range res.Indexes {
				if !ix.Consistent || ix.Entries != 3000 {
					t.Errorf("index %+v inconsistent", ix)
				}
			}
		})
	}
}

func TestIndexedLoadStepLists(t *testing.T) {
	if got := strings.Join(expandStepLists([]string{"@indexed"}), ","); !strings.HasPrefix(got, "l.i0x,l.i1,l.i2,maint,qr100") {
		t.Errorf("@indexed = %s", got)
	}
	for _, steps := range [][]string{{StepLoadIndexed, StepIndex}, {StepLoad, StepLoadIndexed}} {
		cfg := Config{Clients: 1, Rows: 10, Indexes: 3, PadMax: 20, Steps: steps}
		if err := cfg.Validate(); err == nil {
			t.Errorf("steps %v validated", steps)
		}
	}
}

// countRows counts a table's rows through a full PK scan of the engine.
func countRows(t *testing.T, db model.DB, b *Bench, c int) int64 {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n, err := conn.Scan(context.Background(), b.Schema(c), model.ScanSpec{Index: -1}, func(model.Row) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	return int64(n)
}

// --deletes=false: l.i1 and a query step only insert; the tables grow by
// exactly what was inserted and the summary says by how much.
func TestNoDeletesGrowsTheTable(t *testing.T) {
	b, err := New(Config{Clients: 2, Rows: 1000, ChurnRows: 500, Indexes: 1, PadMin: 10, PadMax: 20, PadRandomPct: 50,
		QuerySeconds: 1, Seed: 5, NoDeletes: true, Steps: []string{StepLoadIndexed}})
	if err != nil {
		t.Fatal(err)
	}
	db := openEngine(t, "pebble")
	if err := b.Prepare(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	runStep(t, db, b, StepLoadIndexed)
	churn := runStep(t, db, b, StepChurnBig)
	if churn.Deleted != 0 || churn.Details["table_growth_rows"] != int64(800) || churn.Details["deletes"] != false {
		t.Errorf("l.i1 deleted %d, details %v: want no deletes and growth 800", churn.Deleted, churn.Details)
	}
	q := runStep(t, db, b, StepQR100)
	grew, _ := q.Details["table_growth_rows"].(int64)
	if q.Deleted != 0 || grew != q.Inserted || grew <= 0 {
		t.Errorf("qr100 inserted %d deleted %d grew %v", q.Inserted, q.Deleted, q.Details["table_growth_rows"])
	}
	total := countRows(t, db, b, 0) + countRows(t, db, b, 1)
	if want := 2000 + 800 + q.Inserted; total != want {
		t.Errorf("tables hold %d rows, want %d", total, want)
	}
}
