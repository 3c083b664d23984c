package postgres

import (
	"strings"

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
		b.WriteString("CREATE INDEX ")
		b.WriteString(d.Quote(sqleng.IndexName(t, ix)))
		b.WriteString(" ON ")
		b.WriteString(d.Quote(t.Name))
		b.WriteString(" (")
		for j, c := range t.IndexColumns(ix) {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.Quote(t.Columns[c].Name))
		}
		b.WriteString(")")
		out[i] = b.String()
	}
	return out
}

// IndexHint is empty: PostgreSQL has no hints, and with the key columns
// above and fresh statistics (Maintain) the planner picks the index for an
// ORDER BY ... LIMIT on its columns.
func (Dialect) IndexHint(*model.Table, int) string { return "" }

func (d Dialect) CatalogDDL() string {
	return "CREATE TABLE IF NOT EXISTS " + d.Quote(sqleng.CatalogTable) +
		" (name text PRIMARY KEY, " + d.Quote("schema") + " text NOT NULL)"
}

// DeleteOldest deletes a PK range: the subquery walks the primary key index
// to the n-th smallest key, and the delete is one index range scan up to it.
// An IN (SELECT ... LIMIT n) form would build a hash of the keys and join.
// When the table has fewer than n rows the subquery is NULL and coalesce
// makes the bound "everything". Tables with a multi-column key use the IN
// form with a row value.
func (d Dialect) DeleteOldest(t *model.Table) string {
	tbl := d.Quote(t.Name)
	if len(t.PK) == 1 && t.Columns[t.PK[0]].Type != model.String {
		pk := d.Quote(t.Columns[t.PK[0]].Name)
		return "DELETE FROM " + tbl + " WHERE " + pk + " <= coalesce((SELECT " + pk + " FROM " + tbl +
			" ORDER BY " + pk + " OFFSET $1::bigint - 1 LIMIT 1), 9223372036854775807)"
	}
	var cols []string
	for _, c := range t.PK {
		cols = append(cols, d.Quote(t.Columns[c].Name))
	}
	key := strings.Join(cols, ", ")
	return "DELETE FROM " + tbl + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + tbl +
		" ORDER BY " + key + " LIMIT $1)"
}
