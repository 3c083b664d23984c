package kv

// The row operations shared by the autocommit paths (autocommit.go) and the
// Tx (tx.go).

import (
	"bytes"
	"context"
	"fmt"

	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/model"
)

// insert writes rows and their index entries to w. When the unique check
// left the PK keys and their order (c.pkDone), it writes the PK entries in
// key order and then each index's entries: the same writes, grouped, so the
// store's memtable inserts them one after another (a skiplist insert
// reuses the position of the one before) instead of jumping between the
// primary key's and each index's part of the keyspace on every row.
func (c *conn) insert(w Writer, st *tableState, rows []model.Row) error {
	ncols := len(st.schema.Columns)
	if c.pkDone {
		for _, i := range c.pkIdx {
			c.val = st.appendValue(c.val[:0], rows[i])
			if err := w.Set(c.pks.key(i), c.val); err != nil {
				return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
			}
		}
		for k := range st.ixs {
			for _, r := range rows {
				c.key = st.ixs[k].appendKey(c.key[:0], r)
				if err := w.Set(c.key, nil); err != nil {
					return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
				}
			}
		}
		return nil
	}
	for i, r := range rows {
		if len(r) != ncols {
			return fmt.Errorf("insert into %s: row %d has %d values, the table %d columns", st.schema.Name, i, len(r), ncols)
		}
		c.key = st.pk.appendKey(c.key[:0], r)
		c.val = st.appendValue(c.val[:0], r)
		if err := w.Set(c.key, c.val); err != nil {
			return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
		}
		for k := range st.ixs {
			c.key = st.ixs[k].appendKey(c.key[:0], r)
			if err := w.Set(c.key, nil); err != nil {
				return fmt.Errorf("insert into %s: %w", st.schema.Name, err)
			}
		}
	}
	return nil
}

func (c *conn) get(r Reader, st *tableState, keys []model.Row, fn func(model.Row)) (int, error) {
	c.rowsFor(st)
	pkCols := st.schema.PK
	found := 0
	for i, k := range keys {
		if len(k) != len(pkCols) {
			return found, fmt.Errorf("get from %s: key %d has %d values, the primary key %d columns", st.schema.Name, i, len(k), len(pkCols))
		}
		c.key = st.appendPKKey(c.key[:0], k)
		val, ok, err := r.Get(c.key, c.getBuf)
		c.getBuf = val[:0]
		if err != nil {
			return found, fmt.Errorf("get from %s: %w", st.schema.Name, err)
		}
		if !ok {
			continue
		}
		for j, p := range pkCols {
			c.row[p] = k[j]
		}
		if err := st.decodeValue(val, c.row); err != nil {
			return found, err
		}
		found++
		fn(c.row)
	}
	return found, nil
}

