package rocksdb

import (
	"strconv"
	"strings"

	"rumbench/internal/model"
)

// Parsers of RocksDB's statistics text (rocksdb.stats and the statistics
// object's dump), which the C API offers only as text. They have no build
// tag: the text format is tested without librocksdb.

// sizeUnits are the units of the compaction table's Size column.
var sizeUnits = map[string]float64{"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}

// levelColumns maps compaction table headers to the keys reported per level.
var levelColumns = map[string]string{
	"Score": "score", "Read(GB)": "read_gb", "Rn(GB)": "rn_gb", "Rnp1(GB)": "rnp1_gb",
	"Write(GB)": "write_gb", "Wnew(GB)": "wnew_gb", "Moved(GB)": "moved_gb", "W-Amp": "w_amp",
	"Comp(sec)": "comp_sec", "Comp(cnt)": "comp_count",
}

// parseStats adds to out the per-level compaction table ("levels"), the
// total write amplification ("write_amp", the Sum row's W-Amp: bytes
// written by flushes and compactions / bytes flushed), the stall counters
// and the cumulative flush, compaction and stall figures of rocksdb.stats.
func parseStats(text string, out map[string]any) {
	var header []string
	var levels []map[string]any
	tableDone := false
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			if header != nil {
				tableDone = true // only the first table: per level, not per priority
			}
			continue
		}
		switch {
		case f[0] == "Level" && !tableDone && header == nil:
			header = f
		case header != nil && !tableDone && len(f) == len(header)+1 && (strings.HasPrefix(f[0], "L") || f[0] == "Sum"):
			// Size is a number and a unit: two fields under one header.
			row := map[string]any{}
			if files, _, ok := strings.Cut(f[1], "/"); ok {
				row["files"], _ = strconv.Atoi(files)
			}
			if n, err := strconv.ParseFloat(f[2], 64); err == nil {
				row["size_bytes"] = int64(n * sizeUnits[f[3]])
			}
			for i := 3; i < len(header); i++ {
				if key, ok := levelColumns[header[i]]; ok {
					if v, err := strconv.ParseFloat(f[i+1], 64); err == nil {
						row[key] = v
					}
				}
			}
			if f[0] == "Sum" {
				if v, ok := row["w_amp"]; ok {
					out["write_amp"] = v
				}
				out["compaction_total"] = row
				continue
			}
			n, err := strconv.Atoi(f[0][1:])
			if err != nil {
				continue
			}
			row["level"] = n
			if row["files"] == 0 && row["write_gb"] == 0.0 && row["read_gb"] == 0.0 && row["comp_count"] == 0.0 {
				continue
			}
			levels = append(levels, row)
		case strings.HasPrefix(line, "Stalls(count):"):
			parseStalls(strings.TrimPrefix(line, "Stalls(count):"), out)
		case strings.HasPrefix(line, "Flush(GB): cumulative"):
			if len(f) >= 3 {
				setFloat(out, "flush_gb", strings.TrimSuffix(f[2], ","))
			}
		case strings.HasPrefix(line, "Cumulative compaction:"):
			// Cumulative compaction: 0.00 GB write, 12.58 MB/s write, 0.00 GB read, ...
			for i := 2; i+2 < len(f); i++ {
				if f[i+1] == "GB" && strings.HasPrefix(f[i+2], "write") {
					setFloat(out, "compaction_write_gb", f[i])
				} else if f[i+1] == "GB" && strings.HasPrefix(f[i+2], "read") {
					setFloat(out, "compaction_read_gb", f[i])
				}
			}
		case strings.HasPrefix(line, "Cumulative stall:"):
			// Cumulative stall: 00:00:0.000 H:M:S, 0.0 percent
			if len(f) >= 5 {
				if s, ok := hmsSeconds(f[2]); ok {
					out["stall_seconds"] = s
				}
				setFloat(out, "stall_percent", f[4])
			}
		case strings.HasPrefix(line, "Cumulative WAL:"):
			// Cumulative WAL: 106 writes, 0 syncs, 106.00 writes per sync, written: 0.00 GB, ...
			for i := 2; i+1 < len(f); i++ {
				if strings.HasPrefix(f[i+1], "syncs") {
					setFloat(out, "wal_syncs", f[i])
				}
				if f[i] == "written:" {
					setFloat(out, "wal_written_gb", f[i+1])
				}
			}
		}
	}
	if levels != nil {
		out["levels"] = levels
	}
}

