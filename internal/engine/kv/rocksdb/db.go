//go:build rocksdb

package rocksdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/linxGnu/grocksdb"

	"rumbench/internal/engine/kv"
	"rumbench/internal/model"
)

// The engine-facing DB: statistics, memory, maintenance and quiescing.

// DB is the rocksdb engine: the kv table layer plus RocksDB's statistics and
// manual compaction.
type DB struct {
	*kv.DB
	st *store
}

var (
	_ model.StatsReporter = (*DB)(nil)
	_ model.Maintainer    = (*DB)(nil)
	_ model.Quiescer      = (*DB)(nil)
)

// intProperties are the numeric DB properties reported by Stats.
var intProperties = []string{
	"estimate-num-keys",
	"total-sst-files-size",
	"live-sst-files-size",
	"estimate-live-data-size",
	"estimate-pending-compaction-bytes",
	"num-running-compactions",
	"num-running-flushes",
	"compaction-pending",
	"mem-table-flush-pending",
	"actual-delayed-write-rate",
	"is-write-stopped",
	"cur-size-all-mem-tables",
	"num-immutable-mem-table",
	"block-cache-usage",
	"num-live-versions",
}

// dbWide are the properties that describe the whole DB, not a column
// family.
var dbWide = map[string]bool{"actual-delayed-write-rate": true, "is-write-stopped": true, "block-cache-usage": true, "num-running-compactions": true, "num-running-flushes": true}

// Stats implements model.StatsReporter: RocksDB's numeric properties, the
// compaction table of rocksdb.stats parsed per level, its stall counters,
// selected tickers, and the rocksdb.stats text itself (cumulative since
// open).
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	db := d.st.db
	out := map[string]any{}
	// Summed over the column families (with column_family_per_index the
	// properties are per column family; the DB-wide ones are the same in
	// each, so only the default one's is taken).
	cfs := d.st.allCFs()
	for _, p := range intProperties {
		if v, ok := db.GetIntPropertyCF("rocksdb."+p, cfs[0]); ok {
			if !dbWide[p] {
				for _, h := range cfs[1:] {
					w, _ := db.GetIntPropertyCF("rocksdb."+p, h)
					v += w
				}
			}
			out[p] = v
		}
	}
	if len(cfs) > 1 {
		out["column_families"] = len(cfs)
	}
	// The compaction table of the default column family only (the
	// metadata's, with column_family_per_index).
	text := db.GetProperty("rocksdb.stats")
	out["rocksdb.stats"] = text
	parseStats(text, out)
	parseTickers(d.st.opts.GetStatisticsString(), out)
	return out, nil
}

var (
	_ model.MemoryReporter = (*DB)(nil)
	_ model.CacheOption    = Driver{}
)

// CacheOption implements model.CacheOption.
func (Driver) CacheOption() string { return "block_cache_size" }

// OwnMemoryBytes implements model.OwnMemory: 56 MB peak anonymous memory
// at the iobound preset (pad 256, 3 indexes) less 5.6 MB cache and two
// 8 MB write buffers is 34.4 MB (table readers' index and filter blocks,
// compaction buffers, arena slack); rounded up with room for growth.
func (Driver) OwnMemoryBytes() int64 { return 40 << 20 }

// Memory implements model.MemoryReporter: the block cache's capacity as the
// DB reports it (rocksdb.block-cache-capacity), and the memtables: up to
// max_write_buffer_number of write_buffer_size per column family.
func (d *DB) Memory(context.Context) (model.Memory, error) {
	if d.Closed() {
		return model.Memory{}, errors.New("engine is closed")
	}
	m := model.Memory{CacheSource: "rocksdb property rocksdb.block-cache-capacity"}
	if v, ok := d.st.db.GetIntProperty("rocksdb.block-cache-capacity"); ok {
		m.CacheBytes = int64(v)
	} else {
		m.CacheBytes, m.CacheSource = int64(d.st.cache.GetCapacity()), "rocksdb Cache::GetCapacity() of the block cache"
	}
	size, n, cfs := d.st.opts.GetWriteBufferSize(), d.st.opts.GetMaxWriteBufferNumber(), len(d.st.allCFs())
	m.WriteBufferBytes = int64(size) * int64(n) * int64(cfs)
	m.WriteBufferSource = fmt.Sprintf("rocksdb options write_buffer_size %d x max_write_buffer_number %d x %d column families", size, n, cfs)
	return m, nil
}

// Maintain implements model.Maintainer: flush the memtables of every column
// family.
func (d *DB) Maintain(ctx context.Context) error {
	if d.Closed() {
		return errors.New("engine is closed")
	}
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	// A memtable flush, as MyRocks' and Pebble's maintenance: a full
	// compaction would erase the shape the churn steps built.
	for _, h := range d.st.allCFs() {
		if err := d.st.db.FlushCF(h, fo); err != nil {
			return fmt.Errorf("rocksdb flush: %w", err)
		}
	}
	return nil
}

// Quiesce implements model.Quiescer: it waits until RocksDB runs no flush
// or compaction and no column family has one pending (its properties
// num-running-flushes, num-running-compactions, mem-table-flush-pending and
// compaction-pending). A pending compaction is one RocksDB's own picker
// wants (a level over its target); nothing is forced.
func (d *DB) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	sum := func(p string, wide bool) uint64 {
		var v uint64
		for i, h := range d.st.allCFs() {
			if wide && i > 0 {
				break
			}
			w, _ := d.st.db.GetIntPropertyCF("rocksdb."+p, h)
			v += w
		}
		return v
	}
	w, err := model.WaitIdle(ctx, "rocksdb flushes and compactions (properties num-running-flushes, num-running-compactions, mem-table-flush-pending, compaction-pending)",
		"none running and none pending", func(context.Context) (bool, string, error) {
			rf, rc := sum("num-running-flushes", true), sum("num-running-compactions", true)
			pf, pc := sum("mem-table-flush-pending", false), sum("compaction-pending", false)
			debt := sum("estimate-pending-compaction-bytes", false)
			return rf+rc+pf+pc == 0, fmt.Sprintf("%d flushes, %d compactions running; %d flushes, %d compactions pending; %d bytes pending compaction",
				rf, rc, pf, pc, debt), nil
		})
	return []model.QuiesceWait{w}, err
}

// ---- kv.Store on RocksDB ----
