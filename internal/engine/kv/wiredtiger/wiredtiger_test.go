//go:build wiredtiger

package wiredtiger

import (
	"context"
	"sort"
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv/kvtest"
	"rumbench/internal/model"
)

// open goes through engine.Open, as the CLI does (options, data dir marker).
func open(opts map[string]string) kvtest.Opener {
	return func(tb testing.TB, dir string) model.DB {
		tb.Helper()
		db, err := engine.Open(context.Background(), "wiredtiger", model.Config{DataDir: dir, Options: opts})
		if err != nil {
			tb.Fatal(err)
		}
		return db
	}
}

func TestSuite(t *testing.T) {
	kvtest.Run(t, open(map[string]string{"cache_size": "16MB"}))
}

func TestSuiteNoLog(t *testing.T) {
	kvtest.Run(t, open(map[string]string{"log": "false", "block_compressor": "zlib", "prefix_compression": "false", "checkpoint_wait": "1"}))
}

func TestDefaults(t *testing.T) {
	db := open(nil)(t, t.TempDir())
	defer db.Close()
	info := db.Info()
	t.Logf("info: %+v", info)
	if info.Name != "wiredtiger" || info.Family != model.CoWBTree || !strings.Contains(info.Version, "3.") ||
		info.Settings["sync"] != "false" || info.Settings["log"] != "true" || info.Settings["block_compressor"] != "snappy" {
		t.Fatalf("Info = %+v", info)
	}
}

// TestCompressorFixedAtCreate reopens a snappy table asking for none: the
// table keeps snappy, and Info says so.
func TestCompressorFixedAtCreate(t *testing.T) {
	dir := t.TempDir()
	open(nil)(t, dir).Close()
	db := open(map[string]string{"block_compressor": "none"})(t, dir)
	defer db.Close()
	if got := db.Info().Settings["block_compressor"]; got != "snappy" {
		t.Fatalf("block_compressor after reopen = %q, want snappy", got)
	}
}

func TestBadOptions(t *testing.T) {
	for _, kv := range [][2]string{
		{"cache_size", "lots"}, {"cache_size", "1KB"}, {"block_compressor", "lz77"}, {"prefix_compression", "x"},
		{"checkpoint_wait", "-1"}, {"log", "maybe"}, {"sync", "sometimes"},
	} {
		_, err := engine.Open(context.Background(), "wiredtiger", model.Config{DataDir: t.TempDir(), Options: map[string]string{kv[0]: kv[1]}})
		if err == nil || !strings.Contains(err.Error(), kv[0]) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: error %v; want one line naming the option", kv[0], kv[1], err)
		}
	}
	if _, err := engine.Open(context.Background(), "wiredtiger", model.Config{DataDir: t.TempDir(), Options: map[string]string{"sync": "true", "log": "false"}}); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("sync without log: error %v; want one line", err)
	}
	for _, c := range []string{"none", "zlib", "SNAPPY"} {
		db, err := engine.Open(context.Background(), "wiredtiger", model.Config{DataDir: t.TempDir(), Options: map[string]string{"block_compressor": c, "sync": "true"}})
		if err != nil {
			t.Fatalf("block_compressor=%s: %v", c, err)
		}
		db.Close()
	}
}

// TestOpenError checks that a WiredTiger failure comes back as one error
// with WiredTiger's message.
func TestOpenError(t *testing.T) {
	dir := t.TempDir()
	db := open(nil)(t, dir)
	defer db.Close()
	// The same home twice: WiredTiger's lock refuses the second open.
	_, err := engine.Open(context.Background(), "wiredtiger", model.Config{DataDir: dir})
	t.Logf("second open: %v", err)
	if err == nil || !strings.Contains(err.Error(), "wiredtiger") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("second open of one data dir: error %v; want one line from WiredTiger", err)
	}
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	db := open(nil)(t, t.TempDir())
	defer db.Close()
	tbl := kvtest.IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows := make([]model.Row, 100)
	for i := 0; i < 50; i++ {
		for j := range rows {
			rows[j] = kvtest.IbenchRow(rows[j], int64(i*100+j))
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
		if k != "statistics" {
			t.Logf("%s = %v", k, st[k])
		}
	}
	all, _ := st["statistics"].(map[string]int64)
	t.Logf("%d statistics", len(all))
	for k, want := range headline {
		if _, ok := st[want]; !ok {
			t.Errorf("no statistic %q (%s)", k, want)
		}
	}
	if n, _ := st["checkpoints"].(int64); n < 1 {
		t.Errorf("checkpoints = %v after Maintain", st["checkpoints"])
	}
	if n, _ := st["cache_bytes"].(int64); n <= 0 {
		t.Errorf("cache_bytes = %v", st["cache_bytes"])
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
			kvtest.BenchInsert(b, open(map[string]string{"sync": bc.sync}), 100, bc.idx)
		})
	}
}

// TestAllocs checks that no operation allocates per row: 100-row calls
// allocate no more than 10-row calls.
func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 20000 rows")
	}
	a := kvtest.OpAllocs(t, open(nil))
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
	kvtest.BlindInsert(t, open(map[string]string{"unique_check": "false"}))
}
