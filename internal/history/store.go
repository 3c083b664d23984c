// Package history is the results history: every run recorded in a real
// database (a SQLite file, or PostgreSQL for a team), one schema on both,
// created and migrated by rumbench, so that runs can be compared across
// builds, versions and machines and regressions found (docs/history.md).
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "github.com/mattn/go-sqlite3"    // database/sql driver "sqlite3"

	"rumbench/internal/sqlbind"
)

// Store is an open history database.
type Store struct {
	db *sql.DB
	pg bool
	// where names the store in messages: the file, or the DSN with its
	// password left out.
	where  string
	secret string
}

// IsDSN reports whether target names a PostgreSQL server rather than a
// SQLite file.
func IsDSN(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// DefaultPath is the history file used without --history:
// $XDG_DATA_HOME/rumbench/history.db, else ~/.local/share/rumbench/history.db.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "rumbench", "history.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the default history (%w): give --history PATH", err)
	}
	return filepath.Join(home, ".local", "share", "rumbench", "history.db"), nil
}

// Open opens the history at target (a file path, or a postgres:// DSN),
// creating it and bringing its schema to the current version. Errors
// never carry the DSN's password.
func Open(ctx context.Context, target string) (*Store, error) {
	return open(ctx, target, CurrentVersion)
}

// ErrNoHistory is wrapped by OpenExisting's error when target holds no
// history: a file that does not exist, or a database without rumbench's
// tables.
var ErrNoHistory = errors.New("no history")

// OpenExisting opens the history at target as Open does, but only when it
// exists: a SQLite file that is not there, or a database or file without a
// history's tables, is refused (an error wrapping ErrNoHistory) and nothing
// is created. Reading commands use it, so that a mistyped --history fails
// instead of reading an empty history that was just made.
func OpenExisting(ctx context.Context, target string) (*Store, error) {
	return openAt(ctx, target, CurrentVersion, false)
}

// open opens the store at target with its schema brought to version
// (tests make stores of earlier versions).
func open(ctx context.Context, target string, version int) (*Store, error) {
	return openAt(ctx, target, version, true)
}

// noHistory is the error for a target that holds no history.
func noHistory(where, why string) error {
	return fmt.Errorf("%w at %s (%s): record runs in it first with `rumbench run --history %s` or `rumbench history add --history %s DIR`, or give the right --history", ErrNoHistory, where, why, where, where)
}

func openAt(ctx context.Context, target string, version int, create bool) (*Store, error) {
	if target == "" {
		return nil, errors.New("empty history location: give --history PATH or --history postgres://...")
	}
	s := &Store{where: target}
	var err error
	if IsDSN(target) {
		cfg, perr := pgx.ParseConfig(target)
		if perr != nil {
			return nil, fmt.Errorf("history DSN is not valid (%v): give --history postgres://user@host:port/database", redact(perr, passwordOf(target)))
		}
		s.pg, s.secret = true, cfg.Password
		s.where = fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
		s.db, err = sql.Open("pgx", target)
	} else {
		mode := ""
		if create {
			if dir := filepath.Dir(target); dir != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return nil, fmt.Errorf("create the history's directory: %w", err)
				}
			}
		} else {
			st, err := os.Stat(target)
			switch {
			case errors.Is(err, os.ErrNotExist):
				return nil, noHistory(target, "no such file")
			case err != nil:
				return nil, fmt.Errorf("open history %s: %w", target, err)
			case st.IsDir():
				return nil, fmt.Errorf("history %s is a directory: give the history's file (history.db)", target)
			}
			mode = "&mode=rw" // never created by the driver either
		}
		// Immediate transactions and a busy timeout let two processes
		// record at once, the second waiting for the first instead of
		// failing; WAL (set below) lets readers run beside a writer.
		s.db, err = sql.Open("sqlite3", "file:"+target+"?_busy_timeout=30000&_txlock=immediate"+mode)
	}
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", s.where, s.redact(err))
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open history %s: %w", s.where, s.redact(err))
	}
	if !create {
		ok, err := s.hasSchema(ctx)
		if err != nil {
			s.db.Close()
			return nil, err
		}
		if !ok {
			s.db.Close()
			what := "a file without a history's tables"
			if s.pg {
				what = "a database without a history's tables"
			}
			return nil, noHistory(s.where, what)
		}
	}
	if !s.pg {
		if err := s.setWAL(ctx); err != nil {
			s.db.Close()
			return nil, err
		}
	}
	if err := s.migrate(ctx, version); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// hasSchema reports whether the store has a history's schema_version
// table, without creating anything.
func (s *Store) hasSchema(ctx context.Context) (bool, error) {
	stmt := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`
	if s.pg {
		stmt = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_version'`
	}
	var n int
	if err := s.db.QueryRowContext(ctx, stmt).Scan(&n); err != nil {
		return false, fmt.Errorf("open history %s: %w", s.where, s.redact(err))
	}
	return n > 0, nil
}

// setWAL puts a SQLite store in WAL mode, once: the mode stays with the
// file. Switching needs the file to itself, and SQLite answers "database
// is locked" at once, without waiting out the busy timeout, when another
// process holds it (two processes creating a store together): it is
// retried until the busy timeout would have ended.
func (s *Store) setWAL(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var mode string
		err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode)
		if err == nil && strings.EqualFold(mode, "wal") {
			return nil
		}
		if err == nil {
			err = s.db.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode)
			if err == nil && strings.EqualFold(mode, "wal") {
				return nil
			}
		}
		if err == nil {
			err = fmt.Errorf("journal mode %s", mode)
		}
		if time.Now().After(deadline) || !strings.Contains(err.Error(), "locked") && !strings.Contains(err.Error(), "busy") && err.Error() != "journal mode delete" {
			return fmt.Errorf("history %s: set WAL mode: %w", s.where, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Where names the store for messages (no password).
func (s *Store) Where() string { return s.where }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// redact hides the DSN's password and joins the driver's lines (pgx lists
// one failed address a line) into the one-line message rumbench prints.
func (s *Store) redact(err error) error {
	err = redact(err, s.secret)
	if err != nil && strings.Contains(err.Error(), "\n") {
		return errors.New(strings.Join(strings.Fields(err.Error()), " "))
	}
	return err
}

func redact(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), secret, "xxxxx"))
}

// passwordOf is the password of a DSN pgx could not parse, as best it can
// be found, so that even that error hides it.
func passwordOf(dsn string) string {
	rest := dsn[strings.Index(dsn, "://")+3:]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
		return pw
	}
	return ""
}

// q rewrites a statement written with ? placeholders for the store's
// driver: PostgreSQL numbers them ($1, $2, ...).
func (s *Store) q(stmt string) string {
	if !s.pg {
		return stmt
	}
	return sqlbind.Numbered(stmt)
}

// timeFormat stores times as fixed-width UTC text: the same on both
// databases, and ordered as text is ordered.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) time.Time {
	t, _ := time.Parse(timeFormat, s)
	return t
}
