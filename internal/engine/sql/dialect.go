// Package sql implements the table model (model.DB, model.Conn, model.Tx)
// once over database/sql. What differs between SQL engines is confined to a
// Dialect; engine packages (sql/sqlite, and later postgres and mysql) supply
// the dialect, open the *sql.DB and add what only they know (size on disk,
// statistics, maintenance).
//
// Design points that matter for the numbers:
//   - one Session per model.Conn, so a worker owns one server session: a
//     *sql.Conn by default, the driver's own connection for the server
//     engines (session.go), which keeps database/sql's pool, locks and
//     goroutine per query out of every statement;
//   - statements are prepared once per Conn and cached by shape (table,
//     batch size, index, bound prefix length, direction, changed columns);
//   - transactions are opened with the dialect's BEGIN text on the Conn
//     itself rather than with database/sql's Tx, because a sql.Tx cannot use
//     statements prepared on a sql.Conn without re-preparing them;
//   - single-statement operations run in autocommit, which is one
//     transaction without the BEGIN/COMMIT round trips.
package sql

import (
	"strconv"
	"strings"

	"rumbench/internal/engine/catalog"
	"rumbench/internal/model"
)

// Dialect is what one SQL engine needs to say differently. Implementations
// must be safe for concurrent use (they are pure functions of their input in
// practice). The Std* helpers give the common ANSI forms, so most methods are
// one line.
//
// Statement shapes the generic code builds itself from Quote, AppendParam,
// IndexHint, Limit and RowValues: point reads (`WHERE pk IN (...)`), index
// scans (`SELECT <index cols, pk> FROM t <hint> WHERE <prefix> >= <bound>
// ORDER BY <index cols, pk> [DESC] LIMIT n`), updates (`SET c = ?`,
// `SET c = c + ?`), DROP TABLE IF EXISTS and COMMIT/ROLLBACK.
type Dialect interface {
	// Name names the dialect in error messages ("sqlite", "postgres", ...).
	Name() string

	// Quote returns ident as a quoted identifier ("x" or `x`).
	Quote(ident string) string

	// AppendParam appends the marker of bind parameter n (1-based): "?" for
	// SQLite and MySQL, "$n" for PostgreSQL.
	AppendParam(b []byte, n int) []byte

	// MaxParams is the most bind parameters one statement may carry; larger
	// inserts are split into several statements in one transaction.
	MaxParams() int

	// ColumnType is the SQL type of a column (used with NOT NULL). Int and
	// Time must hold int64 (Time is Unix seconds); String holds bytes of up
	// to c.MaxLen (0 = unbounded) and is bound as []byte.
	ColumnType(c model.Column) string

	// TableOptions is appended to CREATE TABLE after the closing parenthesis
	// (" ENGINE=InnoDB", " WITHOUT ROWID"), or "".
	TableOptions(t *model.Table) string

	// CreateIndexes returns the statements that build the secondary indexes
	// t.Indexes[i] for each i in idx. Index names must come from IndexName so
	// that IndexHint can name them. StdCreateIndex gives one CREATE INDEX each.
	CreateIndexes(t *model.Table, idx []int) []string

	// Insert returns a multi-row INSERT of all columns, in table order, with
	// rows*len(t.Columns) parameters in row-major order. See StdInsert.
	Insert(t *model.Table, rows int) string

	// DeleteOldest returns a statement deleting the n rows with the smallest
	// primary keys at or above a bound on the first prefix PK columns (no
	// bound when prefix is 0): DELETE ... WHERE pk >= ? ORDER BY pk LIMIT n,
	// or its equivalent. The bound's values are bound in the order plan
	// gives (positions in the bound, see LowerBound), then n. Its
	// rows-affected count is the number deleted.
	DeleteOldest(t *model.Table, prefix int) (text string, plan []int)

	// IndexHint is inserted after the table name in FROM to make the planner
	// use index idx (-1 is the primary key): " INDEXED BY x", " FORCE INDEX
	// (x)", or "" when the planner needs no help.
	IndexHint(t *model.Table, idx int) string

	// Limit returns the clause limiting a query to the count in parameter
	// marker p, with a leading space (" LIMIT ?").
	Limit(p string) string

	// RowValues reports whether a row-value comparison (a, b) >= (?, ?) is
	// supported and bounds an index range. When false, a multi-column bound
	// is spelled out as a > ? OR (a = ? AND b >= ?).
	RowValues() bool

	// BeginWrite starts an explicit transaction that may write. It should
	// take the write lock up front where the engine has one to take (SQLite:
	// BEGIN IMMEDIATE), so concurrent writers queue instead of failing on
	// lock upgrade.
	BeginWrite() string

	// CatalogDDL creates, if missing, the catalog table
	// rumbench_catalog(name <key type> PRIMARY KEY, schema <text type>).
	CatalogDDL() string

	// CatalogPut upserts one catalog row; parameter 1 is the table name,
	// parameter 2 the schema JSON (bound as a string).
	CatalogPut() string
}

