package kv

import (
	"bytes"
	"fmt"
	"strings"

	"rumbench/internal/model"
)

// pkKeys checks the rows' lengths, collects their PK entry keys in c.pks and
// their order in c.pkIdx (c.pks.key(c.pkIdx[0]) is the smallest), notes
// whether the rows' keys are strictly ascending (c.pkAscending), and fails
// if a key is there twice.
func (c *conn) pkKeys(st *tableState, rows []model.Row) error {
	ncols := len(st.schema.Columns)
	c.pks.reset()
	c.pkIdx = c.pkIdx[:0]
	sorted := true
	for i, r := range rows {
		if len(r) != ncols {
			return fmt.Errorf("insert into %s: row %d has %d values, the table %d columns", st.schema.Name, i, len(r), ncols)
		}
		c.pks.add(st.pk.appendKey(c.pks.buf, r))
		c.pkIdx = append(c.pkIdx, i)
		if i > 0 && bytes.Compare(c.pks.key(i-1), c.pks.key(i)) >= 0 {
			sorted = false
		}
	}
	c.pkAscending = sorted
	if sorted {
		return nil // strictly ascending (ibench's batches): no duplicate
	}
	c.pkSort = sortKeys(&c.pks, c.pkSort, c.pkIdx)
	for i := 1; i < len(c.pkIdx); i++ {
		if bytes.Equal(c.pks.key(c.pkIdx[i-1]), c.pks.key(c.pkIdx[i])) {
			return c.duplicate(st, rows[c.pkIdx[i]], "twice in the batch")
		}
	}
	return nil
}

// checkUnique fails if the PK of a row (keys in c.pks, order in c.pkIdx)
// is already in r. It merges the batch's keys, in order, with the stored
// keys of the range they span, read by one iterator: a key below the
// iterator's position is absent without a read of its own. The iterator
// steps (Next) over a few stored keys and seeks past longer runs, so a
// batch of new keys costs one seek per run of it that no stored key
// interleaves: one for ibench's increasing keys, a few for a LinkBench load
// batch (keys lead with the link type; the one node whose links straddle
// two batches interleaves with the earlier batch), instead of a point read
// per row, the kv layer's largest cost next to the store's own writes.
// When the batch's keys are scattered among many stored ones (the seeks
// reach an eighth of the batch's keys), the rest are read with point
// reads, which an LSM answers from its bloom filters. Every key is checked either way.
func (c *conn) checkUnique(r Reader, st *tableState, rows []model.Row) error {
	n := c.pks.len()
	next := 0 // c.pkIdx[next:] are not checked yet
	if n > 1 {
		var err error
		if next, err = c.walkUnique(r, st, rows); err != nil {
			return err
		}
	}
	for ; next < n; next++ {
		i := c.pkIdx[next]
		val, found, err := r.Get(c.pks.key(i), c.getBuf)
		c.getBuf = val[:0]
		if err != nil {
			return fmt.Errorf("insert into %s: unique check: %w", st.schema.Name, err)
		}
		if found {
			return c.duplicate(st, rows[i], "already in the table")
		}
	}
	return nil
}

// walkSteps is how many stored keys the unique check's iterator steps over
// before it seeks instead.
const walkSteps = 4

// walkUnique is checkUnique's ordered walk; it returns how many keys (in
// c.pkIdx order) it checked: all, unless it gave up on seeking.
func (c *conn) walkUnique(r Reader, st *tableState, rows []model.Row) (int, error) {
	n := c.pks.len()
	key := func(j int) []byte { return c.pks.key(c.pkIdx[j]) }
	c.upper = append(append(c.upper[:0], key(n-1)...), 0) // just past the largest
	it, err := r.NewIter(key(0), c.upper)
	if err != nil {
		return 0, fmt.Errorf("insert into %s: unique check: %w", st.schema.Name, err)
	}
	j, seeks, steps, dup := 0, 0, 0, -1
	ok := it.First()
	for j < n {
		if !ok {
			if it.Error() == nil {
				j = n // no stored key at or above key(j): the rest are new
			}
			break
		}
		cmp := bytes.Compare(key(j), it.Key())
		if cmp == 0 {
			dup = c.pkIdx[j]
			break
		}
		if cmp < 0 { // key(j) is not stored
			j++
			steps = 0
			continue
		}
		if steps < walkSteps {
			ok = it.Next()
			steps++
			continue
		}
		if seeks >= max(8, n/8) {
			break // the batch is scattered among stored keys: point reads
		}
		ok = it.SeekGE(key(j))
		seeks++
		steps = 0
	}
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("insert into %s: unique check: %w", st.schema.Name, err)
	}
	if dup >= 0 {
		return 0, c.duplicate(st, rows[dup], "already in the table")
	}
	return j, nil
}

// duplicate is the error of an insert of row, whose PK is a duplicate.
func (c *conn) duplicate(st *tableState, row model.Row, where string) error {
	var b strings.Builder
	for i, p := range st.schema.PK {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=", st.schema.Columns[p].Name)
		if st.schema.Columns[p].Type == model.String {
			fmt.Fprintf(&b, "%q", row[p].Bytes)
		} else {
			fmt.Fprintf(&b, "%d", row[p].Int)
		}
	}
	return fmt.Errorf("insert into %s: %w (%s) %s", st.schema.Name, model.ErrDuplicateKey, b.String(), where)
}

// pkRange is the smallest and largest of the keys pkKeys collected.
func (c *conn) pkRange() (lo, hi []byte) {
	return c.pks.key(c.pkIdx[0]), c.pks.key(c.pkIdx[len(c.pkIdx)-1])
}
