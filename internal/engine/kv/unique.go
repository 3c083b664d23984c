package kv

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/model"
)

// Unique secondary indexes. An entry's key is still (index columns, PK
// columns not in them), as for any index; uniqueness is over the index
// columns, the entry's "unique prefix". With the unique check on
// (unique_check, as for the primary key) Insert reads the prefix of every
// row before writing: a point Get of the whole entry key when the index
// columns include the primary key (the prefix is then the whole key, and an
// LSM answers a new key from its bloom filters, as MyRocks does for such a
// key), otherwise a bounded iterator over the prefix. That read is the cost
// a unique index adds to every insert, on a B-tree and on an LSM.

// hasUnique reports whether st has a unique secondary index (built or
// being built).
func (st *tableState) hasUnique() bool {
	for i := range st.ixs {
		if st.ixs[i].unique {
			return true
		}
	}
	return false
}

// appendUniquePrefix appends ix's unique prefix of a full row: the index
// id and the index columns' values.
func (ix *indexState) appendUniquePrefix(dst []byte, row model.Row) []byte {
	dst = append(dst, ix.start...)
	for i := range ix.cols {
		dst = appendKeyValue(dst, ix.types[i], &row[ix.cols[i]])
	}
	return dst
}

// prefixIsKey reports whether the unique prefix is the whole entry key
// (the index columns include every PK column).
func (ix *indexState) prefixIsKey() bool { return len(ix.cols) == len(ix.proj) }

// uniquePrefixLen is the length of the unique prefix of an entry key of ix.
func (ix *indexState) uniquePrefixLen(key []byte) (int, error) {
	if len(key) < prefixLen {
		return 0, fmt.Errorf("index %s: key of %d bytes is too short", ix.name, len(key))
	}
	src := key[prefixLen:]
	var err error
	for i := range ix.cols {
		if ix.types[i] == model.String {
			src, err = keyenc.SkipString(src)
		} else {
			_, src, err = keyenc.DecodeInt(src)
		}
		if err != nil {
			return 0, fmt.Errorf("index %s: column %d: %w", ix.name, i, err)
		}
	}
	return len(key) - len(src), nil
}

// uniqueKeys collects the unique prefixes of rows for every unique index
// of st in c.uqs (row-major: row r, then its indexes in st.ixs order) and
// fails if one is there twice; it fills c.uqLocks with their lock hashes,
// sorted and without repeats.
func (c *conn) uniqueKeys(st *tableState, rows []model.Row) error {
	c.uqs.reset()
	c.uqLocks = c.uqLocks[:0]
	c.uqIdx = c.uqIdx[:0]
	for _, r := range rows {
		for k := range st.ixs {
			if !st.ixs[k].unique {
				continue
			}
			c.uqs.add(st.ixs[k].appendUniquePrefix(c.uqs.buf, r))
			c.uqLocks = append(c.uqLocks, lockHash(c.uqs.key(c.uqs.len()-1)))
			c.uqIdx = append(c.uqIdx, c.uqs.len()-1)
		}
	}
	c.uqLocks = sortHashes(c.uqLocks)
	slices.SortFunc(c.uqIdx, func(a, b int) int { return bytes.Compare(c.uqs.key(a), c.uqs.key(b)) })
	for i := 1; i < len(c.uqIdx); i++ {
		if bytes.Equal(c.uqs.key(c.uqIdx[i-1]), c.uqs.key(c.uqIdx[i])) {
			perRow := c.uqs.len() / len(rows)
			return c.uniqueDuplicate(st, rows[c.uqIdx[i]/perRow], c.uqIdx[i]%perRow, "twice in the batch")
		}
	}
	return nil
}

// checkUniqueIndexes fails if a unique prefix in c.uqs (from uniqueKeys)
// is already in r.
func (c *conn) checkUniqueIndexes(r Reader, st *tableState, rows []model.Row) error {
	if c.uqs.len() == 0 {
		return nil
	}
	perRow := c.uqs.len() / len(rows)
	for i := 0; i < c.uqs.len(); i++ {
		ix := st.uniqueIndex(i % perRow)
		found, err := c.uniqueExists(r, ix, c.uqs.key(i))
		if err != nil {
			return fmt.Errorf("insert into %s: unique check of %s: %w", st.schema.Name, ix.name, err)
		}
		if found {
			return c.uniqueDuplicate(st, rows[i/perRow], i%perRow, "already in the table")
		}
	}
	return nil
}

