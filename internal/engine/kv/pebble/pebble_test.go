package pebble

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/enginetest"
	"rumbench/internal/enginetest/kvtest"
	"rumbench/internal/model"
)

// open goes through engine.Open, as the CLI does (options, data dir marker).
// sync=false keeps the suite fast; TestDefaults covers the default.
func open(opts map[string]string) enginetest.Opener {
	return func(tb testing.TB, dir string) model.DB {
		tb.Helper()
		db, err := engine.Open(context.Background(), "pebble", model.Config{DataDir: dir, Options: opts})
		if err != nil {
			tb.Fatal(err)
		}
		return db
	}
}

func TestSuite(t *testing.T) {
	enginetest.Conformance(t, open(map[string]string{"sync": "false", "memtable_size": "1MB", "cache_size": "8MB"}))
}

// TestConcurrentTx: with transactions=row_locks (the default) Txs run at
// once, isolated by the kv layer's row locks.
func TestConcurrentTx(t *testing.T) {
	enginetest.ConcurrentTx(t, open(map[string]string{"sync": "false", "memtable_size": "1MB"}))
}

// TestSerialTx: transactions=serial, one Tx at a time, keeps LinkBench's
// counts exact too.
func TestSerialTx(t *testing.T) {
	enginetest.TxCounts(t, open(map[string]string{"sync": "false", "memtable_size": "1MB", "transactions": "serial"}))
}

func TestDefaults(t *testing.T) {
	db := open(nil)(t, t.TempDir())
	defer db.Close()
	info := db.Info()
	t.Logf("info: %+v", info)
	if info.Name != "pebble" || info.Family != model.LSM || info.Version == "" || info.Settings["sync"] != "false" ||
		info.Settings["transactions"] != "row_locks" || info.Settings["lock_timeout_ms"] != "1000" {
		t.Fatalf("Info = %+v", info)
	}
	ctx := context.Background()
	tbl := enginetest.IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Insert(ctx, tbl, []model.Row{enginetest.IbenchRow(nil, 1)}); err != nil {
		t.Fatal(err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, kv := range [][2]string{
		{"cache_size", "lots"}, {"memtable_size", "5GB"}, {"sync", "maybe"}, {"unique_check", "maybe"},
		{"compression", "lz77"}, {"l0_compaction_threshold", "0"}, {"max_concurrent_compactions", "x"},
		{"transactions", "optimistic"},
	} {
		_, err := engine.Open(context.Background(), "pebble", model.Config{DataDir: t.TempDir(), Options: map[string]string{kv[0]: kv[1]}})
		if err == nil || !strings.Contains(err.Error(), kv[0]) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: error %v; want one line naming the option", kv[0], kv[1], err)
		}
	}
	for _, c := range []string{"none", "zstd", "SNAPPY"} {
		db, err := engine.Open(context.Background(), "pebble", model.Config{DataDir: t.TempDir(), Options: map[string]string{"compression": c, "cache_size": "1048576", "l0_compaction_threshold": "20"}})
		if err != nil {
			t.Fatalf("compression=%s: %v", c, err)
		}
		db.Close()
	}
}

func BenchmarkInsert(b *testing.B) {
	for _, bc := range []struct {
		name string
		idx  int
		sync string
	}{
		{"idx0/nosync", 0, "false"},
		{"idx3/nosync", 3, "false"},
		{"idx3/sync", 3, "true"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			enginetest.BenchInsert(b, open(map[string]string{"sync": bc.sync}), 100, bc.idx)
		})
	}
}

// TestAllocs checks that no operation allocates per row: 100-row calls
// allocate no more than 10-row calls.
func TestAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("loads 20000 rows; allocation counts are off under the race detector")
	}
	a := enginetest.OpAllocs(t, open(map[string]string{"sync": "false"}))
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-28s %5.1f allocs/op", k, a[k])
		if small, ok := strings.CutSuffix(k, "/100"); ok {
			// One allocation per row would add 90; background flushes and
			// compactions are counted too, hence the slack.
			if a[k] > a[small+"/10"]+5 {
				t.Errorf("%s: %.1f allocs at 100 rows, %.1f at 10: allocation per row", small, a[k], a[small+"/10"])
			}
		}
	}
}

// BenchmarkDeleteOldest: the cost of a call should not depend on how many
// rows earlier calls deleted (their tombstones are still in the LSM).
func BenchmarkDeleteOldest(b *testing.B) {
	for _, prefix := range []int{0, 100000} {
		b.Run(fmt.Sprintf("deleted=%d", prefix), func(b *testing.B) {
			enginetest.BenchDeleteOldest(b, open(map[string]string{"sync": "false"}), prefix)
		})
	}
}

// TestBlindInsert: unique_check=false writes without reading the key.
func TestBlindInsert(t *testing.T) {
	enginetest.BlindInsert(t, open(map[string]string{"unique_check": "false"}))
}

// BenchmarkKVOverhead: l.i0-style inserts through the table model against
// the store's own batches of the same keys and values (kvtest.BenchOverhead;
// go test -run '^$' -bench KVOverhead -benchtime 1x).
func BenchmarkKVOverhead(b *testing.B) {
	for _, uc := range []string{"true", "false"} {
		b.Run("unique_check="+uc, func(b *testing.B) {
			kvtest.BenchOverhead(b, open(map[string]string{"sync": "false", "unique_check": uc}))
		})
	}
}

// TestFinishedTxRefuses: a Tx's handle acts only while its transaction is
// open, though the kv layer hands the handles out of a per-connection
// slab: a committed or rolled back Tx's Update, Get and Commit fail while
// a later Tx of the same connection is open, across slabs too.
func TestFinishedTxRefuses(t *testing.T) {
	ctx := context.Background()
	db := open(map[string]string{"sync": "false"})(t, t.TempDir())
	defer db.Close()
	tbl := &model.Table{Name: "t", Columns: []model.Column{{Name: "id", Type: model.Int}, {Name: "v", Type: model.Int}}, PK: []int{0}}
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Insert(ctx, tbl, []model.Row{{{Int: 1}, {Int: 0}}}); err != nil {
		t.Fatal(err)
	}
	add := []model.Change{{Col: 1, Op: model.Add, Value: model.Value{Int: 1}}}
	var old []model.Tx
	for i := range 70 {
		x, err := c.(model.Transactor).Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range old {
			if _, err := o.Update(ctx, tbl, model.Row{{Int: 1}}, add); err == nil {
				t.Fatalf("Tx %d: a finished Tx updated", i)
			}
			if _, err := o.Get(ctx, tbl, []model.Row{{{Int: 1}}}, func(model.Row) {}); err == nil {
				t.Fatalf("Tx %d: a finished Tx read", i)
			}
			if err := o.Commit(ctx); err == nil {
				t.Fatalf("Tx %d: a finished Tx committed", i)
			}
		}
		if ok, err := x.Update(ctx, tbl, model.Row{{Int: 1}}, add); err != nil || !ok {
			t.Fatalf("Tx %d: update: %v, %v", i, ok, err)
		}
		if i%2 == 0 {
			err = x.Commit(ctx)
		} else {
			err = x.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		old = append(old[max(0, len(old)-3):], x)
	}
	var v int64
	if _, err := c.Get(ctx, tbl, []model.Row{{{Int: 1}}}, func(r model.Row) { v = r[1].Int }); err != nil || v != 35 {
		t.Fatalf("the row's counter is %d after 35 committed and 35 rolled back additions: %v", v, err)
	}
}
