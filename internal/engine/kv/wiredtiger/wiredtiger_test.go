//go:build wiredtiger

package wiredtiger

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"
	"rumbench/internal/workload/retry"
)

// open goes through engine.Open, as the CLI does (options, data dir marker).
func open(opts map[string]string) enginetest.Opener {
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
	enginetest.Conformance(t, open(map[string]string{"cache_size": "16MB"}))
}

func TestSuiteNoLog(t *testing.T) {
	enginetest.Conformance(t, open(map[string]string{"log": "false", "block_compressor": "zlib", "prefix_compression": "false", "checkpoint_wait": "1"}))
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

// TestEvictionSettings: the dirty-eviction thresholds and thread count
// reach wiredtiger_open (a value it rejected would fail the open) and
// run.json; the thread count is MongoDB's, the dirty thresholds are raised
// for the small default cache (MongoDB's 5 and 20 stay one option away).
func TestEvictionSettings(t *testing.T) {
	for _, c := range []struct {
		opts                     map[string]string
		target, trigger, threads string
	}{
		{nil, "50", "90", "4"},
		{map[string]string{"eviction_dirty_target": "5", "eviction_dirty_trigger": "20"}, "5", "20", "4"}, // MongoDB's
		{map[string]string{"eviction_dirty_target": "30", "eviction_dirty_trigger": "60", "eviction_threads": "2"}, "30", "60", "2"},
	} {
		db := open(c.opts)(t, t.TempDir())
		got := db.Info().Settings
		db.Close()
		if got["eviction_dirty_target"] != c.target || got["eviction_dirty_trigger"] != c.trigger || got["eviction_threads"] != c.threads {
			t.Errorf("options %v: settings %v", c.opts, got)
		}
		s, err := parseOptions(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("eviction_dirty_target=%s,eviction_dirty_trigger=%s,eviction=(threads_min=%s,threads_max=%s)", c.target, c.trigger, c.threads, c.threads)
		if !strings.Contains(s.openConfig(), want) {
			t.Errorf("open config %q lacks %q", s.openConfig(), want)
		}
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
	tbl := enginetest.IbenchTable("pi1")
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

// TestLayout checks that every table's primary key and every secondary
// index is a WiredTiger table (and file) of its own, as MongoDB deploys
// WiredTiger, and that dropping a table drops its files.
func TestLayout(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := open(nil)(t, dir)
	tbl := enginetest.IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	other := enginetest.IbenchTable("pi2")
	other.Indexes = nil
	if err := db.CreateTable(ctx, other); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []model.Row
	for pk := int64(0); pk < 1000; pk++ {
		rows = append(rows, enginetest.IbenchRow(nil, pk))
	}
	if err := c.Insert(ctx, tbl, rows); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// A checkpoint writes every table's pages to its file.
	if err := db.(model.Maintainer).Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"rumbench-1-0-pi1.PRIMARY.wt", "rumbench-2-0-pi2.PRIMARY.wt", "rumbench-meta.wt"}
	for i, ix := range tbl.Indexes {
		want = append(want, fmt.Sprintf("rumbench-1-%d-pi1.%s.wt", i+1, ix.Name))
	}
	sort.Strings(want)
	if got := wtFiles(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	// Each of pi1's files holds its entries: it is larger than the empty
	// pi2's.
	empty, err := os.Stat(filepath.Join(dir, "wiredtiger", "rumbench-2-0-pi2.PRIMARY.wt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range want[:len(tbl.Indexes)+1] {
		fi, err := os.Stat(filepath.Join(dir, "wiredtiger", f))
		if err != nil || fi.Size() <= empty.Size() {
			t.Fatalf("%s: %v, %v; want more than an empty table's %d bytes", f, fi, err, empty.Size())
		}
	}
	// Stats give each object's size.
	stats, err := db.(model.StatsReporter).Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if objs, _ := stats["object_bytes"].(map[string]int64); len(objs) != len(want) || objs[want[0]] <= 0 {
		t.Fatalf("object_bytes = %v, want a size for each of %v", stats["object_bytes"], want)
	}
	if err := db.DropTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if got := wtFiles(t, dir); strings.Join(got, " ") != "rumbench-2-0-pi2.PRIMARY.wt rumbench-meta.wt" {
		t.Fatalf("files after dropping pi1: %v", got)
	}
	// Reopen: the keyspaces are found again.
	db.Close()
	db = open(nil)(t, dir)
	defer db.Close()
	c, err = db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Insert(ctx, other, rows[:10]); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Get(ctx, other, []model.Row{{{Int: 5}}}, func(model.Row) {}); n != 1 || err != nil {
		t.Fatalf("get after reopen: %d, %v", n, err)
	}
}

func wtFiles(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, "wiredtiger", "rumbench*.wt"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	sort.Strings(m)
	return m
}

// TestLegacyLayout refuses a data dir of the older single-table layout with
// a clear error instead of reading it as empty.
func TestLegacyLayout(t *testing.T) {
	dir := t.TempDir()
	c, err := openConn(mkdir(t, filepath.Join(dir, "wiredtiger")), "create")
	if err != nil {
		t.Fatal(err)
	}
	ss, err := c.openSession(&store{})
	if err == nil {
		err = ss.create(legacyURI, "key_format=u,value_format=u")
	}
	if err != nil {
		t.Fatal(err)
	}
	c.close()
	_, err = Driver{}.Open(context.Background(), model.Config{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "single-table layout") {
		t.Fatalf("open of a single-table data dir: %v", err)
	}
}

func mkdir(t *testing.T, dir string) string {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHotRowConflicts: updates of one row take no lock of rumbench's (the
// kv layer's row mutex is gone on WiredTiger), so concurrent ones conflict
// in WiredTiger (WT_ROLLBACK), which hotrow retries and counts as a
// deadlock; none is lost.
func TestHotRowConflicts(t *testing.T) {
	conflicts, err := enginetest.HotRowUntilConflict(t, open(nil), 8, 3000)
	t.Logf("%d conflicts, e.g. %v", conflicts, err)
	if conflicts == 0 {
		t.Fatal("no conflicts among 8 clients updating one row: are updates still serialised by rumbench?")
	}
	if k := retry.Classify(err); k != retry.ErrDeadlock {
		t.Fatalf("hotrow classifies %q as %v, want deadlock", err, k)
	}
}

// TestConcurrentTx: a Tx runs in WiredTiger's own snapshot transaction,
// beside other Txs.
func TestConcurrentTx(t *testing.T) {
	enginetest.ConcurrentTx(t, open(map[string]string{"cache_size": "16MB"}))
}

// prefix_compression=indexes (the default) creates a table's primary key
// without prefix compression and its indexes with it, as MongoDB
// configures collections and indexes; true and false apply to both.
func TestPrefixCompressionLayout(t *testing.T) {
	for _, c := range []struct {
		opt        string
		pk, index  bool
		defaultOpt bool
	}{{"", false, true, true}, {"true", true, true, false}, {"false", false, false, false}} {
		opts := map[string]string{}
		if !c.defaultOpt {
			opts["prefix_compression"] = c.opt
		}
		s, err := parseOptions(opts)
		if err != nil {
			t.Fatal(err)
		}
		st, _, err := openStore(t.TempDir(), s, false)
		if err != nil {
			t.Fatal(err)
		}
		pk, ix := []byte{0, 0, 0, 7, 0}, []byte{0, 0, 0, 7, 1}
		if err := st.CreateKeyspace(pk, "t.PRIMARY"); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateKeyspace(ix, "t.ix1"); err != nil {
			t.Fatal(err)
		}
		ss, err := st.get()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []struct {
			prefix []byte
			want   bool
		}{{pk, c.pk}, {ix, c.index}} {
			ks, _ := route(k.prefix)
			uri, err := st.uri(ks)
			if err != nil {
				t.Fatal(err)
			}
			file := "file:" + strings.TrimPrefix(uri, "table:") + ".wt"
			meta, err := ss.metadata(file)
			if err != nil || meta == "" {
				t.Fatalf("metadata of %s: %q, %v", file, meta, err)
			}
			if want := fmt.Sprintf("prefix_compression=%v", k.want); !strings.Contains(meta, want) {
				t.Errorf("prefix_compression=%q: %s has no %s in %s", c.opt, file, want, meta)
			}
		}
		st.put(ss)
		st.Close()
	}
}

// TestLeafPageMax: auto keeps 1024 leaf pages in the cache (4KB at the
// iobound preset's 5.6MB, WiredTiger's 32KB at the 256MB default), an
// explicit size wins, the size reaches the tables' metadata and run.json,
// and bad sizes are one-line errors.
func TestLeafPageMax(t *testing.T) {
	for _, c := range []struct {
		cache, opt string
		want       int64
		source     string
	}{
		{"5600000", "", 4 << 10, "auto (cache_size/1024)"},
		{"1MB", "", 4 << 10, "auto (cache_size/1024)"},
		{"8MB", "", 8 << 10, "auto (cache_size/1024)"},
		{"20MB", "", 16 << 10, "auto (cache_size/1024)"},
		{"", "", 32 << 10, "auto (cache_size/1024)"},
		{"5600000", "32KB", 32 << 10, "option"},
	} {
		opts := map[string]string{}
		if c.cache != "" {
			opts["cache_size"] = c.cache
		}
		if c.opt != "" {
			opts["leaf_page_max"] = c.opt
		}
		dir := t.TempDir()
		db := open(opts)(t, dir)
		set := db.Info().Settings
		if set["leaf_page_max"] != fmt.Sprint(c.want) || set["leaf_page_max_source"] != c.source {
			t.Errorf("cache %s, leaf_page_max %q: settings %s (%s), want %d (%s)", c.cache, c.opt, set["leaf_page_max"], set["leaf_page_max_source"], c.want, c.source)
		}
		tb := ibench.Table("t", 1, 20)
		if err := db.CreateTable(context.Background(), tb); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateIndexes(context.Background(), tb); err != nil {
			t.Fatal(err)
		}
		meta := tableMetadata(t, db.(*DB).st)
		db.Close()
		if want := fmt.Sprintf("leaf_page_max=%d,", c.want); strings.Count(meta, want) != 2 {
			t.Errorf("cache %s, leaf_page_max %q: the table and its index lack %s: %s", c.cache, c.opt, want, meta)
		}
	}
	for _, v := range []string{"2KB", "64KB", "12KB", "big"} {
		_, err := engine.Open(context.Background(), "wiredtiger", model.Config{DataDir: t.TempDir(), Options: map[string]string{"leaf_page_max": v}})
		if err == nil || !strings.Contains(err.Error(), "leaf_page_max") || strings.Contains(err.Error(), "\n") {
			t.Errorf("leaf_page_max=%s: error %v; want one line naming the option", v, err)
		}
	}
}

// tableMetadata returns the metadata of every keyspace table of st but
// the catalog's, joined.
func tableMetadata(t *testing.T, st *store) string {
	t.Helper()
	ss, err := st.get()
	if err != nil {
		t.Fatal(err)
	}
	defer st.put(ss)
	var all []string
	for _, uri := range st.spaces {
		if uri == metaURI {
			continue
		}
		meta, err := ss.metadata("file:" + strings.TrimPrefix(uri, "table:") + ".wt")
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, meta)
	}
	return strings.Join(all, "\n")
}