// uniqueIndex returns st's n-th unique secondary index.
func (st *tableState) uniqueIndex(n int) *indexState {
	for k := range st.ixs {
		if st.ixs[k].unique {
			if n == 0 {
				return &st.ixs[k]
			}
			n--
		}
	}
	return nil
}

// uniqueExists reports whether r has an entry of ix with unique prefix p.
func (c *conn) uniqueExists(r Reader, ix *indexState, p []byte) (bool, error) {
	if ix.prefixIsKey() {
		val, found, err := r.Get(p, c.getBuf)
		c.getBuf = val[:0]
		return found, err
	}
	var ok bool
	c.hi, ok = keyenc.PrefixEnd(c.hi[:0], p)
	upper := ix.end
	if ok && bytes.Compare(c.hi, ix.end) < 0 {
		upper = c.hi
	}
	it, err := r.NewIter(p, upper)
	if err != nil {
		return false, err
	}
	found := it.First()
	if err := it.Error(); err != nil {
		it.Close()
		return false, err
	}
	return found, it.Close()
}

// checkUniqueUpdate fails if the update of c.row to c.row2 changes the
// prefix of a unique index to one another row has. (It takes no lock of its
// own: an Insert of the same values racing with it may both succeed on
// stores without transactions; no workload updates a unique index.)
func (c *conn) checkUniqueUpdate(r Reader, st *tableState) error {
	n := 0
	for k := range st.ixs {
		ix := &st.ixs[k]
		if !ix.unique {
			continue
		}
		c.key2 = ix.appendUniquePrefix(c.key2[:0], c.row)
		c.val = ix.appendUniquePrefix(c.val[:0], c.row2)
		if !bytes.Equal(c.key2, c.val) {
			found, err := c.uniqueExists(r, ix, c.val)
			if err != nil {
				return fmt.Errorf("unique check of %s: %w", ix.name, err)
			}
			if found {
				return c.uniqueDuplicate(st, c.row2, n, "already in the table")
			}
		}
		n++
	}
	return nil
}

// uniqueDuplicate is the error of an insert of row whose n-th unique
// index's prefix is a duplicate.
func (c *conn) uniqueDuplicate(st *tableState, row model.Row, n int, where string) error {
	ix := st.uniqueIndex(n)
	var b strings.Builder
	for i, col := range ix.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=", st.schema.Columns[col].Name)
		if st.schema.Columns[col].Type == model.String {
			fmt.Fprintf(&b, "%q", row[col].Bytes)
		} else {
			fmt.Fprintf(&b, "%d", row[col].Int)
		}
	}
	return fmt.Errorf("insert into %s: %w in unique index %s (%s) %s", st.schema.Name, model.ErrDuplicateKey, ix.name, b.String(), where)
}

// checkUniqueBuilt fails if a newly built unique index of ixs holds two
// entries with one unique prefix. It runs under the exclusive transaction
// lock, after the build copied every row: writers that ran during the build
// checked the (partial) index, so this scan finds what they could not.
// An index whose prefix is the whole key cannot hold a duplicate.
func (d *DB) checkUniqueBuilt(ixs []indexState) error {
	for i := range ixs {
		ix := &ixs[i]
		if !ix.unique || ix.prefixIsKey() {
			continue
		}
		if err := d.scanUnique(ix); err != nil {
			return err
		}
	}
	return nil
}

func (d *DB) scanUnique(ix *indexState) error {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	v, err := d.store.NewView()
	if err != nil {
		return err
	}
	defer v.Close()
	it, err := v.NewIter(ix.start, ix.end)
	if err != nil {
		return err
	}
	var prev []byte
	for ok := it.First(); ok; ok = it.Next() {
		n, err := ix.uniquePrefixLen(it.Key())
		if err != nil {
			it.Close()
			return err
		}
		p := it.Key()[:n]
		if prev != nil && bytes.Equal(prev, p) {
			it.Close()
			return fmt.Errorf("%w: unique index %s has two rows with the same %d-column prefix", model.ErrDuplicateKey, ix.name, len(ix.cols))
		}
		prev = append(prev[:0], p...)
	}
	if err := it.Error(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}
