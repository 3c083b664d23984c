package sql

import (
	"fmt"
	"strings"

	"rumbench/internal/model"
)

// This file builds the statements whose shape is the same in every dialect.
// Builders that take bind parameters return, next to the text, the order in
// which the caller's values must be bound when that is not simply 1..n.

// createTableSQL is CREATE TABLE with every column NOT NULL and the primary
// key only. For SQLite, a single Int key column of type INTEGER makes the key
// the rowid (the table b-tree is keyed by it, like a clustered index).
func createTableSQL(d Dialect, t *model.Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(d.Quote(t.Name))
	b.WriteString(" (")
	for _, c := range t.Columns {
		b.WriteString(d.Quote(c.Name))
		b.WriteByte(' ')
		b.WriteString(d.ColumnType(c))
		b.WriteString(" NOT NULL, ")
	}
	b.WriteString("PRIMARY KEY (")
	writeCols(&b, d, t, t.PK, "")
	b.WriteString("))")
	b.WriteString(d.TableOptions(t))
	return b.String()
}

func dropTableSQL(d Dialect, t *model.Table) string {
	return "DROP TABLE IF EXISTS " + d.Quote(t.Name)
}

// getSQL selects full rows for n primary keys: `pk IN (...)` for a one-column
// key, an OR of equalities otherwise (row-value IN lists are not portable).
func getSQL(d Dialect, t *model.Table, n int) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Quote(c.Name))
	}
	b.WriteString(" FROM ")
	b.WriteString(d.Quote(t.Name))
	b.WriteString(" WHERE ")
	p := 1
	var buf []byte
	param := func() {
		buf = d.AppendParam(buf[:0], p)
		b.Write(buf)
		p++
	}
	if len(t.PK) == 1 {
		b.WriteString(d.Quote(t.Columns[t.PK[0]].Name))
		b.WriteString(" IN (")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			param()
		}
		b.WriteString(")")
		return b.String()
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("(")
		for j, c := range t.PK {
			if j > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(d.Quote(t.Columns[c].Name))
			b.WriteString(" = ")
			param()
		}
		b.WriteString(")")
	}
	return b.String()
}

// scanSQL is an ordered, covering read of index idx (-1 = primary key): the
// columns t.IndexColumns(idx), a bound on the first prefix of them when
// prefix > 0, and a LIMIT parameter when limit is set. plan[i] is the
// position in ScanSpec.Lower bound to parameter i+1; the limit, if any, is
// bound after them.
func scanSQL(d Dialect, t *model.Table, idx int, cols []int, prefix int, desc, limit bool) (text string, plan []int) {
	var b strings.Builder
	b.WriteString("SELECT ")
	writeCols(&b, d, t, cols, "")
	b.WriteString(" FROM ")
	b.WriteString(d.Quote(t.Name))
	b.WriteString(d.IndexHint(t, idx))
	cond, plan := LowerBound(d, t, cols, prefix, desc, 1)
	if cond != "" {
		b.WriteString(" WHERE ")
		b.WriteString(cond)
	}
	writeOrderLimit(&b, d, t, cols, desc, limit, len(plan)+1)
	return b.String(), plan
}

// writeOrderLimit ends a scan statement: ORDER BY cols (descending if
// desc) and, when limit is set, a LIMIT of parameter number p.
func writeOrderLimit(b *strings.Builder, d Dialect, t *model.Table, cols []int, desc, limit bool, p int) {
	b.WriteString(" ORDER BY ")
	if desc {
		writeCols(b, d, t, cols, " DESC")
	} else {
		writeCols(b, d, t, cols, "")
	}
	if limit {
		b.WriteString(d.Limit(string(d.AppendParam(nil, p))))
	}
}

