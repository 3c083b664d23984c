package mysql

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"rumbench/internal/engine/dbserver"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// What the DB reports and does beside the table model: closing, dropping
// its database, sizes, statistics, maintenance, quiescing and the server's
// process.

// Close closes the pool and, with drop_database=true, drops the database.
func (db *DB) Close() error {
	err := db.DB.Close()
	if db.dropOnCl {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		err = errors.Join(err, db.DropDatabase(ctx))
	}
	return err
}

// DropDatabase drops the rumbench database (and the tables in it).
func (db *DB) DropDatabase(ctx context.Context) error {
	a, err := db.admin()
	if err != nil {
		return err
	}
	defer a.Close()
	if _, err := a.ExecContext(ctx, "DROP DATABASE IF EXISTS "+sqleng.QuoteBacktick(db.name)); err != nil {
		return dbserver.Redact(classify(db.engine, fmt.Errorf("drop database %s: %w", db.name, err), db.cfg, db.name), db.secret)
	}
	return nil
}

// Size is the engine's live size of rumbench's database. For InnoDB it is
// the tables' .ibd files (information_schema.INNODB_SYS_TABLESPACES
// FILE_SIZE, exact, needs the PROCESS privilege) less their wholly free
// extents (information_schema.TABLES DATA_FREE, read from the tablespace
// header, so current): data_length + index_length come from the persistent
// statistics, which right after a load still say one page per table until
// the background recalculation or ANALYZE TABLE runs. Without
// INNODB_SYS_TABLESPACES it falls back to data_length + index_length. For
// MyRocks it is data_length + index_length of information_schema.TABLES,
// which MyRocks computes from the SST files' properties plus an estimate of
// the memtables (rocksdb_force_compute_memtable_stats, cached for
// rocksdb_force_compute_memtable_stats_cachetime): compressed bytes of the
// tables' keys, without space shared with other tables' SSTs or the WAL.
func (db *DB) Size(ctx context.Context) (int64, error) {
	var n stdsql.NullInt64
	if db.engine == "InnoDB" {
		err := db.SQL().QueryRowContext(ctx, `SELECT
			(SELECT SUM(FILE_SIZE) FROM information_schema.INNODB_SYS_TABLESPACES WHERE NAME LIKE ?)
			- (SELECT COALESCE(SUM(DATA_FREE), 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND ENGINE = 'InnoDB')`,
			likeEscape(db.name)+"/%", db.name).Scan(&n)
		if err == nil && n.Valid {
			return max(n.Int64, 0), nil
		}
	}
	err := db.SQL().QueryRowContext(ctx, "SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND ENGINE = ?",
		db.name, db.engine).Scan(&n)
	if err != nil {
		return -1, fmt.Errorf("%s: size: %w", db.engine, err)
	}
	return n.Int64, nil
}

// likeEscape escapes LIKE's wildcards in a name (rumbench_1's _ is not
// "any character").
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

// DatabaseDir implements model.DatabaseDirOwner: the directory of the
// database's tables in the server's data dir (<datadir>/<name>; the redo
// log, undo and system tablespaces are outside it). "" for MyRocks (its
// SSTs are shared by every database, in .rocksdb), for InnoDB without
// innodb_file_per_table, when the name needs MariaDB's file-name encoding
// or the server is not on this host.
func (db *DB) DatabaseDir(ctx context.Context) (string, error) {
	if !db.local || db.engine != "InnoDB" {
		return "", nil
	}
	for _, r := range db.name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", nil
		}
	}
	var dir string
	var perTable bool
	if err := db.SQL().QueryRowContext(ctx, "SELECT @@datadir, @@innodb_file_per_table").Scan(&dir, &perTable); err != nil {
		return "", fmt.Errorf("%s: read @@datadir: %w", db.engine, err)
	}
	if !perTable {
		return "", nil
	}
	return filepath.Join(dir, db.name), nil
}

