// Package model defines the table model every workload is written against and
// every engine implements: typed columns, a primary key, ordered secondary
// indexes, and the operations of design §3.
package model

import (
	"fmt"
	"strings"
)

// Type is a column type. Engines map it to their native types.
type Type int

const (
	// Int is a signed 64-bit integer.
	Int Type = iota
	// Time is a wall-clock timestamp stored as Unix seconds in Value.Int.
	Time
	// String is a variable-length byte string stored in Value.Bytes.
	String
)

func (t Type) String() string {
	switch t {
	case Int:
		return "int"
	case Time:
		return "time"
	case String:
		return "string"
	}
	return fmt.Sprintf("type(%d)", int(t))
}

// Value holds one column value. Int and Time use Int; String uses Bytes.
// A struct instead of an interface keeps rows free of per-value allocations.
type Value struct {
	Int   int64
	Bytes []byte
}

// Row is one value per column, in the table's column order. Rows handed to
// engines are only valid during the call: engines must copy what they keep.
type Row []Value

// Column is a named, typed column. MaxLen bounds String columns (for SQL DDL).
type Column struct {
	Name   string
	Type   Type
	MaxLen int
}

// Index is an ordered secondary index over Columns (positions in the table's
// column list). Entries are ordered by those columns, then by the primary key.
// A Unique index refuses a second row with the same values of Columns (an
// error wrapping ErrDuplicateKey): every insert reads the index first.
type Index struct {
	Name    string
	Columns []int
	Unique  bool `json:",omitempty"`
}

// Table is a table's schema.
type Table struct {
	Name    string
	Columns []Column
	// PK lists the primary key's column positions, in key order.
	PK []int
	// Indexes are the secondary indexes; they are created after the load
	// (CreateIndexes), not with the table.
	Indexes []Index
}

// Col returns the position of the named column, or -1.
func (t *Table) Col(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// IndexColumns returns the columns of index idx followed by the PK columns
// not already in it: the covering projection of an index scan. idx < 0 means
// the primary key itself.
func (t *Table) IndexColumns(idx int) []int {
	if idx < 0 {
		return t.PK
	}
	cols := append([]int(nil), t.Indexes[idx].Columns...)
	for _, p := range t.PK {
		found := false
		for _, c := range cols {
			if c == p {
				found = true
			}
		}
		if !found {
			cols = append(cols, p)
		}
	}
	return cols
}

// Validate checks that the schema is well formed.
func (t *Table) Validate() error {
	if t.Name == "" {
		return fmt.Errorf("table has no name")
	}
	if len(t.Columns) == 0 {
		return fmt.Errorf("table %s has no columns", t.Name)
	}
	if len(t.PK) == 0 {
		return fmt.Errorf("table %s has no primary key", t.Name)
	}
	check := func(what string, cols []int) error {
		for _, c := range cols {
			if c < 0 || c >= len(t.Columns) {
				return fmt.Errorf("table %s: %s refers to column %d of %d", t.Name, what, c, len(t.Columns))
			}
		}
		return nil
	}
	if err := check("primary key", t.PK); err != nil {
		return err
	}
	for _, ix := range t.Indexes {
		if len(ix.Columns) == 0 {
			return fmt.Errorf("table %s: index %s has no columns", t.Name, ix.Name)
		}
		if err := check("index "+ix.Name, ix.Columns); err != nil {
			return err
		}
	}
	return nil
}

// String renders the schema in a SQL-like form, for logs and run.json.
func (t *Table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, c.Type)
	}
	b.WriteString(", PK(")
	for i, p := range t.PK {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(t.Columns[p].Name)
	}
	b.WriteString("))")
	return b.String()
}

// CopyRow deep-copies src into dst (reusing dst's storage when it can) and
// returns dst. Used by callers that keep rows past a callback.
func CopyRow(dst, src Row) Row {
	if cap(dst) < len(src) {
		dst = make(Row, len(src))
	}
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i].Int = v.Int
		dst[i].Bytes = append(dst[i].Bytes[:0], v.Bytes...)
	}
	return dst
}
