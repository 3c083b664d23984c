package verify

import (
	"context"
	"fmt"
	"testing"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/kv/pebble"
	"rumbench/internal/model"
)

const testRows = 500

// testTable is a small ibench-like table with two secondary indexes.
func testTable() *model.Table {
	return &model.Table{
		Name: "purchases_index",
		Columns: []model.Column{
			{Name: "transactionid", Type: model.Int},
			{Name: "dateandtime", Type: model.Time},
			{Name: "cashregisterid", Type: model.Int},
			{Name: "productid", Type: model.Int},
			{Name: "customerid", Type: model.Int},
			{Name: "price", Type: model.Int},
			{Name: "data", Type: model.String, MaxLen: 100},
		},
		PK: []int{0},
		Indexes: []model.Index{
			{Name: "marketsegment", Columns: []int{3, 4, 5}},
			{Name: "registersegment", Columns: []int{2, 4, 5}},
		},
	}
}

// openLoaded opens pebble in a temp dir, loads testRows rows and builds
// the indexes.
func openLoaded(t *testing.T) model.DB {
	t.Helper()
	ctx := context.Background()
	db, err := engine.Open(ctx, "pebble", model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tbl := testTable()
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows := make([]model.Row, 0, 50)
	for id := int64(1); id <= testRows; id++ {
		rows = append(rows, model.Row{
			{Int: id}, {Int: 1_700_000_000 + id}, {Int: id % 7}, {Int: id % 13},
			{Int: id % 11}, {Int: id % 5}, {Bytes: []byte(fmt.Sprintf("row-%d", id))},
		})
		if len(rows) == cap(rows) {
			if err := conn.Insert(ctx, tbl, rows); err != nil {
				t.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestRunConsistent(t *testing.T) {
	res, err := Run(context.Background(), openLoaded(t))
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Tables != 1 || len(res.Indexes) != 2 {
		t.Fatalf("result %+v, want OK with 1 table and 2 indexes", res)
	}
	for _, ix := range res.Indexes {
		if !ix.Consistent || ix.PKRows != testRows || ix.Entries != testRows {
			t.Errorf("index %+v, want consistent with %d rows and entries", ix, testRows)
		}
	}
}

// faultyIndexDB wraps a real DB: its connections pass an index scan of
// index badIndex through edit, which may drop or change entries.
type faultyIndexDB struct {
	model.DB
	badIndex int
	edit     func(n int, r model.Row) (model.Row, bool) // n counts entries from 0
}

func (d *faultyIndexDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &faultyIndexConn{Conn: c, db: d}, nil
}

type faultyIndexConn struct {
	model.Conn
	db *faultyIndexDB
}

func (c *faultyIndexConn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if spec.Index != c.db.badIndex {
		return c.Conn.Scan(ctx, t, spec, fn)
	}
	n := 0
	return c.Conn.Scan(ctx, t, spec, func(r model.Row) bool {
		r, keep := c.db.edit(n, r)
		n++
		if !keep {
			return true
		}
		return fn(r)
	})
}

// droppingIndexDB loses the 10th entry of index 1.
func droppingIndexDB(db model.DB) model.DB {
	return &faultyIndexDB{DB: db, badIndex: 1, edit: func(n int, r model.Row) (model.Row, bool) {
		return r, n != 9
	}}
}

// changingIndexDB returns the 10th entry of index 1 with its leading
// column changed: the count is right, the content is not.
func changingIndexDB(db model.DB) model.DB {
	return &faultyIndexDB{DB: db, badIndex: 1, edit: func(n int, r model.Row) (model.Row, bool) {
		if n == 9 {
			r = model.CopyRow(nil, r)
			r[0].Int += 1000
		}
		return r, true
	}}
}

func TestRunDetectsInconsistentIndex(t *testing.T) {
	for _, c := range []struct {
		name        string
		wrap        func(model.DB) model.DB
		wantEntries int64
	}{
		{"dropped entry", droppingIndexDB, testRows - 1},
		{"changed entry", changingIndexDB, testRows},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(context.Background(), c.wrap(openLoaded(t)))
			if err != nil {
				t.Fatal(err)
			}
			if res.OK || len(res.Indexes) != 2 {
				t.Fatalf("result %+v, want not OK with 2 indexes", res)
			}
			good, bad := res.Indexes[0], res.Indexes[1]
			if !good.Consistent || good.Entries != testRows {
				t.Errorf("index 0 %+v, want consistent with %d entries", good, testRows)
			}
			if bad.Consistent || bad.Entries != c.wantEntries || bad.PKRows != testRows || bad.Index != "registersegment" {
				t.Errorf("index 1 %+v, want inconsistent registersegment with %d entries", bad, c.wantEntries)
			}
		})
	}
}

// A unique index holding two entries with the same index columns (written
// by pebble with unique_check=false, which skips the check) is reported.
func TestRunDetectsUniqueDuplicates(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(ctx, "pebble", model.Config{DataDir: t.TempDir(), Options: map[string]string{"unique_check": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl := testTable()
	tbl.Indexes = []model.Index{{Name: "uq", Columns: []int{2}, Unique: true}}
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	row := func(id, reg int64) model.Row {
		return model.Row{{Int: id}, {Int: 1}, {Int: reg}, {Int: 1}, {Int: 1}, {Int: 1}, {Bytes: []byte("x")}}
	}
	if err := conn.Insert(ctx, tbl, []model.Row{row(1, 10), row(2, 20), row(3, 10), row(4, 10)}); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || len(res.Indexes) != 1 || !res.Indexes[0].Unique || res.Indexes[0].Duplicates != 2 || res.Indexes[0].Consistent {
		t.Fatalf("verify of a unique index with duplicates: %+v", res)
	}
}