// LowerBound is the condition (c1..ck) >= (v1..vk) on the first prefix of
// cols (<= when desc), "" for prefix 0, with bind parameters numbered from
// first. plan[i] is the position in the bound (v1..vk) of parameter
// first+i.
func LowerBound(d Dialect, t *model.Table, cols []int, prefix int, desc bool, first int) (cond string, plan []int) {
	var b strings.Builder
	p := first
	var buf []byte
	param := func(lower int) {
		buf = d.AppendParam(buf[:0], p)
		b.Write(buf)
		p++
		plan = append(plan, lower)
	}
	ge, gt := " >= ", " > "
	if desc {
		ge, gt = " <= ", " < "
	}
	name := func(i int) string { return d.Quote(t.Columns[cols[i]].Name) }
	switch {
	case prefix == 1:
		b.WriteString(name(0))
		b.WriteString(ge)
		param(0)
	case prefix > 1 && d.RowValues():
		b.WriteString("(")
		writeCols(&b, d, t, cols[:prefix], "")
		b.WriteString(")")
		b.WriteString(ge)
		b.WriteString("(")
		for i := 0; i < prefix; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			param(i)
		}
		b.WriteString(")")
	case prefix > 1:
		// (c1..ck) >= (v1..vk) as c1 >= v1 AND (c1 > v1 OR (c2 >= v2 AND
		// (c2 > v2 OR ... ck >= vk))): the leading c1 >= v1 gives every
		// optimizer a plain index range to start from.
		for i := 0; i < prefix-1; i++ {
			b.WriteString(name(i))
			b.WriteString(ge)
			param(i)
			b.WriteString(" AND (")
			b.WriteString(name(i))
			b.WriteString(gt)
			param(i)
			b.WriteString(" OR ")
		}
		b.WriteString(name(prefix - 1))
		b.WriteString(ge)
		param(prefix - 1)
		b.WriteString(strings.Repeat(")", prefix-1))
	}
	return b.String(), plan
}

// PKColumns returns the quoted primary key columns, comma separated.
func PKColumns(d Dialect, t *model.Table) string {
	var b strings.Builder
	writeCols(&b, d, t, t.PK, "")
	return b.String()
}

// updateSQL sets or adds to the changed columns of the row with the given
// primary key. Parameters: one per change, then the key columns.
func updateSQL(d Dialect, t *model.Table, changes []model.Change) string {
	var b strings.Builder
	b.WriteString("UPDATE ")
	b.WriteString(d.Quote(t.Name))
	b.WriteString(" SET ")
	p := 1
	var buf []byte
	param := func() {
		buf = d.AppendParam(buf[:0], p)
		b.Write(buf)
		p++
	}
	for i, ch := range changes {
		if i > 0 {
			b.WriteString(", ")
		}
		n := d.Quote(t.Columns[ch.Col].Name)
		b.WriteString(n)
		b.WriteString(" = ")
		if ch.Op == model.Add {
			b.WriteString(n)
			b.WriteString(" + ")
		}
		param()
	}
	b.WriteString(" WHERE ")
	for i, c := range t.PK {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(d.Quote(t.Columns[c].Name))
		b.WriteString(" = ")
		param()
	}
	return b.String()
}

// checkChanges rejects changes the model does not allow, before any SQL runs.
func checkChanges(t *model.Table, changes []model.Change) error {
	if len(changes) == 0 {
		return fmt.Errorf("update %s: no changes", t.Name)
	}
	for _, ch := range changes {
		if ch.Col < 0 || ch.Col >= len(t.Columns) {
			return fmt.Errorf("update %s: column %d out of range (table has %d)", t.Name, ch.Col, len(t.Columns))
		}
		switch ch.Op {
		case model.Set:
		case model.Add:
			if t.Columns[ch.Col].Type == model.String {
				return fmt.Errorf("update %s: cannot add to string column %s", t.Name, t.Columns[ch.Col].Name)
			}
		default:
			return fmt.Errorf("update %s: unknown change op %d", t.Name, ch.Op)
		}
		for _, p := range t.PK {
			if p == ch.Col {
				return fmt.Errorf("update %s: cannot change primary key column %s", t.Name, t.Columns[p].Name)
			}
		}
	}
	return nil
}

// QueryShapes returns the text of every read statement shape the Conn
// prepares for t: scans of the primary key and each index with every bound
// length, both directions, with a limit; bounded ranges (equality on the
// first column, a range on the second); a Get of three keys; and the
// dialect's DeleteOldest, with and without a bound. Dialect tests run EXPLAIN on them to check that
// each is an index range read without a sort.
func QueryShapes(d Dialect, t *model.Table) []string {
	var out []string
	for idx := -1; idx < len(t.Indexes); idx++ {
		cols := t.IndexColumns(idx)
		for prefix := 0; prefix <= len(cols); prefix++ {
			for _, desc := range []bool{false, true} {
				q, _ := scanSQL(d, t, idx, cols, prefix, desc, true)
				out = append(out, q)
			}
		}
	}
	// Bounded ranges (ScanSpec.Upper): equality on the first column, a
	// range on the second, both directions.
	for idx := -1; idx < len(t.Indexes); idx++ {
		if cols := t.IndexColumns(idx); len(cols) >= 2 {
			for _, desc := range []bool{false, true} {
				out = append(out, betweenSQL(d, t, idx, cols, 2, desc, true))
			}
		}
	}
	del0, _ := d.DeleteOldest(t, 0)
	del1, _ := d.DeleteOldest(t, len(t.PK))
	return append(out, getSQL(d, t, 3), del0, del1)
}

