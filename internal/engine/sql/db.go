package sql

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"rumbench/internal/engine/catalog"
	"rumbench/internal/model"
)

// DB implements model.DB over a *sql.DB and a Dialect. Engine packages embed
// it and add Size, Stats and Maintain where they can.
type DB struct {
	db   *stdsql.DB
	d    Dialect
	info model.Info
	// sessions opens the workers' sessions; nil: connections of db.
	sessions SessionOpener
	// schemaMu serialises CreateTable/CreateIndexes/DropTable so that the
	// catalog's read-modify-write of a table's entry is not interleaved.
	schemaMu sync.Mutex
}

// New wraps an opened *sql.DB and creates the catalog table if missing. The
// DB takes ownership of db: Close closes it.
func New(ctx context.Context, db *stdsql.DB, d Dialect, info model.Info) (*DB, error) {
	_, err := db.ExecContext(ctx, d.CatalogDDL())
	if err != nil {
		// Processes opening one database at once (the shards of a run)
		// can collide in the server's catalog: PostgreSQL's IF NOT EXISTS
		// is not atomic. The table exists by the second try.
		_, err = db.ExecContext(ctx, d.CatalogDDL())
	}
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", catalog.Table, err)
	}
	return &DB{db: db, d: d, info: info}, nil
}

// NewWithSessions is New with the workers' connections (DB.Conn) opened by
// sessions instead of taken from db, which still serves schema changes,
// the catalog and engine statements.
func NewWithSessions(ctx context.Context, db *stdsql.DB, d Dialect, info model.Info, sessions SessionOpener) (*DB, error) {
	out, err := New(ctx, db, d, info)
	if err != nil {
		return nil, err
	}
	out.sessions = sessions
	return out, nil
}

// NewReader is NewWithSessions for reading existing data
// (model.Config.ReadOnly): it creates no catalog, and a database whose
// catalog is missing or lists no table is model.ErrNoData (its message
// reads "holds no rumbench tables (...)", for the caller to say what).
func NewReader(ctx context.Context, db *stdsql.DB, d Dialect, info model.Info, sessions SessionOpener) (*DB, error) {
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+d.Quote(catalog.Table)).Scan(&n); err != nil {
		return nil, model.NoDataError(fmt.Errorf("holds no rumbench tables (no %s table: %s)", catalog.Table, strings.TrimSpace(strings.SplitN(err.Error(), "\n", 2)[0])))
	}
	if n == 0 {
		return nil, model.NoDataError(fmt.Errorf("holds no rumbench tables (%s is empty)", catalog.Table))
	}
	return &DB{db: db, d: d, info: info, sessions: sessions}, nil
}

// SQL returns the underlying pool, for engine-specific statements.
func (db *DB) SQL() *stdsql.DB { return db.db }

// Dialect returns the dialect the DB was built with.
func (db *DB) Dialect() Dialect { return db.d }

// Info returns a copy of the engine description given to New.
func (db *DB) Info() model.Info {
	info := db.info
	info.Settings = maps.Clone(db.info.Settings)
	return info
}

// CreateTable drops t if it exists, creates it with its primary key only and
// records it in the catalog with no secondary indexes.
func (db *DB) CreateTable(ctx context.Context, t *model.Table) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	db.schemaMu.Lock()
	defer db.schemaMu.Unlock()
	if _, err := db.db.ExecContext(ctx, dropTableSQL(db.d, t)); err != nil {
		return fmt.Errorf("drop table %s: %w", t.Name, err)
	}
	if _, err := db.db.ExecContext(ctx, createTableSQL(db.d, t)); err != nil {
		return fmt.Errorf("create table %s: %w", t.Name, err)
	}
	return db.putCatalog(ctx, t, nil)
}

