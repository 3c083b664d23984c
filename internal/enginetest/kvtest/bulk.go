package kvtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rumbench/internal/engine/kv"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"
)

// bulkRows is the table size of BulkBuild: with index_build_memory=256KB
// its 5 indexes' entries are sorted in about ten runs, merged in passes.
const bulkRows = 10000

// BulkBuild checks the bulk index build (index_build=bulk) against the
// online one (index_build=online) on one engine: the same rows, indexed by
// each, give the same keys in every index, key for key, also with a sort
// budget small enough to spill many runs; rows written after the build
// reach the new indexes; a unique index over duplicate values fails with
// model.ErrDuplicateKey and leaves no index behind. open takes engine
// options; base is added to each.
func BulkBuild(t *testing.T, open func(opts map[string]string) enginetest.Opener, base map[string]string) {
	ctx := context.Background()
	tbl := enginetest.IbenchTable("bulk")
	tbl.Indexes = append(tbl.Indexes,
		model.Index{Name: "regdata", Columns: []int{ibench.ColCashRegisterID, ibench.ColData}},                // a string column
		model.Index{Name: "uq_price", Columns: []int{ibench.ColPrice, ibench.ColTransactionID}, Unique: true}, // the PK in the prefix
	)
	modes := []struct {
		name string
		opts map[string]string
		runs bool // expect spilled runs
	}{
		{"online", map[string]string{"index_build": "online"}, false},
		{"bulk", map[string]string{"index_build": "bulk"}, false},
		{"bulk-256KB", map[string]string{"index_build": "bulk", "index_build_memory": "256KB"}, true},
	}
	var want [][][2][]byte // per keyspace: the online build's contents
	for _, m := range modes {
		opts := map[string]string{}
		for k, v := range base {
			opts[k] = v
		}
		for k, v := range m.opts {
			opts[k] = v
		}
		db := open(opts)(t, t.TempDir())
		must(t, db.CreateTable(ctx, tbl))
		c, err := db.Conn(ctx)
		must(t, err)
		var rows []model.Row
		for pk := int64(1); pk <= bulkRows; pk++ {
			rows = append(rows, enginetest.IbenchRow(nil, pk))
			if len(rows) == 500 {
				must(t, c.Insert(ctx, tbl, rows))
				rows = rows[:0]
			}
		}
		must(t, db.CreateIndexes(ctx, tbl))
		if m.name != "online" {
			entries, runs := db.(interface{ LastBulkBuild() (int64, int) }).LastBulkBuild()
			if entries != bulkRows*int64(len(tbl.Indexes)) {
				t.Fatalf("%s: bulk build sorted %d entries, want %d", m.name, entries, bulkRows*len(tbl.Indexes))
			}
			if m.runs != (runs > 1) {
				t.Fatalf("%s: bulk build spilled %d runs", m.name, runs)
			}
			t.Logf("%s: %d entries, %d runs", m.name, entries, runs)
		}
		// Writes after the build maintain the new indexes.
		for pk := int64(bulkRows + 1); pk <= bulkRows+100; pk++ {
			rows = append(rows, enginetest.IbenchRow(nil, pk))
		}
		must(t, c.Insert(ctx, tbl, rows))
		_, err = c.DeleteOldest(ctx, tbl, model.Row{{Int: 1}}, 50)
		must(t, err)
		c.Close()
		got := keyspaces(t, db, len(tbl.Indexes))
		if want == nil {
			want = got
		} else {
			for ks := range want {
				if err := sameContents(want[ks], got[ks]); err != nil {
					t.Fatalf("%s: keyspace %d differs from the online build: %v", m.name, ks, err)
				}
			}
		}
		must(t, db.Close())
	}
	for ks, w := range want {
		if len(w) != bulkRows+50 {
			t.Fatalf("keyspace %d holds %d keys, want %d", ks, len(w), bulkRows+50)
		}
	}
	bulkUniqueViolation(t, open, base)
}

// keyspaces returns the contents of the PK (0) and each index keyspace of
// the only table (id 1) of db.
func keyspaces(tb testing.TB, db model.DB, indexes int) [][][2][]byte {
	st := storeOf(tb, db)
	var out [][][2][]byte
	for ix := 0; ix <= indexes; ix++ {
		lower := []byte{0, 0, 0, 1, byte(ix)}
		upper := []byte{0, 0, 0, 1, byte(ix + 1)}
		out = append(out, Contents(tb, st, lower, upper))
	}
	return out
}