// parseStalls reads "0 level0_slowdown, 0 level0_numfiles, ..., interval 0
// total count" into stalls (per cause) and stall_count (their sum).
func parseStalls(s string, out map[string]any) {
	stalls := map[string]int64{}
	var total int64
	for _, part := range strings.Split(s, ",") {
		f := strings.Fields(part)
		if len(f) < 2 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue // "interval 0 total count"
		}
		name := strings.Join(f[1:], "_")
		stalls[name] = n
		// The *_with_compaction counters are subsets of the plain ones.
		if !strings.HasSuffix(name, "_with_compaction") {
			total += n
		}
	}
	out["stalls"] = stalls
	out["stall_count"] = total
}

// hmsSeconds parses H:M:S.fff.
func hmsSeconds(s string) (float64, bool) {
	p := strings.Split(s, ":")
	if len(p) != 3 {
		return 0, false
	}
	h, err1 := strconv.ParseFloat(p[0], 64)
	m, err2 := strconv.ParseFloat(p[1], 64)
	sec, err3 := strconv.ParseFloat(p[2], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, false
	}
	return h*3600 + m*60 + sec, true
}

func setFloat(out map[string]any, key, s string) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		out[key] = v
	}
}

// parseTickers adds the non-zero tickers ("rocksdb.stall.micros COUNT : 5")
// of the statistics dump to out["tickers"]; histograms are left out.
func parseTickers(text string, out map[string]any) {
	tickers := map[string]int64{}
	for k, n := range tickerCounts(text) {
		if n != 0 {
			tickers[k] = n
		}
	}
	if len(tickers) > 0 {
		out["tickers"] = tickers
	}
}

// tickerCounts are every ticker of the statistics dump, zeros included, by
// name without the "rocksdb." prefix.
func tickerCounts(text string) map[string]int64 {
	tickers := map[string]int64{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[1] != "COUNT" || f[2] != ":" {
			continue
		}
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			tickers[strings.TrimPrefix(f[0], "rocksdb.")] = n
		}
	}
	return tickers
}

// internalTickers are the tickers an engine's internals are read from.
var internalTickers = []string{"block.cache.miss", "block.cache.hit", "wal.bytes", "bytes.written",
	"compact.read.bytes", "compact.write.bytes", "flush.write.bytes", "stall.micros", "number.keys.written"}

// internalsFromTickers maps the statistics dump to an engine's internals:
// the raw tickers, block-cache misses, WAL bytes, compaction and flush
// output, stall time.
func internalsFromTickers(text string) (raw, common map[string]float64) {
	all := tickerCounts(text)
	raw = map[string]float64{}
	for _, k := range internalTickers {
		if n, ok := all[k]; ok {
			raw[k] = float64(n)
		}
	}
	common = map[string]float64{}
	has := func(ks ...string) bool {
		for _, k := range ks {
			if _, ok := raw[k]; !ok {
				return false
			}
		}
		return true
	}
	if has("block.cache.miss") {
		common[model.InternalCacheMiss] = raw["block.cache.miss"]
	}
	if has("wal.bytes") {
		common[model.InternalLogKB] = raw["wal.bytes"] / 1024
	}
	if has("compact.write.bytes", "flush.write.bytes") {
		common[model.InternalBgWriteKB] = (raw["compact.write.bytes"] + raw["flush.write.bytes"]) / 1024
	}
	if has("stall.micros") {
		common[model.InternalStallS] = raw["stall.micros"] / 1e6
	}
	return raw, common
}
