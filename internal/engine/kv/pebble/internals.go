package pebble

import (
	"context"
	"errors"

	"rumbench/internal/model"
)

// Internals implements model.InternalsReporter with Pebble's own counters
// (cumulative since open, this process's store only): block-cache misses,
// WAL bytes written, flush and compaction output, write-stall time.
func (d *DB) Internals(context.Context) (model.Internals, error) {
	if d.Closed() {
		return model.Internals{}, errors.New("engine is closed")
	}
	m := d.st.db.Metrics()
	// Summed over the levels: Metrics.Total() adds the WAL's bytes to the
	// bytes flushed (for its write amplification), which would count the
	// log twice here.
	var flushed, compacted, compactRead uint64
	for i := range m.Levels {
		flushed += m.Levels[i].TableBytesFlushed
		compacted += m.Levels[i].TableBytesCompacted
		compactRead += m.Levels[i].TableBytesRead
	}
	stalls, stallTime := d.st.stalls.read()
	raw := map[string]float64{
		"block_cache_misses":       float64(m.BlockCache.Misses),
		"block_cache_hits":         float64(m.BlockCache.Hits),
		"wal_bytes_in":             float64(m.WAL.BytesIn),
		"wal_bytes_written":        float64(m.WAL.BytesWritten),
		"flush_bytes_written":      float64(flushed),
		"compaction_bytes_written": float64(compacted),
		"compaction_bytes_read":    float64(compactRead),
		"compactions":              float64(m.Compact.Count),
		"flushes":                  float64(m.Flush.Count),
		"write_stalls":             float64(stalls),
		"write_stall_seconds":      stallTime.Seconds(),
	}
	return model.Internals{Raw: raw, Common: map[string]float64{
		model.InternalCacheMiss: raw["block_cache_misses"],
		model.InternalLogKB:     raw["wal_bytes_written"] / 1024,
		model.InternalBgWriteKB: (raw["flush_bytes_written"] + raw["compaction_bytes_written"]) / 1024,
		model.InternalStallS:    raw["write_stall_seconds"],
	}}, nil
}
