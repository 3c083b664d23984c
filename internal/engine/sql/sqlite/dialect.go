package sqlite

import (
	"rumbench/internal/engine/catalog"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// MaxParams is SQLITE_MAX_VARIABLE_NUMBER as compiled into go-sqlite3 (the
// SQLite default since 3.32).
const MaxParams = 32766

// Dialect is SQLite's SQL dialect.
type Dialect struct{}

var _ sqleng.Dialect = Dialect{}

func (Dialect) Name() string                          { return "sqlite" }
func (Dialect) Quote(ident string) string             { return sqleng.QuoteDouble(ident) }
func (Dialect) AppendParam(b []byte, n int) []byte    { return sqleng.AppendQuestion(b, n) }
func (Dialect) MaxParams() int                        { return MaxParams }
func (Dialect) Limit(p string) string                 { return " LIMIT " + p }
func (Dialect) RowValues() bool                       { return true } // SQLite >= 3.15
func (Dialect) BeginWrite() string                    { return "BEGIN IMMEDIATE" }
func (d Dialect) Insert(t *model.Table, n int) string { return sqleng.StdInsert(d, t, n) }
func (d Dialect) CatalogPut() string                  { return sqleng.StdCatalogPutOnConflict(d) }

// ColumnType: INTEGER (exactly that word, so a one-column INTEGER primary
// key becomes the rowid) for Int and Time, BLOB for String because values
// are bound as []byte and SQLite stores them as blobs whatever the declared
// type; SQLite ignores lengths, so MaxLen is not enforced.
func (Dialect) ColumnType(c model.Column) string {
	if c.Type == model.String {
		return "BLOB"
	}
	return "INTEGER"
}

// rowidKey reports whether t's primary key is one Int column, which SQLite
// then stores as the rowid: the table b-tree is keyed by it, there is no
// separate key index, and secondary index entries end with it (covering the
// PK like InnoDB's do).
func rowidKey(t *model.Table) bool {
	return len(t.PK) == 1 && t.Columns[t.PK[0]].Type != model.String
}

// TableOptions makes tables with any other key WITHOUT ROWID, so they are
// still clustered by their primary key instead of being a rowid table plus a
// key index.
func (Dialect) TableOptions(t *model.Table) string {
	if rowidKey(t) {
		return ""
	}
	return " WITHOUT ROWID"
}

func (d Dialect) CreateIndexes(t *model.Table, idx []int) []string {
	out := make([]string, len(idx))
	for i, ix := range idx {
		out[i] = sqleng.StdCreateIndex(d, t, ix)
	}
	return out
}

// IndexHint forces secondary indexes with INDEXED BY (the planner otherwise
// may pick another index or sort). The primary key needs no hint: it is the
// table b-tree itself.
func (d Dialect) IndexHint(t *model.Table, idx int) string {
	if idx < 0 {
		return ""
	}
	return " INDEXED BY " + d.Quote(sqleng.IndexName(t, idx))
}

func (d Dialect) CatalogDDL() string {
	return "CREATE TABLE IF NOT EXISTS " + d.Quote(catalog.Table) +
		" (name TEXT PRIMARY KEY NOT NULL, " + d.Quote("schema") + " TEXT NOT NULL)"
}

// DeleteOldest: see deleteOldestSQL.
func (d Dialect) DeleteOldest(t *model.Table, prefix int) (string, []int) {
	return deleteOldestSQL(d, t, prefix)
}
