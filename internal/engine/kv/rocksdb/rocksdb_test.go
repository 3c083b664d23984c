//go:build rocksdb

package rocksdb

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/enginetest"
	"rumbench/internal/enginetest/kvtest"
	"rumbench/internal/model"
	"rumbench/internal/workload/retry"
)

// open goes through engine.Open, as the CLI does (options, data dir marker).
func open(opts map[string]string) enginetest.Opener {
	return func(tb testing.TB, dir string) model.DB {
		tb.Helper()
		db, err := engine.Open(context.Background(), "rocksdb", model.Config{DataDir: dir, Options: opts})
		if err != nil {
			tb.Fatal(err)
		}
		return db
	}
}

func TestSuite(t *testing.T) {
	enginetest.Conformance(t, open(map[string]string{"write_buffer_size": "1MB", "block_cache_size": "8MB"}))
}

func TestDefaults(t *testing.T) {
	db := open(nil)(t, t.TempDir())
	defer db.Close()
	info := db.Info()
	t.Logf("info: %+v", info)
	if info.Name != "rocksdb" || info.Family != model.LSM || !strings.HasPrefix(info.Version, "7.") || info.Settings["sync"] != "false" || info.Settings["bottommost_compression"] != "snappy" {
		t.Fatalf("Info = %+v", info)
	}
}

func TestBadOptions(t *testing.T) {
	for _, kv := range [][2]string{
		{"block_cache_size", "lots"}, {"write_buffer_size", "1KB"}, {"sync", "maybe"},
		{"compression", "lz77"}, {"bottommost_compression", "brotli"}, {"disable_wal", "x"},
		{"use_direct_reads", "2"}, {"max_background_jobs", "0"}, {"bloom_bits_per_key", "-1"},
		{"transactions", "sometimes"}, {"column_family_per_index", "maybe"},
	} {
		_, err := engine.Open(context.Background(), "rocksdb", model.Config{DataDir: t.TempDir(), Options: map[string]string{kv[0]: kv[1]}})
		if err == nil || !strings.Contains(err.Error(), kv[0]) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: error %v; want one line naming the option", kv[0], kv[1], err)
		}
	}
	if _, err := engine.Open(context.Background(), "rocksdb", model.Config{DataDir: t.TempDir(), Options: map[string]string{"sync": "true", "disable_wal": "true"}}); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("sync with disable_wal: error %v; want one line", err)
	}
	for _, c := range []string{"none", "lz4", "zstd", "SNAPPY"} {
		db, err := engine.Open(context.Background(), "rocksdb", model.Config{DataDir: t.TempDir(), Options: map[string]string{"compression": c, "bottommost_compression": "zstd", "block_cache_size": "1048576", "use_direct_reads": "true"}})
		if err != nil {
			t.Fatalf("compression=%s: %v", c, err)
		}
		db.Close()
	}
}