// Stats reports the engine's own counters that explain the numbers: for
// InnoDB buffer pool reads and history list length, for MyRocks compaction
// and stall counters.
func (db *DB) Stats(ctx context.Context) (map[string]any, error) {
	like := "Innodb_%"
	if db.engine == "ROCKSDB" {
		like = "Rocksdb_%"
	}
	rows, err := db.SQL().QueryContext(ctx, "SHOW GLOBAL STATUS LIKE ?", like)
	if err != nil {
		return nil, fmt.Errorf("%s: stats: %w", db.engine, err)
	}
	defer rows.Close()
	keep := map[string]bool{
		"Innodb_buffer_pool_reads": true, "Innodb_buffer_pool_read_requests": true, "Innodb_buffer_pool_pages_dirty": true,
		"Innodb_buffer_pool_pages_data": true, "Innodb_data_read": true, "Innodb_data_written": true, "Innodb_os_log_written": true,
		"Innodb_history_list_length": true, "Innodb_pages_written": true, "Innodb_row_lock_waits": true,
		"Rocksdb_bytes_read": true, "Rocksdb_bytes_written": true, "Rocksdb_compact_read_bytes": true, "Rocksdb_compact_write_bytes": true,
		"Rocksdb_flush_write_bytes": true, "Rocksdb_stall_micros": true, "Rocksdb_block_cache_miss": true, "Rocksdb_block_cache_hit": true,
		"Rocksdb_number_keys_read": true, "Rocksdb_number_keys_written": true, "Rocksdb_wal_bytes": true, "Rocksdb_wal_synced": true,
		"Rocksdb_rows_deleted": true, "Rocksdb_rows_inserted": true, "Rocksdb_number_deletes_filtered": true,
	}
	out := map[string]any{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("%s: stats: %w", db.engine, err)
		}
		if !keep[k] {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[strings.ToLower(k)] = n
		} else {
			out[strings.ToLower(k)] = v
		}
	}
	return out, rows.Err()
}

// Maintain: for InnoDB, ANALYZE TABLE refreshes the statistics (purge of
// the deleted rows is the server's background work, which Quiesce waits
// for); for MyRocks, a memtable
// flush followed by ANALYZE TABLE, so the next steps start from SST files
// and fresh statistics. Neither forces a full compaction: that would erase
// the shape the churn steps built.
func (db *DB) Maintain(ctx context.Context) error {
	tables, err := db.Tables(ctx)
	if err != nil {
		return err
	}
	if db.engine == "ROCKSDB" {
		if _, err := db.SQL().ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now = 1"); err != nil {
			return fmt.Errorf("myrocks: flush memtables (needs SUPER): %w", err)
		}
	}
	for _, t := range tables {
		rows, err := db.SQL().QueryContext(ctx, "ANALYZE TABLE "+sqleng.QuoteBacktick(t.Name))
		if err != nil {
			return fmt.Errorf("%s: ANALYZE TABLE %s: %w", db.engine, t.Name, err)
		}
		rows.Close()
	}
	return nil
}

// flushTables writes the tables' dirty pages to their files now, as the
// insert benchmark's quiesce does by lowering innodb_max_dirty_pages_pct
// for a while, but without changing a global setting: FLUSH TABLES ... FOR
// EXPORT flushes the named tables (pausing purge while they are locked)
// and UNLOCK TABLES releases them. It needs the LOCK TABLES privilege.
func (db *DB) flushTables(ctx context.Context, tables []*model.Table) error {
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		return fmt.Errorf("innodb: flush tables: %w", err)
	}
	defer conn.Close()
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = sqleng.QuoteBacktick(t.Name)
	}
	if _, err := conn.ExecContext(ctx, "FLUSH TABLES "+strings.Join(names, ", ")+" FOR EXPORT"); err != nil {
		return fmt.Errorf("innodb: FLUSH TABLES ... FOR EXPORT (needs the LOCK TABLES privilege): %w", err)
	}
	if _, err := conn.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
		return fmt.Errorf("innodb: UNLOCK TABLES: %w", err)
	}
	return nil
}