func sameContents(want, got [][2][]byte) error {
	for i := range min(len(want), len(got)) {
		if !bytes.Equal(want[i][0], got[i][0]) || !bytes.Equal(want[i][1], got[i][1]) {
			return fmt.Errorf("entry %d is %x=%x, want %x=%x", i, got[i][0], got[i][1], want[i][0], want[i][1])
		}
	}
	if len(want) != len(got) {
		return fmt.Errorf("%d entries, want %d", len(got), len(want))
	}
	return nil
}

// bulkUniqueViolation: a unique index over duplicate values fails in the
// bulk build, is not created, leaves no entries, and the table stays
// usable; a later build of a valid index succeeds.
func bulkUniqueViolation(t *testing.T, open func(opts map[string]string) enginetest.Opener, base map[string]string) {
	ctx := context.Background()
	opts := map[string]string{"index_build": "bulk", "index_build_memory": "256KB"}
	for k, v := range base {
		opts[k] = v
	}
	db := open(opts)(t, t.TempDir())
	defer db.Close()
	tbl := enginetest.IbenchTable("uq")
	tbl.Indexes = nil
	must(t, db.CreateTable(ctx, tbl))
	c, err := db.Conn(ctx)
	must(t, err)
	defer c.Close()
	var rows []model.Row
	for pk := int64(1); pk <= 3000; pk++ {
		rows = append(rows, enginetest.IbenchRow(nil, pk))
	}
	must(t, c.Insert(ctx, tbl, rows))
	// 20 cash registers for 3000 rows: duplicates.
	bad := *tbl
	bad.Indexes = []model.Index{{Name: "uq_reg", Columns: []int{ibench.ColCashRegisterID}, Unique: true}}
	err = db.CreateIndexes(ctx, &bad)
	if !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("unique index over duplicates: err = %v, want ErrDuplicateKey", err)
	}
	tables, err := db.Tables(ctx)
	must(t, err)
	if len(tables) != 1 || len(tables[0].Indexes) != 0 {
		t.Fatalf("after the failed build the table has indexes %+v", tables[0].Indexes)
	}
	if _, err := c.Scan(ctx, &bad, model.ScanSpec{Index: 0, Limit: 1}, func(model.Row) bool { return true }); err == nil {
		t.Fatal("the failed unique index can be scanned")
	}
	// Its keyspace (index id 1) holds nothing, if the store still has it.
	if got := keyspaceOrNil(t, db, 1); len(got) != 0 {
		t.Fatalf("the failed unique index left %d entries", len(got))
	}
	// A crashed build's directory is removed by the next build, which
	// leaves none of its own.
	bl, ok := storeOf(t, db).(kv.BulkLoader)
	if !ok {
		t.Fatalf("%T is not a kv.BulkLoader", storeOf(t, db))
	}
	stale := filepath.Join(bl.BulkDir(), "rumbench-index-build-stale")
	must(t, os.MkdirAll(stale, 0o755))
	must(t, os.WriteFile(filepath.Join(stale, "run-1"), []byte("x"), 0o644))
	good := *tbl
	good.Indexes = []model.Index{{Name: "uq_reg_id", Columns: []int{ibench.ColCashRegisterID, ibench.ColData, ibench.ColTransactionID}, Unique: true}}
	must(t, db.CreateIndexes(ctx, &good))
	if left, _ := filepath.Glob(filepath.Join(bl.BulkDir(), "rumbench-index-build-*")); len(left) > 0 {
		t.Fatalf("build directories left behind: %v", left)
	}
	must(t, c.Insert(ctx, &good, []model.Row{enginetest.IbenchRow(nil, 5000)}))
	n := 0
	_, err = c.Scan(ctx, &good, model.ScanSpec{Index: 0}, func(model.Row) bool { n++; return true })
	must(t, err)
	if n != 3001 {
		t.Fatalf("the unique index built after the failure has %d entries, want 3001", n)
	}
}

// keyspaceOrNil reads index ix of table 1, or nil when the store has no
// keyspace for it (a dropped WiredTiger table or RocksDB column family).
func keyspaceOrNil(tb testing.TB, db model.DB, ix byte) [][2][]byte {
	st := storeOf(tb, db)
	v, err := st.NewView()
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Close()
	it, err := v.NewIter([]byte{0, 0, 0, 1, ix}, []byte{0, 0, 0, 1, ix + 1})
	if err != nil {
		return nil
	}
	defer it.Close()
	var out [][2][]byte
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, [2][]byte{bytes.Clone(it.Key()), nil})
	}
	return out
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