// TestStats checks the step-end statistics after writes and a compaction.
func TestStats(t *testing.T) {
	ctx := context.Background()
	db := open(map[string]string{"write_buffer_size": "256KB"})(t, t.TempDir())
	defer db.Close()
	tbl := enginetest.IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows := make([]model.Row, 100)
	for i := 0; i < 100; i++ {
		for j := range rows {
			rows[j] = enginetest.IbenchRow(rows[j], int64(i*100+j))
		}
		if err := c.Insert(ctx, tbl, rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.(model.Maintainer).Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := db.(model.StatsReporter).Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "rocksdb.stats" {
			t.Logf("%s = %v", k, st[k])
		}
	}
	t.Log(st["rocksdb.stats"])
	for _, k := range []string{"rocksdb.stats", "estimate-num-keys", "total-sst-files-size", "is-write-stopped", "write_amp", "levels", "stall_count"} {
		if _, ok := st[k]; !ok {
			t.Errorf("Stats has no %s", k)
		}
	}
	if n, _ := st["total-sst-files-size"].(uint64); n == 0 {
		t.Errorf("total-sst-files-size = %v after a compaction", st["total-sst-files-size"])
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
	if testing.Short() {
		t.Skip("loads 20000 rows")
	}
	a := enginetest.OpAllocs(t, open(nil))
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-28s %5.1f allocs/op", k, a[k])
		if small, ok := strings.CutSuffix(k, "/100"); ok {
			if a[k] > a[small+"/10"]+5 {
				t.Errorf("%s: %.1f allocs at 100 rows, %.1f at 10: allocation per row", small, a[k], a[small+"/10"])
			}
		}
	}
}

// TestBlindInsert: unique_check=false writes without reading the key.
func TestBlindInsert(t *testing.T) {
	enginetest.BlindInsert(t, open(map[string]string{"unique_check": "false"}))
}

func TestSuiteOptimistic(t *testing.T) {
	enginetest.Conformance(t, open(map[string]string{"write_buffer_size": "1MB", "block_cache_size": "8MB", "transactions": "optimistic"}))
}

// TestHotRowOptimistic: concurrent updates of one row are isolated by
// RocksDB's optimistic transactions, not by a lock of rumbench's: some
// commits fail (Busy), hotrow retries them as serialization failures, and
// none is lost.
func TestHotRowOptimistic(t *testing.T) {
	conflicts, err := enginetest.HotRowUntilConflict(t, open(map[string]string{"transactions": "optimistic"}), 8, 3000)
	t.Logf("%d conflicts, e.g. %v", conflicts, err)
	if conflicts == 0 {
		t.Fatal("no conflicts among 8 clients updating one row: are updates still serialised by rumbench?")
	}
	if k := retry.Classify(err); k != retry.ErrSerialization {
		t.Fatalf("hotrow classifies %q as %v, want serialization_failure", err, k)
	}
}

// TestUpdateWaitsForRowLock: on the default pessimistic TransactionDB an
// Update waits for RocksDB's lock on its row (no lock of rumbench's is
// involved): while another transaction holds the row, Update fails after
// the lock timeout with RocksDB's TimedOut, which hotrow retries as a lock
// wait timeout; once the holder commits, Update applies on top of its write.
func TestUpdateWaitsForRowLock(t *testing.T) {
	ctx := context.Background()
	db := open(nil)(t, t.TempDir())
	defer db.Close()
	tbl := enginetest.IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Insert(ctx, tbl, []model.Row{enginetest.IbenchRow(nil, 7)}); err != nil {
		t.Fatal(err)
	}
	st := db.(*DB).st
	// The PK entry of row 7 of table 1, the first table of a fresh DB.
	key := keyenc.AppendInt([]byte{0, 0, 0, 1, 0}, 7)
	holder, err := st.BeginUpdate()
	if err != nil {
		t.Fatal(err)
	}
	val, found, err := holder.GetForUpdate(key, nil)
	if err != nil || !found {
		t.Fatalf("holder's GetForUpdate: %v, %v", found, err)
	}
	start := time.Now()
	_, err = c.Update(ctx, tbl, model.Row{{Int: 7}}, []model.Change{{Col: 5, Op: model.Add, Value: model.Value{Int: 1}}})
	waited := time.Since(start)
	if !errors.Is(err, kv.ErrConflict) || retry.Classify(err) != retry.ErrLockWaitTimeout {
		t.Fatalf("Update of a row locked by another transaction: %v (%v); want RocksDB's lock timeout", err, retry.Classify(err))
	}
	if waited < lockTimeoutMS*time.Millisecond/2 {
		t.Fatalf("Update failed after %v: it did not wait for the lock", waited)
	}
	if err := holder.Set(key, val); err != nil {
		t.Fatal(err)
	}
	if err := holder.Commit(); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Update(ctx, tbl, model.Row{{Int: 7}}, []model.Change{{Col: 5, Op: model.Add, Value: model.Value{Int: 1}}}); !ok || err != nil {
		t.Fatalf("Update after the holder committed: %v, %v", ok, err)
	}
}

func TestSuiteColumnFamilyPerIndex(t *testing.T) {
	enginetest.Conformance(t, open(map[string]string{"write_buffer_size": "1MB", "block_cache_size": "8MB", "column_family_per_index": "true"}))
}

// TestColumnFamilyPerIndex: with column_family_per_index=true every table's
// primary key and every secondary index has a column family of its own
// (the default one keeps the metadata), dropping a table drops its column
// families, and a reopened data dir keeps the layout; by default everything
// is in the default column family.
func TestColumnFamilyPerIndex(t *testing.T) {
	ctx := context.Background()
	for _, perIndex := range []bool{false, true} {
		dir := t.TempDir()
		opts := map[string]string{"column_family_per_index": strconv.FormatBool(perIndex)}
		db := open(opts)(t, dir)
		tbl := enginetest.IbenchTable("pi1")
		if err := db.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateIndexes(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		other := enginetest.IbenchTable("pi2")
		if err := db.CreateTable(ctx, other); err != nil {
			t.Fatal(err)
		}
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Insert(ctx, tbl, []model.Row{enginetest.IbenchRow(nil, 1), enginetest.IbenchRow(nil, 2)}); err != nil {
			t.Fatal(err)
		}
		c.Close()
		want := []string{"default"}
		if perIndex {
			want = append(want, "rumbench-1-0-pi1.PRIMARY", "rumbench-1-1-pi1.marketsegment", "rumbench-1-2-pi1.registersegment", "rumbench-1-3-pi1.pdc", "rumbench-2-0-pi2.PRIMARY")
		}
		if got := liveCFs(t, db); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("column_family_per_index=%v: column families %v, want %v", perIndex, got, want)
		}
		if got := db.Info().Settings["column_family_per_index"]; got != strconv.FormatBool(perIndex) {
			t.Fatalf("Info column_family_per_index = %q", got)
		}
		if err := db.DropTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
		db.Close()
		// Reopened without the option: the data dir's layout holds.
		db = open(nil)(t, dir)
		if perIndex {
			want = []string{"default", "rumbench-2-0-pi2.PRIMARY"}
		}
		if got := liveCFs(t, db); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("column_family_per_index=%v after drop and reopen: %v, want %v", perIndex, got, want)
		}
		db.Close()
	}
}