// Quiesce implements model.Quiescer without changing a server setting (a
// server rumbench does not manage keeps its settings). InnoDB: it waits
// until purge has removed what the deletes left (the history list at most
// 100 transactions), then writes rumbench's tables' dirty pages to their
// files (flushTables), as the insert benchmark's quiesce does by lowering
// innodb_max_dirty_pages_pct; the server-wide dirty pages are recorded
// before and after, not waited for, since on a shared server they are also
// other clients'. MyRocks: it waits until no column family has a memtable
// flush or a compaction pending (information_schema.ROCKSDB_CFSTATS).
func (db *DB) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	if db.engine == "ROCKSDB" {
		w, err := model.WaitIdle(ctx, "myrocks flushes and compactions pending (information_schema.ROCKSDB_CFSTATS)",
			"none pending", func(ctx context.Context) (bool, string, error) {
				var flush, compact int64
				err := db.SQL().QueryRowContext(ctx, `SELECT
					COALESCE(SUM(CASE STAT_TYPE WHEN 'MEM_TABLE_FLUSH_PENDING' THEN VALUE END), 0),
					COALESCE(SUM(CASE STAT_TYPE WHEN 'COMPACTION_PENDING' THEN VALUE END), 0)
					FROM information_schema.ROCKSDB_CFSTATS`).Scan(&flush, &compact)
				return flush+compact == 0, fmt.Sprintf("%d flushes, %d compactions pending", flush, compact), err
			})
		return []model.QuiesceWait{w}, err
	}
	purge, err := model.WaitIdle(ctx, "innodb purge (INNODB_METRICS trx_rseg_history_len)",
		"history list at most 100 transactions", func(ctx context.Context) (bool, string, error) {
			var history int64
			err := db.SQL().QueryRowContext(ctx, `SELECT COUNT FROM information_schema.INNODB_METRICS
				WHERE NAME = 'trx_rseg_history_len'`).Scan(&history)
			return history <= 100, fmt.Sprintf("history list %d", history), err
		})
	if err != nil || !purge.Reached {
		return []model.QuiesceWait{purge}, err
	}
	tables, err := db.Tables(ctx)
	if err != nil {
		return []model.QuiesceWait{purge}, err
	}
	dirty := func() string {
		var d, t int64
		if err := db.SQL().QueryRowContext(ctx, `SELECT
			(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_DIRTY'),
			(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_TOTAL')`).Scan(&d, &t); err != nil {
			return "dirty pages unknown: " + err.Error()
		}
		return fmt.Sprintf("%d of %d buffer pool pages dirty (server-wide)", d, t)
	}
	flush := model.QuiesceWait{What: "innodb: rumbench's tables' dirty pages written (FLUSH TABLES ... FOR EXPORT)", Until: "done", Before: dirty()}
	start := time.Now()
	if err := db.flushTables(ctx, tables); err != nil {
		return []model.QuiesceWait{purge, flush}, err
	}
	flush.Seconds, flush.After, flush.Reached = time.Since(start).Seconds(), dirty(), true
	return []model.QuiesceWait{purge, flush}, nil
}

// ServerProcess returns the server's pid from the pid file it reports
// (@@pid_file, relative to @@datadir when not absolute). It needs a local
// server (loopback or Unix socket) and a readable pid file.
func (db *DB) ServerProcess(ctx context.Context) (int, string, error) {
	if !db.local {
		return 0, "", fmt.Errorf("%s: server %s is not on this host: its processes can't be measured from here", db.engine, db.cfg.Addr)
	}
	var pidFile, dir string
	if err := db.SQL().QueryRowContext(ctx, "SELECT @@pid_file, @@datadir").Scan(&pidFile, &dir); err != nil {
		return 0, "", fmt.Errorf("%s: read @@pid_file: %w", db.engine, err)
	}
	if !filepath.IsAbs(pidFile) {
		pidFile = filepath.Join(dir, pidFile)
	}
	pid, err := dbserver.ServerPid(pidFile, "mariadbd", "mysqld")
	if err != nil {
		return 0, dir, fmt.Errorf("%s: %w", db.engine, err)
	}
	return pid, filepath.Clean(dir), nil
}
