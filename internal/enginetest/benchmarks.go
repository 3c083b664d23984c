package enginetest

import (
	"context"
	"fmt"
	"testing"

	"rumbench/internal/model"
)

// BenchInsert measures Insert of rows per batch into the ibench table with
// nIdx secondary indexes. Row generation reuses its rows.
func BenchInsert(b *testing.B, open Opener, rowsPerBatch, nIdx int) {
	ctx := context.Background()
	db := open(b, b.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	tbl.Indexes = tbl.Indexes[:nIdx]
	must(b, db.CreateTable(ctx, tbl))
	must(b, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(b, err)
	defer c.Close()
	rows := make([]model.Row, rowsPerBatch)
	for i := range rows {
		rows[i] = IbenchRow(nil, int64(i))
	}
	pk := int64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			r[cID].Int = pk
			r[cTime].Int = 1700000000 + pk/1000
			pk++
		}
		if err := c.Insert(ctx, tbl, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rowsPerBatch), "ns/row")
}

// OpAllocs measures heap allocations per call of each operation, at two
// sizes (10 and 100 rows), on a loaded ibench table with three indexes.
// Equal counts at both sizes mean nothing is allocated per row.
func OpAllocs(tb testing.TB, open Opener) map[string]float64 {
	ctx := context.Background()
	db := open(tb, tb.TempDir())
	defer db.Close()
	tbl := IbenchTable("pi1")
	must(tb, db.CreateTable(ctx, tbl))
	must(tb, db.CreateIndexes(ctx, tbl))
	c, err := db.Conn(ctx)
	must(tb, err)
	defer c.Close()
	m := newMem(tbl)
	insertRange(tb, c, tbl, m, 0, 20000, 500)
	out := map[string]float64{}
	next := int64(20000)
	for _, n := range []int{10, 100} {
		rows := make([]model.Row, n)
		keys := make([]model.Row, n)
		for i := range rows {
			rows[i] = IbenchRow(nil, int64(i))
			keys[i] = model.Row{{Int: int64(10000 + i)}}
		}
		out[fmt.Sprintf("insert/%d", n)] = testing.AllocsPerRun(20, func() {
			for _, r := range rows {
				r[cID].Int = next
				next++
			}
			must(tb, c.Insert(ctx, tbl, rows))
		})
		out[fmt.Sprintf("get/%d", n)] = testing.AllocsPerRun(20, func() {
			if _, err := c.Get(ctx, tbl, keys, func(model.Row) {}); err != nil {
				tb.Fatal(err)
			}
		})
		lower := model.Row{{Int: 3}}
		for ix := -1; ix < 3; ix++ {
			for _, desc := range []bool{false, true} {
				spec := model.ScanSpec{Index: ix, Lower: lower, Limit: n, Desc: desc}
				out[fmt.Sprintf("scan%d/desc=%v/%d", ix, desc, n)] = testing.AllocsPerRun(20, func() {
					if _, err := c.Scan(ctx, tbl, spec, func(model.Row) bool { return true }); err != nil {
						tb.Fatal(err)
					}
				})
			}
		}
		out[fmt.Sprintf("delete/%d", n)] = testing.AllocsPerRun(20, func() {
			if _, err := c.DeleteOldest(ctx, tbl, nil, n); err != nil {
				tb.Fatal(err)
			}
		})
	}
	changes := []model.Change{{Col: cPrice, Op: model.Add, Value: model.Value{Int: 1}}}
	pk := model.Row{{Int: 15000}}
	out["update"] = testing.AllocsPerRun(20, func() {
		if _, err := c.Update(ctx, tbl, pk, changes); err != nil {
			tb.Fatal(err)
		}
	})
	if tr, ok := c.(model.Transactor); ok {
		out["tx/update"] = testing.AllocsPerRun(20, func() {
			tx, err := tr.Begin(ctx)
			must(tb, err)
			if _, err := tx.Update(ctx, tbl, pk, changes); err != nil {
				tb.Fatal(err)
			}
			must(tb, tx.Commit(ctx))
		})
	}
	return out
}

// BenchDeleteOldest measures DeleteOldest of 50 rows from the ibench table
// (three indexes) from the bound where the last delete stopped, after the
// oldest prefix rows have already been deleted by the same kind of calls:
// the cost should not grow with prefix.
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
	from := model.Row{{}}
	for i := 0; i < prefix/per; i++ {
		if n, err := c.DeleteOldest(ctx, tbl, from, per); err != nil || n != per {
			b.Fatalf("delete the prefix: %d, %v", n, err)
		}
		from[0].Int += per
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n, err := c.DeleteOldest(ctx, tbl, from, per); err != nil || n != per {
			b.Fatalf("DeleteOldest(%d) = %d, %v", per, n, err)
		}
		from[0].Int += per
	}
}