// IndexName is the SQL name of secondary index i of t. Index names are global
// to a schema in SQLite and PostgreSQL, so they carry the table name.
func IndexName(t *model.Table, i int) string {
	return t.Name + "_" + t.Indexes[i].Name
}

// QuoteDouble quotes an identifier with double quotes (SQL standard, SQLite,
// PostgreSQL), doubling embedded quotes.
func QuoteDouble(ident string) string {
	return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"`
}

// QuoteBacktick quotes an identifier with backticks (MySQL, MariaDB).
func QuoteBacktick(ident string) string {
	return "`" + strings.ReplaceAll(ident, "`", "``") + "`"
}

// AppendQuestion appends "?" whatever n is.
func AppendQuestion(b []byte, _ int) []byte { return append(b, '?') }

// AppendDollar appends "$n".
func AppendDollar(b []byte, n int) []byte {
	return strconv.AppendInt(append(b, '$'), int64(n), 10)
}

// CreateIndexVerb is "CREATE UNIQUE INDEX " for a unique index, else
// "CREATE INDEX ".
func CreateIndexVerb(ix model.Index) string {
	if ix.Unique {
		return "CREATE UNIQUE INDEX "
	}
	return "CREATE INDEX "
}

// StdCreateIndex is `CREATE [UNIQUE] INDEX <IndexName> ON t (cols)` for
// t.Indexes[i].
func StdCreateIndex(d Dialect, t *model.Table, i int) string {
	var b strings.Builder
	b.WriteString(CreateIndexVerb(t.Indexes[i]))
	b.WriteString(d.Quote(IndexName(t, i)))
	b.WriteString(" ON ")
	b.WriteString(d.Quote(t.Name))
	b.WriteString(" (")
	writeCols(&b, d, t, t.Indexes[i].Columns, "")
	b.WriteString(")")
	return b.String()
}

// StdInsert is `INSERT INTO t (cols) VALUES (...), (...)` with rows tuples.
func StdInsert(d Dialect, t *model.Table, rows int) string {
	b := make([]byte, 0, 64+rows*len(t.Columns)*4)
	b = append(b, "INSERT INTO "...)
	b = append(b, d.Quote(t.Name)...)
	b = append(b, " ("...)
	for i, c := range t.Columns {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, d.Quote(c.Name)...)
	}
	b = append(b, ") VALUES "...)
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '(')
		for i := range t.Columns {
			if i > 0 {
				b = append(b, ',')
			}
			b = d.AppendParam(b, n)
			n++
		}
		b = append(b, ')')
	}
	return string(b)
}

// StdCatalogPutOnConflict is the `INSERT ... ON CONFLICT (name) DO UPDATE`
// upsert understood by SQLite (≥ 3.24) and PostgreSQL.
func StdCatalogPutOnConflict(d Dialect) string {
	p1 := string(d.AppendParam(nil, 1))
	p2 := string(d.AppendParam(nil, 2))
	return "INSERT INTO " + d.Quote(catalog.Table) + " (name, " + d.Quote("schema") + ") VALUES (" +
		p1 + ", " + p2 + ") ON CONFLICT (name) DO UPDATE SET " + d.Quote("schema") + " = excluded." + d.Quote("schema")
}

// writeCols writes quoted column names separated by commas, each followed by
// suffix (" DESC" or "").
func writeCols(b *strings.Builder, d Dialect, t *model.Table, cols []int, suffix string) {
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Quote(t.Columns[c].Name))
		b.WriteString(suffix)
	}
}