// liveCFs lists the column families of the open DB.
func liveCFs(t *testing.T, db model.DB) []string {
	st := db.(*DB).st
	var names []string
	for _, h := range st.allCFs() {
		names = append(names, h.Name())
	}
	sort.Strings(names)
	return names
}

// BenchmarkKVOverhead: l.i0-style inserts through the table model against
// the store's own batches of the same keys and values (kvtest.BenchOverhead;
// go test -tags rocksdb -run '^$' -bench KVOverhead -benchtime 1x).
func BenchmarkKVOverhead(b *testing.B) {
	for _, uc := range []string{"true", "false"} {
		b.Run("unique_check="+uc, func(b *testing.B) {
			kvtest.BenchOverhead(b, open(map[string]string{"sync": "false", "unique_check": uc}))
		})
	}
}

// TestConcurrentTx: a Tx runs in RocksDB's own transaction, beside other
// Txs (pessimistic and optimistic).
func TestConcurrentTx(t *testing.T) {
	for _, mode := range []string{"pessimistic", "optimistic"} {
		t.Run(mode, func(t *testing.T) {
			enginetest.ConcurrentTx(t, open(map[string]string{"transactions": mode}))
		})
	}
}

// TestInsertRetriesLockTimeout: an insert batch that times out on a row
// lock another transaction holds (RocksDB's TimedOut, a kv.ErrConflict; a
// blind batch, so safe to write again) is retried after a backoff and
// counted in Retries, and goes through once the holder commits, instead of
// failing the insert.
func TestInsertRetriesLockTimeout(t *testing.T) {
	ctx := context.Background()
	db := open(nil)(t, t.TempDir())
	defer db.Close()
	tbl, c := enginetest.TableConn(t, db)
	st := db.(*DB).st
	holder, err := st.BeginUpdate()
	if err != nil {
		t.Fatal(err)
	}
	// The PK entry of row 7 of table 1, locked but not written.
	if _, _, err := holder.GetForUpdate(keyenc.AppendInt([]byte{0, 0, 0, 1, 0}, 7), nil); err != nil {
		t.Fatal(err)
	}
	hold := (lockTimeoutMS + 300) * time.Millisecond
	go func() {
		time.Sleep(hold)
		holder.Commit()
	}()
	rr := db.(model.RetryReporter)
	before := rr.Retries()
	start := time.Now()
	if err := c.Insert(ctx, tbl, []model.Row{enginetest.IbenchRow(nil, 7)}); err != nil {
		t.Fatalf("insert of a row locked past the lock timeout: %v; want it retried", err)
	}
	if took, n := time.Since(start), rr.Retries()-before; n < 1 || took < hold*9/10 {
		t.Fatalf("insert went through after %v with %d retries; want ≥ 1 retry after the %v lock hold", took, n, hold)
	}
}
