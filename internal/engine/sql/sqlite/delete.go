package sqlite

import (
	"strings"

	"rumbench/internal/model"
)

// deleteRange picks the range form of DeleteOldest for rowid tables; it is a
// variable only so the benchmark can compare the two forms.
var deleteRange = true

// deleteOldestSQL deletes the n smallest keys (n is the one parameter).
//
// For a rowid table the range form finds the n-th key by stepping n entries
// of the table b-tree (OFFSET), then deletes the key range in one pass; when
// the table has fewer than n rows the subquery is NULL and coalesce makes
// the bound "everything". The IN form instead materialises the n keys in a
// temporary b-tree and seeks each one again. Both are one statement, so
// they are atomic without an explicit transaction.
func deleteOldestSQL(d Dialect, t *model.Table) string {
	tbl := d.Quote(t.Name)
	if rowidKey(t) && deleteRange {
		pk := d.Quote(t.Columns[t.PK[0]].Name)
		return "DELETE FROM " + tbl + " WHERE " + pk + " <= coalesce((SELECT " + pk + " FROM " + tbl +
			" ORDER BY " + pk + " LIMIT 1 OFFSET ? - 1), 9223372036854775807)"
	}
	var cols []string
	for _, c := range t.PK {
		cols = append(cols, d.Quote(t.Columns[c].Name))
	}
	key := strings.Join(cols, ", ")
	if len(cols) > 1 {
		// Row-value IN with a subquery, SQLite >= 3.15.
		key = "(" + key + ")"
	}
	return "DELETE FROM " + tbl + " WHERE " + key + " IN (SELECT " + strings.Join(cols, ", ") + " FROM " + tbl +
		" ORDER BY " + strings.Join(cols, ", ") + " LIMIT ?)"
}