// DropTable drops t (and with it its indexes) and forgets its schema.
func (db *DB) DropTable(ctx context.Context, t *model.Table) error {
	db.schemaMu.Lock()
	defer db.schemaMu.Unlock()
	if _, err := db.db.ExecContext(ctx, dropTableSQL(db.d, t)); err != nil {
		return fmt.Errorf("drop table %s: %w", t.Name, err)
	}
	q := "DELETE FROM " + db.d.Quote(catalog.Table) + " WHERE name = " + string(db.d.AppendParam(nil, 1))
	if _, err := db.db.ExecContext(ctx, q, t.Name); err != nil {
		return fmt.Errorf("drop table %s: update catalog: %w", t.Name, err)
	}
	return nil
}

// CreateIndexes builds the indexes of t.Indexes that the catalog does not
// list as built yet, recording each in the catalog as soon as it exists.
func (db *DB) CreateIndexes(ctx context.Context, t *model.Table) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	db.schemaMu.Lock()
	defer db.schemaMu.Unlock()
	old, err := db.table(ctx, t.Name)
	if err != nil {
		return fmt.Errorf("create indexes on %s: %w", t.Name, err)
	}
	isBuilt := map[string]bool{}
	if old != nil {
		for _, ix := range old.Indexes {
			isBuilt[ix.Name] = true
		}
	}
	var built []model.Index
	for i, ix := range t.Indexes {
		if isBuilt[ix.Name] {
			built = append(built, ix)
			continue
		}
		for _, q := range db.d.CreateIndexes(t, []int{i}) {
			if _, err := db.db.ExecContext(ctx, q); err != nil {
				if dk, ok := db.d.(DuplicateKeyDetector); ok && ix.Unique && dk.IsDuplicateKey(err) {
					return fmt.Errorf("create unique index %s on %s: %w: %w", ix.Name, t.Name, model.ErrDuplicateKey, err)
				}
				return fmt.Errorf("create index %s on %s: %w", ix.Name, t.Name, err)
			}
		}
		built = append(built, ix)
		if err := db.putCatalog(ctx, t, built); err != nil {
			return err
		}
	}
	return db.putCatalog(ctx, t, built)
}

// Tables returns the recorded schemas, sorted by name.
func (db *DB) Tables(ctx context.Context) ([]*model.Table, error) {
	rows, err := db.db.QueryContext(ctx, "SELECT "+db.d.Quote("schema")+" FROM "+db.d.Quote(catalog.Table)+" ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", catalog.Table, err)
	}
	defer rows.Close()
	var out []*model.Table
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("read %s: %w", catalog.Table, err)
		}
		t, err := catalog.Decode(s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", catalog.Table, err)
	}
	return out, nil
}

// table returns the recorded schema of name, or nil when there is none.
func (db *DB) table(ctx context.Context, name string) (*model.Table, error) {
	q := "SELECT " + db.d.Quote("schema") + " FROM " + db.d.Quote(catalog.Table) + " WHERE name = " + string(db.d.AppendParam(nil, 1))
	var s string
	err := db.db.QueryRowContext(ctx, q, name).Scan(&s)
	if errors.Is(err, stdsql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", catalog.Table, err)
	}
	return catalog.Decode(s)
}

func (db *DB) putCatalog(ctx context.Context, t *model.Table, built []model.Index) error {
	rec := *t
	rec.Indexes = built
	s, err := catalog.Encode(&rec)
	if err != nil {
		return err
	}
	if _, err := db.db.ExecContext(ctx, db.d.CatalogPut(), t.Name, s); err != nil {
		return fmt.Errorf("record %s in %s: %w", t.Name, catalog.Table, err)
	}
	return nil
}

// Conn opens a dedicated connection for one worker.
func (db *DB) Conn(ctx context.Context) (model.Conn, error) {
	if db.sessions != nil {
		s, err := db.sessions(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: open connection: %w", db.d.Name(), err)
		}
		return newConn(db, s), nil
	}
	c, err := db.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: open connection: %w", db.d.Name(), err)
	}
	return newConn(db, newStdSession(db, c)), nil
}

// Size returns -1 (unknown); engine packages that know better override it.
func (db *DB) Size(ctx context.Context) (int64, error) { return -1, nil }

// Close closes the pool. Conns must be closed first.
func (db *DB) Close() error {
	if err := db.db.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", db.d.Name(), err)
	}
	return nil
}
