package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"rumbench/internal/model"
)

var _ model.InternalsReporter = (*DB)(nil)

// Internals implements model.InternalsReporter with the server's cumulative
// statistics: pg_stat_wal (records, full-page images, bytes) and
// pg_stat_bgwriter (buffers written by checkpoints, the background writer
// and backends) for the whole server, pg_statio_user_tables and
// pg_stat_user_tables for the database's own tables.
//
// A backend keeps its statistics to itself until it flushes them (at most
// once a second while busy, up to 10 s after it went idle, and when it
// exits; PostgreSQL 15). So that a step's figures are the step's, the
// pool's idle connections are made to flush (pg_stat_force_next_flush: the
// flush happens before the statement's ReadyForQuery) and the backends of
// the worker sessions this process closed are waited for (a backend
// flushes as it exits), at most a second.
func (d *DB) Internals(ctx context.Context) (model.Internals, error) {
	if err := d.flushPoolStats(ctx); err != nil {
		return model.Internals{}, err
	}
	d.waitWorkersGone(ctx, time.Second)
	raw := map[string]float64{}
	read := func(q string, names ...string) error {
		vals := make([]sql.NullFloat64, len(names))
		dst := make([]any, len(names))
		for i := range vals {
			dst[i] = &vals[i]
		}
		if err := d.SQL().QueryRowContext(ctx, q).Scan(dst...); err != nil {
			return fmt.Errorf("postgres: read counters (%s): %w", names[0], err)
		}
		for i, v := range vals {
			if v.Valid {
				raw[names[i]] = v.Float64
			}
		}
		return nil
	}
	var blockSize float64
	if err := d.SQL().QueryRowContext(ctx, "SELECT current_setting('block_size')::float8").Scan(&blockSize); err != nil {
		return model.Internals{}, fmt.Errorf("postgres: read block_size: %w", err)
	}
	// pg_stat_wal is PostgreSQL 14's; an older server goes without it.
	if d.hasView(ctx, "pg_stat_wal") {
		if err := read("SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal",
			"pg_stat_wal.wal_records", "pg_stat_wal.wal_fpi", "pg_stat_wal.wal_bytes"); err != nil {
			return model.Internals{}, err
		}
	}
	if err := read(`SELECT buffers_checkpoint, buffers_clean, buffers_backend, checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter`,
		"pg_stat_bgwriter.buffers_checkpoint", "pg_stat_bgwriter.buffers_clean", "pg_stat_bgwriter.buffers_backend",
		"pg_stat_bgwriter.checkpoints"); err != nil {
		return model.Internals{}, err
	}
	if err := read(`SELECT sum(heap_blks_read), sum(heap_blks_hit), sum(idx_blks_read), sum(idx_blks_hit) FROM pg_statio_user_tables`,
		"pg_statio_user_tables.heap_blks_read", "pg_statio_user_tables.heap_blks_hit",
		"pg_statio_user_tables.idx_blks_read", "pg_statio_user_tables.idx_blks_hit"); err != nil {
		return model.Internals{}, err
	}
	if err := read(`SELECT sum(n_tup_ins), sum(n_tup_del), sum(autovacuum_count), sum(vacuum_count) FROM pg_stat_user_tables`,
		"pg_stat_user_tables.n_tup_ins", "pg_stat_user_tables.n_tup_del",
		"pg_stat_user_tables.autovacuum_count", "pg_stat_user_tables.vacuum_count"); err != nil {
		return model.Internals{}, err
	}
	return model.Internals{Raw: raw, Common: commonOf(raw, blockSize), Scope: internalsScope}, nil
}

const internalsScope = "server: pg_stat_wal and pg_stat_bgwriter count every database of the server; pg_statio_user_tables and pg_stat_user_tables this database's tables"

// commonOf maps the raw counters to the common names.
func commonOf(raw map[string]float64, blockSize float64) map[string]float64 {
	common := map[string]float64{}
	if v, ok := raw["pg_stat_wal.wal_bytes"]; ok {
		common[model.InternalLogKB] = v / 1024
	}
	if v, ok := raw["pg_stat_wal.wal_fpi"]; ok {
		common[model.InternalFPI] = v
	}
	common[model.InternalBgWriteKB] = (raw["pg_stat_bgwriter.buffers_checkpoint"] + raw["pg_stat_bgwriter.buffers_clean"]) * blockSize / 1024
	common[model.InternalCacheMiss] = raw["pg_statio_user_tables.heap_blks_read"] + raw["pg_statio_user_tables.idx_blks_read"]
	return common
}

var _ model.IntervalInternalsReporter = (*DB)(nil)