func (c *conn) scan(ctx context.Context, r Reader, st *tableState, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	ix, err := st.index(t, spec.Index)
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	if len(spec.Lower) > len(ix.proj) {
		return 0, fmt.Errorf("scan %s: lower bound has %d values, index %s %d columns", t.Name, len(spec.Lower), ix.name, len(ix.proj))
	}
	if spec.Limit < 0 {
		return 0, fmt.Errorf("scan %s: negative limit %d", t.Name, spec.Limit)
	}
	if err := ix.plan(&c.plan, spec.Cols); err != nil {
		return 0, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	lower, upper := ix.start, ix.end
	if spec.Upper != nil {
		if err := model.CheckRange(t, len(ix.proj), spec); err != nil {
			return 0, err
		}
		c.lo = append(c.lo[:0], ix.start...)
		c.hi = append(c.hi[:0], ix.start...)
		for i := range spec.Lower {
			c.lo = appendKeyValue(c.lo, ix.types[i], &spec.Lower[i])
			c.hi = appendKeyValue(c.hi, ix.types[i], &spec.Upper[i])
		}
		lower = c.lo
		// Every entry whose leading columns equal Upper starts with c.hi:
		// the end of that prefix range is the exclusive upper bound.
		var ok bool
		if c.scratch, ok = keyenc.PrefixEnd(c.scratch[:0], c.hi); ok && bytes.Compare(c.scratch, ix.end) < 0 {
			c.hi = append(c.hi[:0], c.scratch...)
			upper = c.hi
		}
		if bytes.Compare(lower, upper) >= 0 {
			return 0, nil // an empty range (Lower above Upper)
		}
	} else if len(spec.Lower) > 0 {
		c.lo = append(c.lo[:0], ix.start...)
		for i := range spec.Lower {
			c.lo = appendKeyValue(c.lo, ix.types[i], &spec.Lower[i])
		}
		if spec.Desc {
			// Every entry whose leading columns equal Lower starts with
			// c.lo: the end of that prefix range is the exclusive bound.
			var ok bool
			if c.hi, ok = keyenc.PrefixEnd(c.hi[:0], c.lo); ok && bytes.Compare(c.hi, ix.end) < 0 {
				upper = c.hi
			}
		} else {
			lower = c.lo
		}
	}
	it, err := r.NewIter(lower, upper)
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	if cap(c.proj) < len(ix.proj) {
		c.proj = make(model.Row, len(ix.proj))
	}
	out := c.proj[:len(ix.proj)]
	ix.clearProj(out)
	// A callback that reads no column (a count) leaves the keys unread.
	decode := !c.plan.none()
	n := 0
	var ok bool
	if spec.Desc {
		ok = it.Last()
	} else {
		ok = it.First()
	}
	for ok {
		if decode {
			if c.scratch, err = ix.decodeCols(it.Key(), out, &c.plan, c.scratch[:0]); err != nil {
				it.Close()
				return n, fmt.Errorf("scan %s: %w", t.Name, err)
			}
		}
		n++
		if !fn(out) || n == spec.Limit {
			break
		}
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				it.Close()
				return n, err
			}
		}
		if spec.Desc {
			ok = it.Prev()
		} else {
			ok = it.Next()
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return n, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	if err := it.Close(); err != nil {
		return n, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	return n, nil
}

// update applies changes to the row with primary key pk through rw.
func (c *conn) update(rw Txn, st *tableState, pk model.Row, changes []model.Change) (bool, error) {
	cols := st.schema.Columns
	for _, ch := range changes {
		if ch.Col < 0 || ch.Col >= len(cols) {
			return false, fmt.Errorf("change of column %d: the table has %d columns", ch.Col, len(cols))
		}
		for _, p := range st.schema.PK {
			if p == ch.Col {
				return false, fmt.Errorf("change of primary key column %s is not supported", cols[ch.Col].Name)
			}
		}
		switch ch.Op {
		case model.Set:
		case model.Add:
			if cols[ch.Col].Type == model.String {
				return false, fmt.Errorf("add to string column %s", cols[ch.Col].Name)
			}
		default:
			return false, fmt.Errorf("unknown change op %d", ch.Op)
		}
	}
	if len(pk) != len(st.schema.PK) {
		return false, fmt.Errorf("key has %d values, the primary key %d columns", len(pk), len(st.schema.PK))
	}
	if ok, err := c.readRow(rw, st, pk); err != nil || !ok {
		return false, err
	}
	copy(c.row2, c.row)
	for _, ch := range changes {
		if ch.Op == model.Add {
			c.row2[ch.Col].Int += ch.Value.Int
		} else {
			c.row2[ch.Col] = ch.Value
		}
	}
	if c.db.uniqueCheck {
		if err := c.checkUniqueUpdate(rw, st); err != nil {
			return false, err
		}
	}
	for i := range st.ixs {
		c.key2 = st.ixs[i].appendKey(c.key2[:0], c.row)
		c.val = st.ixs[i].appendKey(c.val[:0], c.row2)
		if bytes.Equal(c.key2, c.val) {
			continue
		}
		if err := rw.Delete(c.key2); err != nil {
			return false, err
		}
		if err := rw.Set(c.val, nil); err != nil {
			return false, err
		}
	}
	c.val = st.appendValue(c.val[:0], c.row2)
	if err := rw.Set(c.key, c.val); err != nil {
		return false, err
	}
	return true, nil
}

// readRow reads the row with primary key pk through rw (locking it for a
// write when rw is an UpdateTxn) into c.row, with c.key its PK key.
func (c *conn) readRow(rw Txn, st *tableState, pk model.Row) (bool, error) {
	c.rowsFor(st)
	c.key = st.appendPKKey(c.key[:0], pk)
	var val []byte
	var ok bool
	var err error
	if u, isU := rw.(UpdateTxn); isU {
		val, ok, err = u.GetForUpdate(c.key, c.getBuf)
	} else {
		val, ok, err = rw.Get(c.key, c.getBuf)
	}
	c.getBuf = val[:0]
	if err != nil || !ok {
		return false, err
	}
	for j, p := range st.schema.PK {
		c.row[p] = pk[j]
	}
	return true, st.decodeValue(val, c.row)
}

// del deletes the row with primary key pk and its index entries through rw.
func (c *conn) del(rw Txn, st *tableState, pk model.Row) (bool, error) {
	if len(pk) != len(st.schema.PK) {
		return false, fmt.Errorf("key has %d values, the primary key %d columns", len(pk), len(st.schema.PK))
	}
	if ok, err := c.readRow(rw, st, pk); err != nil || !ok {
		return false, err
	}
	for i := range st.ixs {
		c.key2 = st.ixs[i].appendKey(c.key2[:0], c.row)
		if err := rw.Delete(c.key2); err != nil {
			return false, err
		}
	}
	if err := rw.Delete(c.key); err != nil {
		return false, err
	}
	return true, nil
}

// upsert applies changes to the row with row's primary key through rw, or
// inserts row when there is none.
func (c *conn) upsert(rw Txn, st *tableState, row model.Row, changes []model.Change) error {
	if len(row) != len(st.schema.Columns) {
		return fmt.Errorf("row has %d values, the table %d columns", len(row), len(st.schema.Columns))
	}
	c.pkv = c.pkv[:0]
	for _, p := range st.schema.PK {
		c.pkv = append(c.pkv, row[p])
	}
	found, err := c.update(rw, st, c.pkv, changes)
	if err != nil || found {
		return err
	}
	c.one = append(c.one[:0], row)
	err = c.insert(rw, st, c.one)
	c.one[0] = nil // do not keep the caller's row reachable
	return err
}
