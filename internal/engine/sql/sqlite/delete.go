package sqlite

import (
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// deleteRange picks the range form of DeleteOldest for rowid tables; it is a
// variable only so the benchmark can compare the two forms.
var deleteRange = true

// deleteOldestSQL deletes the n smallest keys at or above the bound on the
// first prefix PK columns (SQLite has DELETE ... LIMIT only as a compile
// option).
//
// For a rowid table the range form finds the n-th key from the bound by
// stepping n entries of the table b-tree (OFFSET), then deletes the key
// range in one pass; when fewer than n rows are left the subquery is NULL
// and coalesce makes the bound "everything". The IN form instead
// materialises the n keys in a temporary b-tree and seeks each one again.
// Both are one statement, so they are atomic without an explicit
// transaction.
func deleteOldestSQL(d Dialect, t *model.Table, prefix int) (string, []int) {
	tbl := d.Quote(t.Name)
	cond, plan := sqleng.LowerBound(d, t, t.PK, prefix, false, 1)
	where := ""
	if cond != "" {
		where = " WHERE " + cond
	}
	if rowidKey(t) && deleteRange {
		pk := d.Quote(t.Columns[t.PK[0]].Name)
		q := "DELETE FROM " + tbl + " WHERE "
		if cond != "" {
			// The bound twice: on the delete and on the subquery.
			q += cond + " AND "
			plan = append(plan, plan...)
		}
		return q + pk + " <= coalesce((SELECT " + pk + " FROM " + tbl + where +
			" ORDER BY " + pk + " LIMIT 1 OFFSET ? - 1), 9223372036854775807)", plan
	}
	key := sqleng.PKColumns(d, t)
	if len(t.PK) > 1 {
		// Row-value IN with a subquery, SQLite >= 3.15.
		key = "(" + key + ")"
	}
	cols := sqleng.PKColumns(d, t)
	return "DELETE FROM " + tbl + " WHERE " + key + " IN (SELECT " + cols + " FROM " + tbl + where +
		" ORDER BY " + cols + " LIMIT ?)", plan
}

// IsDuplicateKey recognises a primary key (or rowid) or unique index
// constraint violation.
func (Dialect) IsDuplicateKey(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || se.ExtendedCode == sqlite3.ErrConstraintUnique)
}
