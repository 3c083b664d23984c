package postgres

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"rumbench/internal/engine/catalog"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// MaxParams is the protocol's limit: the Bind message counts parameters in
// an unsigned 16-bit field.
const MaxParams = 65535

// Dialect is PostgreSQL's SQL dialect.
type Dialect struct{}

var _ sqleng.Dialect = Dialect{}

func (Dialect) Name() string                       { return "postgres" }
func (Dialect) Quote(ident string) string          { return sqleng.QuoteDouble(ident) }
func (Dialect) AppendParam(b []byte, n int) []byte { return sqleng.AppendDollar(b, n) }
func (Dialect) MaxParams() int                     { return MaxParams }
func (Dialect) Limit(p string) string              { return " LIMIT " + p }

// RowValues: a row comparison (a, b) >= ($1, $2) is an index condition in
// PostgreSQL's planner, so multi-column bounds are one range.
func (Dialect) RowValues() bool { return true }

// BeginWrite is plain BEGIN: row locks are taken as rows are written, there
// is no lock to upgrade.
func (Dialect) BeginWrite() string                    { return "BEGIN" }
func (d Dialect) Insert(t *model.Table, n int) string { return sqleng.StdInsert(d, t, n) }
func (d Dialect) CatalogPut() string                  { return sqleng.StdCatalogPutOnConflict(d) }
func (Dialect) TableOptions(*model.Table) string      { return "" }

// ColumnType: bigint for Int and Time (Time is Unix seconds, bound as int64;
// bigint is as wide as timestamp). String is bytea: the model's strings are
// byte strings bound as []byte, which bytea takes in binary format with no
// encoding check, and it reads back as []byte without a string copy. Its
// storage (varlena header + bytes, TOAST-compressed when large) is that of
// varchar.
func (Dialect) ColumnType(c model.Column) string {
	switch c.Type {
	case model.String:
		return "bytea"
	default:
		return "bigint"
	}
}

// CreateIndexes builds each index with the primary key columns appended as
// key columns: PostgreSQL's B-tree index points at heap tuples, not at the
// key, so without them a covering range query (ORDER BY index columns, pk)
// would need heap fetches and a sort. With them the query is an index-only
// scan in index order, as it is on InnoDB, whose secondary indexes carry the
// primary key implicitly. (INCLUDE (pk) would cover but not order by pk.)
// Plain CREATE INDEX sorts once with maintenance_work_mem (an engine option)
// and blocks writes to the table meanwhile, which is what step l.x wants.
func (d Dialect) CreateIndexes(t *model.Table, idx []int) []string {
	out := make([]string, len(idx))
	for i, ix := range idx {
		var b strings.Builder
		b.WriteString(sqleng.CreateIndexVerb(t.Indexes[ix]))
		b.WriteString(d.Quote(sqleng.IndexName(t, ix)))
		b.WriteString(" ON ")
		b.WriteString(d.Quote(t.Name))
		cols := t.IndexColumns(ix)
		key, include := cols, cols[:0:0]
		if t.Indexes[ix].Unique {
			// Unique over the index's own columns: the PK columns not
			// in them are carried (INCLUDE), not keyed, or any row
			// would be unique.
			key, include = cols[:len(t.Indexes[ix].Columns)], cols[len(t.Indexes[ix].Columns):]
		}
		b.WriteString(" (")
		d.writeCols(&b, t, key)
		b.WriteString(")")
		if len(include) > 0 {
			b.WriteString(" INCLUDE (")
			d.writeCols(&b, t, include)
			b.WriteString(")")
		}
		out[i] = b.String()
	}
	return out
}

func (d Dialect) writeCols(b *strings.Builder, t *model.Table, cols []int) {
	for j, c := range cols {
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Quote(t.Columns[c].Name))
	}
}

// IndexHint is empty: PostgreSQL has no hints, and with the key columns
// above and fresh statistics (Maintain) the planner picks the index for an
// ORDER BY ... LIMIT on its columns.
func (Dialect) IndexHint(*model.Table, int) string { return "" }

func (d Dialect) CatalogDDL() string {
	return "CREATE TABLE IF NOT EXISTS " + d.Quote(catalog.Table) +
		" (name text PRIMARY KEY, " + d.Quote("schema") + " text NOT NULL)"
}

// DeleteOldest is the insert benchmark's own statement: DELETE ... WHERE
// pk IN (SELECT pk ... WHERE pk >= bound ORDER BY pk LIMIT n), PostgreSQL
// having no DELETE ... LIMIT. The subquery reads the primary key index from
// the bound, and each key is deleted through the index.
func (d Dialect) DeleteOldest(t *model.Table, prefix int) (string, []int) {
	tbl := d.Quote(t.Name)
	key := sqleng.PKColumns(d, t)
	cond, plan := sqleng.LowerBound(d, t, t.PK, prefix, false, 1)
	if cond != "" {
		cond = " WHERE " + cond
	}
	limit := string(d.AppendParam(nil, len(plan)+1))
	return "DELETE FROM " + tbl + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + tbl + cond +
		" ORDER BY " + key + " LIMIT " + limit + ")", plan
}

// IsDuplicateKey recognises unique_violation (SQLSTATE 23505).
func (Dialect) IsDuplicateKey(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// ErrorKind maps PostgreSQL's SQLSTATE to a model error kind
// (sqleng.ErrorKinds).
func (Dialect) ErrorKind(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return nil
	}
	switch pe.Code {
	case "40P01": // deadlock_detected
		return model.ErrDeadlock
	case "55P03": // lock_not_available (lock_timeout)
		return model.ErrLockTimeout
	case "40001": // serialization_failure
		return model.ErrSerialization
	case "53100": // disk_full
		return model.ErrDiskFull
	}
	return nil
}
