package main

import (
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"rumbench/internal/results"
	"rumbench/internal/workload/ibench"
)

// TestIOBoundSweepCompletes is issue 30's sweep (rocksdb and wiredtiger
// at 0 and 3 indexes, pad 256, each in its memory cgroup) with the cache
// the iobound preset gives 300k rows (4.2MB, so WiredTiger's leaf pages
// are 4KB), on a third of those rows: all load every row, none is
// OOM-killed, and WiredTiger records the leaf page size it chose. Before
// leaf_page_max=auto, WiredTiger's 3-index load with this cache stopped
// making progress at about 30k rows (32,500 with leaf_page_max=32KB and
// 100k rows: the stall depends on the cache, not on the rows to come), so
// 100k rows still catch it at a quarter of the 300k rows' time.
func TestIOBoundSweepCompletes(t *testing.T) {
	needCgroups(t)
	if !slices.Contains(binaryTags, "rocksdb") || !slices.Contains(binaryTags, "wiredtiger") {
		t.Skipf("needs the rocksdb and wiredtiger tags (have %v)", binaryTags)
	}
	t.Parallel()
	out := filepath.Join(t.TempDir(), "s")
	const rows = 100000
	// The cache is the preset's for 300k rows of one client.
	cache := ibench.IOBoundMemory(300000, 1).CacheBytes
	if cache != 4200000 {
		t.Fatalf("the iobound preset's cache for 300k rows is %d bytes, want 4200000 (70 B x 300k / 5)", cache)
	}
	so, se, code := rb(t, "sweep", "--engine", "rocksdb,wiredtiger", "--preset", "iobound", "--indexes", "0,3", "--pad-sizes", "256",
		"--rows", strconv.Itoa(rows), "--cache-size", strconv.FormatInt(cache, 10), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	for _, cell := range []string{"x0-pad256-c1", "x3-pad256-c1"} {
		for _, eng := range []string{"rocksdb", "wiredtiger"} {
			b, err := results.Read(filepath.Join(out, cell, eng))
			if err != nil {
				t.Fatalf("%s %s: %v", cell, eng, err)
			}
			st := b.Steps["l.i0x"]
			if st == nil || st.Inserted != rows || !b.Run.Complete {
				t.Fatalf("%s %s: l.i0x %+v, complete %v", cell, eng, st, b.Run.Complete)
			}
			m := b.Run.MemoryLimit
			if m == nil || m.LimitBytes == 0 || (m.OOMKills != nil && *m.OOMKills != 0) {
				t.Errorf("%s %s: memory limit %+v", cell, eng, m)
			}
			if eng == "wiredtiger" {
				if s := b.Run.Engine.Settings; s["leaf_page_max"] != "4096" || s["leaf_page_max_source"] != "auto (cache_size/1024)" || s["cache_size"] != "4200000" {
					t.Errorf("%s wiredtiger: cache %s, leaf_page_max %s (%s); want 4200000, 4096 (auto)", cell, s["cache_size"], s["leaf_page_max"], s["leaf_page_max_source"])
				}
			}
		}
	}
}
