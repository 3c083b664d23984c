package rocksdb

import (
	"testing"
)

const sampleStats = `
** Compaction Stats [default] **
Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)
------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------
  L0      2/0    1.50 MB   0.5      0.0     0.0      0.0       0.1      0.1       0.0   1.0      0.0     16.9      0.04              0.02         9    0.004       0      0       0.0       0.0
  L1      1/0   514.75 KB   0.0      0.2     0.1      0.1       0.2      0.1       0.0   2.0     17.6     16.2      0.07              0.07         3    0.025     95K      3       0.0       0.0
  L2      0/0    0.00 KB   0.0      0.0     0.0      0.0       0.0      0.0       0.0   0.0      0.0      0.0      0.00              0.00         0    0.000       0      0       0.0       0.0
 Sum      3/0    2.00 MB   0.0      0.2     0.1      0.1       0.3      0.2       0.0   3.0     11.9     16.4      0.11              0.09        12    0.009     95K      3       0.0       0.0
 Int      0/0    0.00 KB   0.0      0.0     0.0      0.0       0.0      0.0       0.0   3.0     11.9     16.4      0.11              0.09        12    0.009     95K      3       0.0       0.0

** Compaction Stats [default] **
Priority    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)
 Low      0/0    0.00 KB   0.0      0.0     0.0      0.0       0.0      0.0       0.0   0.0     17.6     16.2      0.07              0.07         3    0.025     95K      3       0.0       0.0

Flush(GB): cumulative 0.001, interval 0.001
Cumulative compaction: 0.30 GB write, 12.58 MB/s write, 0.20 GB read, 9.09 MB/s read, 0.1 seconds
Stalls(count): 2 level0_slowdown, 1 level0_slowdown_with_compaction, 0 level0_numfiles, 0 level0_numfiles_with_compaction, 0 stop for pending_compaction_bytes, 3 slowdown for pending_compaction_bytes, 0 memtable_compaction, 0 memtable_slowdown, interval 5 total count

** DB Stats **
Cumulative WAL: 106 writes, 4 syncs, 26.50 writes per sync, written: 0.25 GB, 10.04 MB/s
Cumulative stall: 00:01:2.500 H:M:S, 3.5 percent
`

func TestParseStats(t *testing.T) {
	out := map[string]any{}
	parseStats(sampleStats, out)
	t.Logf("%v", out)
	levels, _ := out["levels"].([]map[string]any)
	if len(levels) != 2 || levels[0]["level"] != 0 || levels[0]["files"] != 2 || levels[0]["size_bytes"] != int64(1.5*(1<<20)) ||
		levels[1]["w_amp"] != 2.0 || levels[1]["size_bytes"] != int64(514.75*1024) || levels[1]["comp_count"] != 3.0 {
		t.Errorf("levels = %v", levels)
	}
	want := map[string]any{
		"write_amp": 3.0, "stall_count": int64(5), "stall_seconds": 62.5, "stall_percent": 3.5,
		"flush_gb": 0.001, "compaction_write_gb": 0.3, "compaction_read_gb": 0.2, "wal_syncs": 4.0, "wal_written_gb": 0.25,
	}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("%s = %v (%T), want %v", k, out[k], out[k], v)
		}
	}
	if st, _ := out["stalls"].(map[string]int64); st["slowdown_for_pending_compaction_bytes"] != 3 || st["level0_slowdown_with_compaction"] != 1 {
		t.Errorf("stalls = %v", out["stalls"])
	}
}

func TestParseTickers(t *testing.T) {
	out := map[string]any{}
	parseTickers("rocksdb.block.cache.miss COUNT : 12\nrocksdb.block.cache.hit COUNT : 0\nrocksdb.db.get.micros P50 : 1.0 P95 : 2.0 COUNT : 5 SUM : 9\nrocksdb.stall.micros COUNT : 7\n", out)
	tk, _ := out["tickers"].(map[string]int64)
	if len(tk) != 2 || tk["block.cache.miss"] != 12 || tk["stall.micros"] != 7 {
		t.Errorf("tickers = %v", out["tickers"])
	}
}

// TestInternalsFromTickers: the statistics dump's tickers, zeros included,
// map to the common internals; a ticker that is absent leaves its figure
// out rather than zero.
func TestInternalsFromTickers(t *testing.T) {
	text := "rocksdb.block.cache.miss COUNT : 7\nrocksdb.block.cache.hit COUNT : 93\nrocksdb.wal.bytes COUNT : 2048\n" +
		"rocksdb.compact.write.bytes COUNT : 1024\nrocksdb.flush.write.bytes COUNT : 3072\nrocksdb.stall.micros COUNT : 0\n" +
		"rocksdb.db.get.micros P50 : 1.0 P95 : 2.0 P99 : 3.0 P100 : 4.0 COUNT : 5 SUM : 6\n"
	raw, common := internalsFromTickers(text)
	if raw["stall.micros"] != 0 || len(raw) != 6 {
		t.Errorf("raw = %v, want the 6 tickers of the dump, stall.micros 0 included", raw)
	}
	want := map[string]float64{"cache_miss": 7, "log_kb": 2, "bg_write_kb": 4, "stall_s": 0}
	if len(common) != len(want) {
		t.Errorf("common = %v, want %v", common, want)
	}
	for k, v := range want {
		if common[k] != v {
			t.Errorf("common[%s] = %v, want %v", k, common[k], v)
		}
	}
	_, common = internalsFromTickers("rocksdb.wal.bytes COUNT : 1024\n")
	if _, ok := common["bg_write_kb"]; ok || common["log_kb"] != 1 {
		t.Errorf("with only wal.bytes: %v, want log_kb 1 and no bg_write_kb", common)
	}
}
