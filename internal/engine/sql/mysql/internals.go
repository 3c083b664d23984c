package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"rumbench/internal/model"
)

var (
	_ model.InternalsReporter         = (*DB)(nil)
	_ model.IntervalInternalsReporter = (*DB)(nil)
)

// IntervalInternals implements model.IntervalInternalsReporter: Internals
// is one SHOW GLOBAL STATUS, current as the server counts.
func (db *DB) IntervalInternals(ctx context.Context) (model.Internals, error) {
	return db.Internals(ctx)
}

// internalsStatus are the SHOW GLOBAL STATUS counters each storage engine's
// internals are read from (cumulative since the server started).
var internalsStatus = map[string][]string{
	"InnoDB": {"Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_os_log_written",
		"Innodb_pages_written", "Innodb_dblwr_pages_written", "Innodb_data_written", "Innodb_data_read",
		"Innodb_data_reads", "Innodb_data_writes", "Innodb_page_size"},
	"ROCKSDB": {"Rocksdb_block_cache_miss", "Rocksdb_block_cache_hit", "Rocksdb_wal_bytes", "Rocksdb_wal_synced",
		"Rocksdb_compact_read_bytes", "Rocksdb_compact_write_bytes", "Rocksdb_flush_write_bytes",
		"Rocksdb_stall_micros", "Rocksdb_number_keys_written", "Rocksdb_number_keys_read",
		"Rocksdb_rows_inserted", "Rocksdb_rows_deleted", "Rocksdb_bytes_written", "Rocksdb_bytes_read"},
}

// Internals implements model.InternalsReporter from the server's global
// status counters (every database of the server counts): for InnoDB buffer
// pool reads (cache_miss), redo bytes (log_kb) and pages written by the page
// cleaner and the doublewrite buffer (bg_write_kb); for MyRocks block-cache
// misses, WAL bytes, compaction and flush output, and stall time.
func (db *DB) Internals(ctx context.Context) (model.Internals, error) {
	names := internalsStatus[db.engine]
	if names == nil {
		return model.Internals{}, fmt.Errorf("%s: no counters known for this engine", db.engine)
	}
	rows, err := db.SQL().QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
	if err != nil {
		return model.Internals{}, fmt.Errorf("%s: read counters: %w", db.engine, err)
	}
	defer rows.Close()
	raw := map[string]float64{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return model.Internals{}, fmt.Errorf("%s: read counters: %w", db.engine, err)
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			raw[strings.ToLower(k)] = n
		}
	}
	if err := rows.Err(); err != nil {
		return model.Internals{}, fmt.Errorf("%s: read counters: %w", db.engine, err)
	}
	common := map[string]float64{}
	set := func(name string, v float64, from ...string) {
		for _, f := range from {
			if _, ok := raw[f]; !ok {
				return
			}
		}
		common[name] = v
	}
	if db.engine == "InnoDB" {
		page := raw["innodb_page_size"]
		delete(raw, "innodb_page_size") // a setting, not a counter
		set(model.InternalCacheMiss, raw["innodb_buffer_pool_reads"], "innodb_buffer_pool_reads")
		set(model.InternalLogKB, raw["innodb_os_log_written"]/1024, "innodb_os_log_written")
		set(model.InternalBgWriteKB, (raw["innodb_pages_written"]+raw["innodb_dblwr_pages_written"])*page/1024,
			"innodb_pages_written", "innodb_dblwr_pages_written")
	} else {
		set(model.InternalCacheMiss, raw["rocksdb_block_cache_miss"], "rocksdb_block_cache_miss")
		set(model.InternalLogKB, raw["rocksdb_wal_bytes"]/1024, "rocksdb_wal_bytes")
		set(model.InternalBgWriteKB, (raw["rocksdb_compact_write_bytes"]+raw["rocksdb_flush_write_bytes"])/1024,
			"rocksdb_compact_write_bytes", "rocksdb_flush_write_bytes")
		set(model.InternalStallS, raw["rocksdb_stall_micros"]/1e6, "rocksdb_stall_micros")
	}
	return model.Internals{Raw: raw, Common: common, Scope: "server: global status counters count every database of the server"}, nil
}
