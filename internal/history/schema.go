package history

import (
	"context"
	"database/sql"
	"fmt"
)

// CurrentVersion is the schema version this rumbench writes. Each version
// is reached from the one before by migrations[version-1]; a new database
// runs them all, so a fresh store and a migrated one are the same.
const CurrentVersion = 2

// migration brings the schema from version-1 to version in tx. Statements
// are written once for both databases: TEXT, INTEGER, BIGINT and DOUBLE
// PRECISION mean the same on SQLite and PostgreSQL, booleans are 0/1
// integers and times fixed-width UTC text (timeFormat).
type migration func(ctx context.Context, s *Store, tx *sql.Tx) error

var migrations = []migration{
	migrate1,
	migrate2,
}

// migrate1 is the first schema: runs and their figures, one row per
// (run, step, figure) so that a new figure needs no schema change.
func migrate1(ctx context.Context, s *Store, tx *sql.Tx) error {
	return execAll(ctx, tx,
		`CREATE TABLE runs (
			run_key TEXT PRIMARY KEY,
			started_at TEXT NOT NULL,
			finished_at TEXT NOT NULL,
			workload TEXT NOT NULL,
			sizes TEXT NOT NULL,
			label TEXT NOT NULL,
			engine TEXT NOT NULL,
			engine_version TEXT NOT NULL,
			engine_settings TEXT NOT NULL,
			measured_settings TEXT NOT NULL,
			config TEXT NOT NULL,
			tool_version TEXT NOT NULL,
			tool_commit TEXT NOT NULL,
			hostname TEXT NOT NULL,
			cpu_model TEXT NOT NULL,
			cores INTEGER NOT NULL,
			memory_bytes BIGINT NOT NULL,
			device TEXT NOT NULL,
			complete INTEGER NOT NULL,
			dir TEXT NOT NULL,
			added_at TEXT NOT NULL
		)`,
		`CREATE TABLE figures (
			run_key TEXT NOT NULL,
			step TEXT NOT NULL,
			figure TEXT NOT NULL,
			value DOUBLE PRECISION NOT NULL,
			PRIMARY KEY (run_key, step, figure)
		)`,
	)
}

// migrate2 adds the host class (the series key's machine part, filled
// from the host columns of runs already recorded), the kind of bundle,
// a row per step (its order, main operation and whether it completed:
// incomplete steps stay out of series) and an index for series lookups.
func migrate2(ctx context.Context, s *Store, tx *sql.Tx) error {
	if err := execAll(ctx, tx,
		`ALTER TABLE runs ADD COLUMN host_class TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'run'`,
		`CREATE TABLE steps (
			run_key TEXT NOT NULL,
			step TEXT NOT NULL,
			seq INTEGER NOT NULL,
			main_op TEXT NOT NULL,
			complete INTEGER NOT NULL,
			error TEXT NOT NULL,
			PRIMARY KEY (run_key, step)
		)`,
		`CREATE INDEX runs_series ON runs (workload, label, host_class, started_at)`,
		// Steps of runs recorded before: each step with figures, taken as
		// complete (version 1 recorded only complete runs' figures).
		`INSERT INTO steps (run_key, step, seq, main_op, complete, error)
			SELECT DISTINCT run_key, step, 0, '', 1, '' FROM figures`,
	); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT run_key, cpu_model, cores, memory_bytes, device FROM runs`)
	if err != nil {
		return fmt.Errorf("read runs: %w", err)
	}
	classes := map[string]string{}
	for rows.Next() {
		var key, cpu, dev string
		var cores int
		var mem int64
		if err := rows.Scan(&key, &cpu, &cores, &mem, &dev); err != nil {
			rows.Close()
			return fmt.Errorf("read runs: %w", err)
		}
		classes[key] = HostClass(cpu, cores, mem, dev)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read runs: %w", err)
	}
	for key, class := range classes {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET host_class = ? WHERE run_key = ?`), class, key); err != nil {
			return fmt.Errorf("fill host_class: %w", err)
		}
	}
	return nil
}

func execAll(ctx context.Context, tx *sql.Tx, stmts ...string) error {
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", firstLine(st), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' || r == '(' {
			return s[:i]
		}
	}
	return s
}

// advisoryLock is the PostgreSQL advisory lock key that serialises
// rumbench's schema changes (an arbitrary constant: "rumb").
const advisoryLock = 0x72756d62

// migrate brings the schema to version target in one transaction, so that
// two processes opening a new store at once create it once: SQLite's
// immediate transactions and PostgreSQL's advisory lock make the second
// wait and then find the work done.
func (s *Store) migrate(ctx context.Context, target int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("history %s: begin schema check: %w", s.where, s.redact(err))
	}
	defer tx.Rollback()
	if s.pg {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, advisoryLock); err != nil {
			return fmt.Errorf("history %s: lock the schema: %w", s.where, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("history %s: create schema_version: %w", s.where, err)
	}
	var v sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("history %s: read schema version: %w", s.where, err)
	}
	have := int(v.Int64)
	if have > CurrentVersion {
		return fmt.Errorf("history %s has schema version %d, newer than this rumbench knows (%d): use a newer rumbench", s.where, have, CurrentVersion)
	}
	if have >= target {
		return nil
	}
	for ver := have + 1; ver <= target; ver++ {
		if err := migrations[ver-1](ctx, s, tx); err != nil {
			return fmt.Errorf("history %s: migrate schema to version %d: %w", s.where, ver, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
		return fmt.Errorf("history %s: record schema version: %w", s.where, err)
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_version (version) VALUES (?)`), target); err != nil {
		return fmt.Errorf("history %s: record schema version: %w", s.where, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("history %s: commit schema version %d: %w", s.where, target, err)
	}
	return nil
}

// SchemaVersion is the store's schema version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