// IntervalInternals implements model.IntervalInternalsReporter: the
// counters of Internals that feed the common names, in one query and
// without making backends flush, so they are what the backends have
// reported so far (a busy backend reports at most once a second, the
// checkpointer when a checkpoint ends).
func (d *DB) IntervalInternals(ctx context.Context) (model.Internals, error) {
	var walBytes, walFPI sql.NullFloat64
	var ckpt, clean, heapRead, idxRead, blockSize float64
	err := d.SQL().QueryRowContext(ctx, `SELECT w.wal_bytes::float8, w.wal_fpi::float8, b.buffers_checkpoint::float8, b.buffers_clean::float8,
		coalesce((SELECT sum(heap_blks_read) FROM pg_statio_user_tables), 0)::float8,
		coalesce((SELECT sum(idx_blks_read) FROM pg_statio_user_tables), 0)::float8,
		current_setting('block_size')::float8
		FROM pg_stat_bgwriter b LEFT JOIN pg_stat_wal w ON true`).Scan(&walBytes, &walFPI, &ckpt, &clean, &heapRead, &idxRead, &blockSize)
	if err != nil {
		return model.Internals{}, fmt.Errorf("postgres: read counters: %w", err)
	}
	raw := map[string]float64{
		"pg_stat_bgwriter.buffers_checkpoint": ckpt, "pg_stat_bgwriter.buffers_clean": clean,
		"pg_statio_user_tables.heap_blks_read": heapRead, "pg_statio_user_tables.idx_blks_read": idxRead,
	}
	if walBytes.Valid {
		raw["pg_stat_wal.wal_bytes"], raw["pg_stat_wal.wal_fpi"] = walBytes.Float64, walFPI.Float64
	}
	return model.Internals{Raw: raw, Common: commonOf(raw, blockSize), Scope: internalsScope}, nil
}

// flushPoolStats makes every idle connection of the pool flush its pending
// statistics.
func (d *DB) flushPoolStats(ctx context.Context) error {
	n := d.SQL().Stats().Idle
	if n < 1 {
		n = 1
	}
	conns := make([]*sql.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	force := d.hasFunction(ctx, "pg_stat_force_next_flush")
	for i := 0; i < n; i++ {
		c, err := d.SQL().Conn(ctx)
		if err != nil {
			return fmt.Errorf("postgres: read counters: %w", err)
		}
		conns = append(conns, c)
		if force {
			if _, err := c.ExecContext(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
				return fmt.Errorf("postgres: pg_stat_force_next_flush: %w", err)
			}
			// The flush happens as the backend goes idle after the
			// statement; one more round trip is after it.
			if _, err := c.ExecContext(ctx, "SELECT 1"); err != nil {
				return fmt.Errorf("postgres: read counters: %w", err)
			}
		}
	}
	return nil
}

// exits are the backend pids of the worker sessions a DB closed since its
// last Internals: backends that flush their statistics as they exit.
type exits struct {
	mu   sync.Mutex
	pids []int64
}

func (e *exits) add(pid uint32) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pids = append(e.pids, int64(pid))
}

// take returns the pids and forgets them.
func (e *exits) take() []int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.pids
	e.pids = nil
	return p
}

// waitWorkersGone waits, at most max, until the backends of the worker
// sessions this process closed since the last read have left
// pg_stat_activity: the workers' sessions are closed at a step's end, and
// their backends flush their statistics as they exit. Only this process's
// closed sessions are waited for: sessions still open (a query step's,
// opened before its start) and other processes' (the other shards of a
// sharded run, in the same database) would hold every read for the whole
// second, and a shard reads its baseline after the start the shards
// agreed on, so that second came out of the step's measured time. A wait
// that runs out is not an error.
func (d *DB) waitWorkersGone(ctx context.Context, max time.Duration) {
	pids := d.exits.take()
	if len(pids) == 0 {
		return
	}
	deadline := time.Now().Add(max)
	for waited := false; ; waited = true {
		var left int
		if err := d.SQL().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int8[])`, pids).Scan(&left); err != nil {
			return
		}
		if left == 0 && waited {
			// A backend leaves pg_stat_activity a moment before its
			// last flush (PostgreSQL 15's exit hooks run in that order).
			time.Sleep(20 * time.Millisecond)
		}
		if left == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (d *DB) hasView(ctx context.Context, name string) bool {
	var ok bool
	err := d.SQL().QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&ok)
	return err == nil && ok
}

func (d *DB) hasFunction(ctx context.Context, name string) bool {
	var ok bool
	err := d.SQL().QueryRowContext(ctx, "SELECT to_regproc($1) IS NOT NULL", name).Scan(&ok)
	return err == nil && ok
}
