// Package verify checks that every secondary index of every table holds
// exactly the entries its primary key rows imply.
package verify

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"sort"

	"rumbench/internal/model"
)

// IndexResult is one index's check.
type IndexResult struct {
	Table   string `json:"table"`
	Index   string `json:"index"`
	PKRows  int64  `json:"pk_rows"`
	Entries int64  `json:"entries"`
	// Consistent is true when the index has the same count and the same
	// multiset of (index columns, PK) tuples as derived from the PK rows
	// and, for a unique index, no two entries with the same index columns.
	Consistent bool `json:"consistent"`
	Unique     bool `json:"unique,omitempty"`
	// Duplicates counts entries of a unique index whose index columns equal
	// the previous entry's (in index order).
	Duplicates int64 `json:"duplicates,omitempty"`
}

// Result is the check of a whole database.
type Result struct {
	Tables  int           `json:"tables"`
	Indexes []IndexResult `json:"indexes"`
	OK      bool          `json:"ok"`
}

// Run checks every table db reports. Tuples are compared as a multiset
// through an order-independent sum of 64-bit hashes, so memory stays flat for
// any table size.
func Run(ctx context.Context, db model.DB) (*Result, error) {
	tables, err := db.Tables(ctx)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	// Rows are fetched on a second connection while the first one streams the
	// PK scan: most drivers cannot run two statements on one connection.
	getConn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer getConn.Close()
	res := &Result{Tables: len(tables), OK: true}
	seed := maphash.MakeSeed()
	for _, t := range tables {
		n := len(t.Indexes)
		want := make([]uint64, n)
		cols := make([][]int, n)
		for i := range t.Indexes {
			cols[i] = t.IndexColumns(i)
		}
		var pkRows int64
		var h maphash.Hash
		h.SetSeed(seed)
		// A full row scan: the PK projection is only the key, so fetch
		// each row through Get in chunks to see every column.
		keys := make([]model.Row, 0, 256)
		flush := func() error {
			if len(keys) == 0 {
				return nil
			}
			_, err := getConn.Get(ctx, t, keys, func(r model.Row) {
				for i := range cols {
					want[i] += tupleHash(&h, t, r, cols[i], nil)
				}
			})
			keys = keys[:0]
			return err
		}
		var scanErr error
		_, err := conn.Scan(ctx, t, model.ScanSpec{Index: -1}, func(r model.Row) bool {
			pkRows++
			keys = append(keys, model.CopyRow(nil, r))
			if len(keys) == cap(keys) {
				if scanErr = flush(); scanErr != nil {
					return false
				}
			}
			return true
		})
		if err == nil {
			err = scanErr
		}
		if err == nil {
			err = flush()
		}
		if err != nil {
			return nil, fmt.Errorf("scan %s by primary key: %w", t.Name, err)
		}
		for i, ix := range t.Indexes {
			var got uint64
			var entries int64
			pos := make([]int, len(cols[i]))
			for k := range pos {
				pos[k] = k
			}
			var dups int64
			var prev model.Row
			nu := len(ix.Columns)
			_, err := conn.Scan(ctx, t, model.ScanSpec{Index: i}, func(r model.Row) bool {
				entries++
				got += tupleHash(&h, t, r, pos, cols[i])
				if ix.Unique {
					if prev != nil && sameValues(prev, r[:nu]) {
						dups++
					}
					prev = model.CopyRow(prev, r[:nu])
				}
				return true
			})
			if err != nil {
				return nil, fmt.Errorf("scan %s index %s: %w", t.Name, ix.Name, err)
			}
			ok := entries == pkRows && got == want[i] && dups == 0
			res.OK = res.OK && ok
			res.Indexes = append(res.Indexes, IndexResult{Table: t.Name, Index: ix.Name, PKRows: pkRows, Entries: entries, Consistent: ok,
				Unique: ix.Unique, Duplicates: dups})
		}
		if n == 0 {
			res.Indexes = append(res.Indexes, IndexResult{Table: t.Name, Index: "(primary key only)", PKRows: pkRows, Entries: pkRows, Consistent: true})
		}
	}
	return res, nil
}

// tupleHash hashes the values r[pos[k]] for each k, typed by the table
// columns colOf[k] (or pos[k] when colOf is nil).
func tupleHash(h *maphash.Hash, t *model.Table, r model.Row, pos, colOf []int) uint64 {
	h.Reset()
	var buf [8]byte
	for k, p := range pos {
		c := p
		if colOf != nil {
			c = colOf[k]
		}
		v := r[p]
		if t.Columns[c].Type == model.String {
			n := len(v.Bytes)
			for i := range buf {
				buf[i] = byte(n >> (8 * i))
			}
			h.Write(buf[:])
			h.Write(v.Bytes)
			continue
		}
		for i := range buf {
			buf[i] = byte(v.Int >> (8 * i))
		}
		h.Write(buf[:])
	}
	return h.Sum64()
}

// sameValues reports whether two rows hold equal values (ints and bytes).
func sameValues(a, b model.Row) bool {
	for k := range a {
		if a[k].Int != b[k].Int || !bytes.Equal(a[k].Bytes, b[k].Bytes) {
			return false
		}
	}
	return true
}
