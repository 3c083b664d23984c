package sqlite

import (
	"context"
	"math/rand/v2"
	"testing"

	"rumbench/internal/model"
)

// benchRows returns a reusable batch whose keys the caller sets.
func benchRows(n int) []model.Row {
	rows := make([]model.Row, n)
	for i := range rows {
		rows[i] = genRow(int64(i) + 100) // avoid the ids genRow makes large
	}
	return rows
}

func benchTable(b *testing.B, opts map[string]string, indexes int) (model.DB, model.Conn, *model.Table) {
	b.Helper()
	ctx := context.Background()
	db := openDB(b, b.TempDir(), opts)
	tbl := ibenchTable("pi1")
	tbl.Indexes = tbl.Indexes[:indexes]
	if err := db.CreateTable(ctx, tbl); err != nil {
		b.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		b.Fatal(err)
	}
	c := openConn(b, db)
	b.Cleanup(func() { c.Close(); db.Close() })
	return db, c, tbl
}

// BenchmarkInsert is the l.i0 shape: 100 rows per transaction in key order.
// allocs/op is per 100-row insert; most are database/sql boxing each int64
// into an interface (values >= 256) plus the []driver.NamedValue it builds
// per statement.
func BenchmarkInsert(b *testing.B) {
	for _, bc := range []struct {
		name    string
		indexes int
		opts    map[string]string
		cancel  bool
	}{
		{"pk-only", 0, nil, false},
		{"pk-only/cancellable-ctx", 0, nil, true},
		{"3-indexes", 3, nil, false},
		{"pk-only/sync=off", 0, map[string]string{"synchronous": "off"}, false},
		{"3-indexes/sync=off", 3, map[string]string{"synchronous": "off"}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			if bc.cancel {
				// Workloads run steps under a cancellable context, which
				// makes go-sqlite3 arm an interrupt per statement.
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			_, c, tbl := benchTable(b, bc.opts, bc.indexes)
			const batch = 100
			rows := benchRows(batch)
			id := int64(0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, r := range rows {
					r[0].Int = id
					id++
				}
				if err := c.Insert(ctx, tbl, rows); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkDeleteOldest compares the two statement forms on a table with the
// three ibench indexes, deleting 50 rows per call (the l.i1 shape).
func BenchmarkDeleteOldest(b *testing.B) {
	defer func(v bool) { deleteRange = v }(deleteRange)
	for _, form := range []struct {
		name  string
		rng   bool
		batch int
	}{{"range/50", true, 50}, {"in/50", false, 50}, {"range/1000", true, 1000}, {"in/1000", false, 1000}} {
		b.Run(form.name, func(b *testing.B) {
			deleteRange = form.rng
			ctx := context.Background()
			_, c, tbl := benchTable(b, nil, 3)
			rows := benchRows(1000)
			next, left := int64(0), 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if left < form.batch {
					b.StopTimer()
					for k := 0; k < 100; k++ {
						for _, r := range rows {
							r[0].Int = next
							next++
						}
						if err := c.Insert(ctx, tbl, rows); err != nil {
							b.Fatal(err)
						}
					}
					left += 100 * len(rows)
					b.StartTimer()
				}
				n, err := c.DeleteOldest(ctx, tbl, nil, form.batch)
				if err != nil || n != form.batch {
					b.Fatalf("DeleteOldest = %d, %v", n, err)
				}
				left -= n
			}
			b.ReportMetric(float64(b.N*form.batch)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkQuery is the qr/qp shape: a 10-entry covering index range read,
// or 10 random point reads, on 100k rows.
func BenchmarkQuery(b *testing.B) {
	ctx := context.Background()
	db, c, tbl := benchTable(b, nil, 0)
	rows := benchRows(1000)
	const total = 100_000
	for k := int64(0); k < total/1000; k++ {
		for i, r := range rows {
			r[0].Int = k*1000 + int64(i)
		}
		if err := c.Insert(ctx, tbl, rows); err != nil {
			b.Fatal(err)
		}
	}
	tbl.Indexes = ibenchTable("pi1").Indexes
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	b.Run("scan10", func(b *testing.B) {
		b.ReportAllocs()
		bound := model.Row{{}}
		for i := 0; i < b.N; i++ {
			bound[0].Int = r.Int64N(500)
			n, err := c.Scan(ctx, tbl, model.ScanSpec{Index: i % 3, Lower: bound, Limit: 10}, func(model.Row) bool { return true })
			if err != nil || n != 10 {
				b.Fatalf("scan = %d, %v", n, err)
			}
		}
	})
	b.Run("get10", func(b *testing.B) {
		b.ReportAllocs()
		keys := make([]model.Row, 10)
		for i := range keys {
			keys[i] = model.Row{{}}
		}
		for i := 0; i < b.N; i++ {
			for _, k := range keys {
				k[0].Int = r.Int64N(total)
			}
			if _, err := c.Get(ctx, tbl, keys, func(model.Row) {}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
