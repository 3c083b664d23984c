package mysql

import (
	"errors"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"

	"rumbench/internal/engine/catalog"
	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// MaxParams is the protocol's limit for a server-side prepared statement
// (a 16-bit count). Interpolated statements are limited by
// max_allowed_packet instead; batches stay far below both.
const MaxParams = 65535

// Dialect is MariaDB's (and MySQL's) SQL dialect for one storage engine.
type Dialect struct {
	// Engine is the storage engine of the tables: "InnoDB" or "ROCKSDB".
	Engine string
	// Prepare makes the Conn prepare statements on the server instead of
	// sending them as text with the parameters interpolated by the driver.
	Prepare bool
	// RowFormat, when set, is appended to CREATE TABLE (InnoDB's
	// " ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8").
	RowFormat string
}

var (
	_ sqleng.Dialect        = Dialect{}
	_ sqleng.TextStatements = Dialect{}
)

func (Dialect) Name() string                          { return "mysql" }
func (Dialect) Quote(ident string) string             { return sqleng.QuoteBacktick(ident) }
func (Dialect) AppendParam(b []byte, n int) []byte    { return sqleng.AppendQuestion(b, n) }
func (Dialect) MaxParams() int                        { return MaxParams }
func (Dialect) Limit(p string) string                 { return " LIMIT " + p }
func (Dialect) BeginWrite() string                    { return "BEGIN" }
func (d Dialect) Insert(t *model.Table, n int) string { return sqleng.StdInsert(d, t, n) }

// TextStatements: with interpolateParams=true go-sql-driver/mysql sends a
// statement and its values as one text query, one round trip, no
// server-side statement handles (the classic insert benchmark's clients do
// the same).
func (d Dialect) TextStatements() bool { return !d.Prepare }

// RowValues is false: MariaDB accepts (a, b) >= (?, ?) but its range
// optimizer does not use it to bound an index scan, so a multi-column bound
// is spelled out with a leading a >= ?.
func (Dialect) RowValues() bool { return false }

// ColumnType: BIGINT for Int and Time (Time is Unix seconds bound as int64).
// String is a byte string, so VARBINARY: no character set conversion or
// collation, and MyRocks has no collation restriction to meet. Values above
// VARBINARY's practical size (the 64 KB row limit) go to LONGBLOB.
func (Dialect) ColumnType(c model.Column) string {
	if c.Type != model.String {
		return "BIGINT"
	}
	if c.MaxLen > 0 && c.MaxLen <= 16000 {
		return "VARBINARY(" + strconv.Itoa(c.MaxLen) + ")"
	}
	return "LONGBLOB"
}

// TableOptions picks the storage engine. Character set and collation do
// not matter: no column is text.
func (d Dialect) TableOptions(*model.Table) string { return " ENGINE=" + d.Engine + d.RowFormat }

// CreateIndexes adds each index with ALTER TABLE ... ADD INDEX: InnoDB builds
// it in place by sorting the rows once (fast index creation), MyRocks by
// bulk-loading sorted keys. Both append the primary key to every secondary
// index entry, so the index is covering for the range queries.
func (d Dialect) CreateIndexes(t *model.Table, idx []int) []string {
	out := make([]string, len(idx))
	for i, ix := range idx {
		var b strings.Builder
		b.WriteString("ALTER TABLE ")
		b.WriteString(d.Quote(t.Name))
		if t.Indexes[ix].Unique {
			// A unique index cannot use InnoDB's change buffer: every
			// insert reads its leaf page to check the key.
			b.WriteString(" ADD UNIQUE INDEX ")
		} else {
			b.WriteString(" ADD INDEX ")
		}
		b.WriteString(d.Quote(sqleng.IndexName(t, ix)))
		b.WriteString(" (")
		for j, c := range t.Indexes[ix].Columns {
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

// IndexHint forces the index: with a LIMIT the optimizer may otherwise pick
// another index or a filesort on statistics that churn makes stale.
func (d Dialect) IndexHint(t *model.Table, idx int) string {
	if idx < 0 {
		return " FORCE INDEX (PRIMARY)"
	}
	return " FORCE INDEX (" + d.Quote(sqleng.IndexName(t, idx)) + ")"
}

// CatalogDDL: the catalog is always InnoDB (it is tiny and transactional
// everywhere, and needs no plugin).
func (d Dialect) CatalogDDL() string {
	return "CREATE TABLE IF NOT EXISTS " + d.Quote(catalog.Table) +
		" (name VARCHAR(64) NOT NULL PRIMARY KEY, " + d.Quote("schema") + " LONGTEXT NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
}

func (d Dialect) CatalogPut() string {
	s := d.Quote("schema")
	return "INSERT INTO " + d.Quote(catalog.Table) + " (name, " + s + ") VALUES (?, ?) ON DUPLICATE KEY UPDATE " + s + " = VALUES(" + s + ")"
}

// DeleteOldest is DELETE ... WHERE pk >= bound ORDER BY pk LIMIT n: one
// walk of the primary key from the bound. (MySQL rejects LIMIT inside IN
// (subquery).)
func (d Dialect) DeleteOldest(t *model.Table, prefix int) (string, []int) {
	q := "DELETE FROM " + d.Quote(t.Name)
	cond, plan := sqleng.LowerBound(d, t, t.PK, prefix, false, 1)
	if cond != "" {
		q += " WHERE " + cond
	}
	return q + " ORDER BY " + sqleng.PKColumns(d, t) + " LIMIT ?", plan
}

// Upsert is INSERT ... ON DUPLICATE KEY UPDATE c = ? or c = c + ? per
// change (sqleng.Upserter). MySQL takes the update path on a conflict of
// any unique key, not only of the primary key named by the model.
func (d Dialect) Upsert(t *model.Table, changes []model.Change) string {
	var b strings.Builder
	b.WriteString(sqleng.StdInsert(d, t, 1))
	b.WriteString(" ON DUPLICATE KEY UPDATE ")
	sqleng.WriteChanges(&b, d, t, changes, "", len(t.Columns)+1)
	return b.String()
}

// IsDuplicateKey recognises ER_DUP_ENTRY (1062).
func (Dialect) IsDuplicateKey(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1062
}

// ErrorKind maps MariaDB's error numbers to a model error kind
// (sqleng.ErrorKinds). MyRocks reports some of RocksDB's concurrency
// errors under other numbers, with RocksDB's status text in the message
// (rocksStatusKinds).
func (Dialect) ErrorKind(err error) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return nil
	}
	switch me.Number {
	case 1213: // ER_LOCK_DEADLOCK
		return model.ErrDeadlock
	case 1205: // ER_LOCK_WAIT_TIMEOUT
		return model.ErrLockTimeout
	case 1021, 1114: // ER_DISK_FULL, ER_RECORD_FILE_FULL ("The table 'x' is full")
		return model.ErrDiskFull
	}
	msg := strings.ToLower(me.Message)
	for _, k := range rocksStatusKinds {
		for _, s := range k.texts {
			if strings.Contains(msg, s) {
				return k.kind
			}
		}
	}
	return nil
}

// rocksStatusKinds are RocksDB's statuses as MyRocks quotes them, in the
// order they are tried: a Busy status that names a deadlock is one.
var rocksStatusKinds = []struct {
	kind  error
	texts []string
}{
	{model.ErrDeadlock, []string{"deadlock"}},
	{model.ErrLockTimeout, []string{"lock wait timeout", "lock timeout", "timeout waiting to lock key"}},
	{model.ErrSerialization, []string{"resource busy", "try again"}},
}