// ScanText is the text of the statement Conn.Scan sends for a read of index
// idx (-1 = primary key) with a bound on its first prefix columns, for tools
// that must send exactly the same statement (the client floor benchmark).
func ScanText(d Dialect, t *model.Table, idx, prefix int, desc, limit bool) string {
	q, _ := scanSQL(d, t, idx, t.IndexColumns(idx), prefix, desc, limit)
	return q
}

// GetText is the text of the statement Conn.Get sends for n keys.
func GetText(d Dialect, t *model.Table, n int) string { return getSQL(d, t, n) }

// betweenSQL is a bounded range read of index idx (see model.ScanSpec.Upper):
// equality on the first n-1 of cols, c_n >= ? AND c_n <= ?, ordered by
// cols, with a LIMIT parameter when limit is set. Parameters: the n-1
// equality values, the low end, the high end, then the limit.
func betweenSQL(d Dialect, t *model.Table, idx int, cols []int, n int, desc, limit bool) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	writeCols(&b, d, t, cols, "")
	b.WriteString(" FROM ")
	b.WriteString(d.Quote(t.Name))
	b.WriteString(d.IndexHint(t, idx))
	b.WriteString(" WHERE ")
	p := 1
	var buf []byte
	param := func() {
		buf = d.AppendParam(buf[:0], p)
		b.Write(buf)
		p++
	}
	for i := 0; i < n-1; i++ {
		b.WriteString(d.Quote(t.Columns[cols[i]].Name))
		b.WriteString(" = ")
		param()
		b.WriteString(" AND ")
	}
	last := d.Quote(t.Columns[cols[n-1]].Name)
	b.WriteString(last)
	b.WriteString(" >= ")
	param()
	b.WriteString(" AND ")
	b.WriteString(last)
	b.WriteString(" <= ")
	param()
	writeOrderLimit(&b, d, t, cols, desc, limit, p)
	return b.String()
}

// deleteSQL deletes the row with the given primary key (one parameter per
// key column).
func deleteSQL(d Dialect, t *model.Table) string {
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(d.Quote(t.Name))
	b.WriteString(" WHERE ")
	var buf []byte
	for i, c := range t.PK {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(d.Quote(t.Columns[c].Name))
		b.WriteString(" = ")
		buf = d.AppendParam(buf[:0], i+1)
		b.Write(buf)
	}
	return b.String()
}

// Upserter is implemented by dialects whose update-or-insert is not the
// standard INSERT ... ON CONFLICT (pk) DO UPDATE (StdUpsert): MySQL's ON
// DUPLICATE KEY UPDATE. The statement takes the row's values (table order),
// then one parameter per change.
type Upserter interface {
	Upsert(t *model.Table, changes []model.Change) string
}

// StdUpsert is INSERT INTO t (...) VALUES (...) ON CONFLICT (pk) DO UPDATE
// SET c = ? or c = t.c + ? per change (SQLite ≥ 3.24, PostgreSQL).
func StdUpsert(d Dialect, t *model.Table, changes []model.Change) string {
	var b strings.Builder
	b.WriteString(StdInsert(d, t, 1))
	b.WriteString(" ON CONFLICT (")
	writeCols(&b, d, t, t.PK, "")
	b.WriteString(") DO UPDATE SET ")
	WriteChanges(&b, d, t, changes, d.Quote(t.Name)+".", len(t.Columns)+1)
	return b.String()
}

// WriteChanges writes `c = ?` or `c = <qual>c + ?` per change, parameters
// numbered from first.
func WriteChanges(b *strings.Builder, d Dialect, t *model.Table, changes []model.Change, qual string, first int) {
	var buf []byte
	for i, ch := range changes {
		if i > 0 {
			b.WriteString(", ")
		}
		n := d.Quote(t.Columns[ch.Col].Name)
		b.WriteString(n)
		b.WriteString(" = ")
		if ch.Op == model.Add {
			b.WriteString(qual)
			b.WriteString(n)
			b.WriteString(" + ")
		}
		buf = d.AppendParam(buf[:0], first+i)
		b.Write(buf)
	}
}
