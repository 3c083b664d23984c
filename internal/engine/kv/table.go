package kv

import (
	"encoding/binary"
	"fmt"

	"rumbench/internal/engine/kv/keyenc"
	"rumbench/internal/model"
)

const (
	prefixLen  = 5 // table id + index id
	metaFormat = 1 // version of the JSON schema record
	// maxTableID keeps every table prefix strictly below the all-0xFF key,
	// so a table's key range always has an end.
	maxTableID = 1<<32 - 2
)

// indexState is a secondary index of a table (or, with id 0, the PK).
type indexState struct {
	name  string
	id    byte
	cols  []int        // index columns
	proj  []int        // covering projection: cols, then PK columns not in cols
	types []model.Type // types of proj
	// lead is how many of proj's first columns are Ints (or Times): their
	// encodings lie at fixed offsets, decodeKey reads them without parsing.
	lead  int
	built bool // false while CreateIndexes fills it
	// unique: no two entries share the values of cols (see unique.go).
	unique bool
	start  []byte // table id | index id
	end    []byte // first key after the index
}

// tableState is what the kv layer knows of a table. It is immutable once
// published; schema changes publish a new one.
type tableState struct {
	id     uint32
	schema *model.Table // as stored: Indexes lists built indexes only
	pk     indexState
	ixs    []indexState // built and building secondary indexes
	nonPK  []int        // columns stored in the PK entry's value
	// strVal tells, per nonPK column, whether it is a String: the value's
	// codec reads it here instead of from the schema's column.
	strVal []bool
	// tail bounds the table's primary keys for appending inserts
	// (pktail.go); shared by every state of the table.
	tail *pkTail
}

func tablePrefix(dst []byte, id uint32) []byte {
	return binary.BigEndian.AppendUint32(dst, id)
}

func newIndexState(tableID uint32, id byte, name string, cols []int, proj []int, t *model.Table, built bool) indexState {
	ix := indexState{name: name, id: id, cols: cols, proj: proj, built: built}
	for _, c := range proj {
		ix.types = append(ix.types, t.Columns[c].Type)
	}
	for ix.lead < len(ix.types) && ix.types[ix.lead] != model.String {
		ix.lead++
	}
	ix.start = append(tablePrefix(nil, tableID), id)
	ix.end, _ = keyenc.PrefixEnd(nil, ix.start)
	return ix
}

// newTableState compiles a stored schema. ids gives the index id of each of
// t.Indexes; building lists indexes still being filled (not in t.Indexes).
// tail is the table's earlier state's (nil: a table new to this DB).
func newTableState(id uint32, t *model.Table, ids []byte, building []model.Index, buildingIDs []byte, tail *pkTail) (*tableState, error) {
	if id == 0 || id > maxTableID {
		return nil, fmt.Errorf("table %s: bad table id %d", t.Name, id)
	}
	if len(ids) != len(t.Indexes) {
		return nil, fmt.Errorf("table %s: %d index ids for %d indexes", t.Name, len(ids), len(t.Indexes))
	}
	if tail == nil {
		tail = newPKTail()
	}
	st := &tableState{id: id, schema: t, tail: tail}
	st.pk = newIndexState(id, 0, "PRIMARY", t.PK, t.PK, t, true)
	isPK := make([]bool, len(t.Columns))
	for _, p := range t.PK {
		isPK[p] = true
	}
	for c := range t.Columns {
		if !isPK[c] {
			st.nonPK = append(st.nonPK, c)
			st.strVal = append(st.strVal, t.Columns[c].Type == model.String)
		}
	}
	for i, ix := range t.Indexes {
		st.ixs = append(st.ixs, newIndexState(id, ids[i], ix.Name, ix.Columns, t.IndexColumns(i), t, true))
		st.ixs[len(st.ixs)-1].unique = ix.Unique
	}
	if len(building) > 0 {
		all := *t
		all.Indexes = append(append([]model.Index(nil), t.Indexes...), building...)
		for i, ix := range building {
			st.ixs = append(st.ixs, newIndexState(id, buildingIDs[i], ix.Name, ix.Columns, all.IndexColumns(len(t.Indexes)+i), t, false))
			st.ixs[len(st.ixs)-1].unique = ix.Unique
		}
	}
	return st, nil
}

// index finds the built secondary index named like t.Indexes[i] of the
// caller's schema, or the PK for i < 0.
func (st *tableState) index(t *model.Table, i int) (*indexState, error) {
	if i < 0 {
		return &st.pk, nil
	}
	if i >= len(t.Indexes) {
		return nil, fmt.Errorf("table %s has no index %d", t.Name, i)
	}
	name := t.Indexes[i].Name
	for k := range st.ixs {
		if st.ixs[k].name == name {
			if !st.ixs[k].built {
				return nil, fmt.Errorf("index %s of table %s is still being built", name, t.Name)
			}
			return &st.ixs[k], nil
		}
	}
	return nil, fmt.Errorf("index %s of table %s has not been created (CreateIndexes)", name, t.Name)
}

func appendKeyValue(dst []byte, typ model.Type, v *model.Value) []byte {
	if typ == model.String {
		return keyenc.AppendString(dst, v.Bytes)
	}
	return keyenc.AppendInt(dst, v.Int)
}

// appendIndexKey appends the key of ix for a full row.
func (ix *indexState) appendKey(dst []byte, row model.Row) []byte {
	dst = append(dst, ix.start...)
	for i, c := range ix.proj {
		dst = appendKeyValue(dst, ix.types[i], &row[c])
	}
	return dst
}

// appendPKKey appends the PK entry key for pk values given in PK order.
func (st *tableState) appendPKKey(dst []byte, pk model.Row) []byte {
	dst = append(dst, st.pk.start...)
	for i := range st.pk.proj {
		dst = appendKeyValue(dst, st.pk.types[i], &pk[i])
	}
	return dst
}

// appendPKBound appends the smallest PK entry key at or above from, a
// prefix of the PK values in PK order (empty: the table's first key).
func (st *tableState) appendPKBound(dst []byte, from model.Row) ([]byte, error) {
	if len(from) > len(st.pk.proj) {
		return dst, fmt.Errorf("lower bound has %d values, the primary key %d columns", len(from), len(st.pk.proj))
	}
	dst = append(dst, st.pk.start...)
	for i := range from {
		dst = appendKeyValue(dst, st.pk.types[i], &from[i])
	}
	return dst, nil
}

// appendValue appends the PK entry value of a full row.
func (st *tableState) appendValue(dst []byte, row model.Row) []byte {
	str := st.strVal[:len(st.nonPK)]
	for i, c := range st.nonPK {
		v := &row[c]
		if str[i] {
			dst = binary.AppendUvarint(dst, uint64(len(v.Bytes)))
			dst = append(dst, v.Bytes...)
		} else {
			dst = binary.AppendVarint(dst, v.Int)
		}
	}
	return dst
}

// decodeValue fills the non-PK columns of row from a PK entry value. String
// values alias val.
func (st *tableState) decodeValue(val []byte, row model.Row) error {
	str := st.strVal[:len(st.nonPK)]
	for i, c := range st.nonPK {
		// binary.Uvarint, with the one-byte case (small ids, string
		// lengths) first.
		var u uint64
		n := 1
		if len(val) > 0 && val[0] < 0x80 {
			u = uint64(val[0])
		} else {
			u, n = binary.Uvarint(val)
		}
		if n <= 0 {
			return st.corruptValue(c)
		}
		val = val[n:]
		if str[i] {
			if uint64(len(val)) < u {
				return st.corruptValue(c)
			}
			row[c] = model.Value{Bytes: val[:u:u]}
			val = val[u:]
			continue
		}
		// binary.Varint's zig-zag decoding, on the uvarint read above.
		x := int64(u >> 1)
		if u&1 != 0 {
			x = ^x
		}
		// The row is reused from row to row (a Get's, a scan's), so its
		// Int columns' Bytes are nil already: set the Int alone, which
		// spares a pointer write (and its write barrier while the
		// collector runs) per column.
		if row[c].Bytes != nil {
			row[c].Bytes = nil
		}
		row[c].Int = x
	}
	return nil
}

func (st *tableState) corruptValue(c int) error {
	return fmt.Errorf("table %s: corrupt value of column %s", st.schema.Name, st.schema.Columns[c].Name)
}

// decodeKey decodes the columns of an index (or PK) key into out, one value
// per ix.proj entry, or into the positions of a full row when full is set.
// Strings alias key unless they hold 0x00 bytes, which are unescaped into
// scratch; the grown scratch is returned. It runs once per entry of every
// scan, so the leading Int columns (all of them in most indexes) are read
// at their fixed offsets after one length check.
func (ix *indexState) decodeKey(key []byte, out model.Row, full bool, scratch []byte) ([]byte, error) {
	if len(key) < prefixLen+keyenc.IntLen*ix.lead {
		return scratch, fmt.Errorf("index %s: key of %d bytes is too short", ix.name, len(key))
	}
	src := key[prefixLen:]
	lead := src[:keyenc.IntLen*ix.lead]
	if full {
		for i, c := range ix.proj[:ix.lead] {
			out[c] = model.Value{Int: int64(binary.BigEndian.Uint64(lead[i*keyenc.IntLen:]) ^ (1 << 63))}
		}
	} else {
		dst := out[:ix.lead]
		for i := range dst {
			dst[i] = model.Value{Int: int64(binary.BigEndian.Uint64(lead[i*keyenc.IntLen:]) ^ (1 << 63))}
		}
	}
	src = src[len(lead):]
	for i := ix.lead; i < len(ix.types); i++ {
		pos := i
		if full {
			pos = ix.proj[i]
		}
		var err error
		if ix.types[i] == model.String {
			var s []byte
			s, src, scratch, err = keyenc.DecodeString(scratch, src)
			out[pos] = model.Value{Bytes: s}
		} else {
			var v int64
			v, src, err = keyenc.DecodeInt(src)
			out[pos] = model.Value{Int: v}
		}
		if err != nil {
			return scratch, fmt.Errorf("index %s: column %d: %w", ix.name, i, err)
		}
	}
	return scratch, nil
}

// decodeProj is decodeKey into the projection out (len(ix.proj) values),
// for scans: of an Int column it writes only Int, so out's Int columns must
// hold no Bytes (clearProj, once per scan). Strings alias key unless they
// hold 0x00 bytes, which are unescaped into scratch; the grown scratch is
// returned.
func (ix *indexState) decodeProj(key []byte, out model.Row, scratch []byte) ([]byte, error) {
	if len(key) < prefixLen+keyenc.IntLen*ix.lead {
		return scratch, fmt.Errorf("index %s: key of %d bytes is too short", ix.name, len(key))
	}
	out = out[:len(ix.types)]
	src := key[prefixLen:]
	for i := range out[:ix.lead] {
		out[i].Int = int64(binary.BigEndian.Uint64(src) ^ (1 << 63))
		src = src[keyenc.IntLen:]
	}
	for i := ix.lead; i < len(ix.types); i++ {
		var err error
		if ix.types[i] == model.String {
			out[i].Bytes, src, scratch, err = keyenc.DecodeString(scratch, src)
		} else {
			out[i].Int, src, err = keyenc.DecodeInt(src)
		}
		if err != nil {
			return scratch, fmt.Errorf("index %s: column %d: %w", ix.name, i, err)
		}
	}
	return scratch, nil
}

// clearProj readies out (len(ix.proj) values) for decodeProj.
func (ix *indexState) clearProj(out model.Row) {
	clear(out)
}

// colPlan is what a scan decodes of each entry (model.ScanSpec.Cols): the
// wanted leading Ints, read at their fixed offsets, and the positions up to
// tail decoded in order past them (the wanted ones decoded, the others
// skipped). A plan with nothing to decode leaves the entries' keys unread.
type colPlan struct {
	all  bool   // every column (Cols nil): decodeProj
	ints []int  // wanted positions among the leading Ints
	tail int    // positions lead..tail-1 are walked; 0: none
	want uint64 // bit i: position i (of those walked) is wanted
}

// none reports whether the plan decodes nothing.
func (p *colPlan) none() bool { return !p.all && len(p.ints) == 0 && p.tail == 0 }

// plan fills p for a scan of ix whose callback reads cols (nil: all of
// them), reusing p's buffer. A position outside the projection is an error.
func (ix *indexState) plan(p *colPlan, cols []int) error {
	p.all, p.ints, p.tail, p.want = cols == nil, p.ints[:0], 0, 0
	if p.all {
		return nil
	}
	for _, c := range cols {
		if c < 0 || c >= len(ix.proj) {
			return fmt.Errorf("column %d of index %s's projection: it has %d", c, ix.name, len(ix.proj))
		}
		if c >= 64 {
			// Beyond the mask (no table of the workloads has such an index):
			// decode it all.
			p.all = true
			return nil
		}
		if p.want&(1<<c) != 0 {
			continue
		}
		p.want |= 1 << c
		if c < ix.lead {
			p.ints = append(p.ints, c)
		} else {
			p.tail = max(p.tail, c+1)
		}
	}
	return nil
}

// decodeCols decodes into out (len(ix.proj) values, cleared once per scan
// by clearProj) the columns of key that p wants, each once; the others keep
// what they held. Strings alias key unless they hold 0x00 bytes, which are
// unescaped into scratch; the grown scratch is returned.
func (ix *indexState) decodeCols(key []byte, out model.Row, p *colPlan, scratch []byte) ([]byte, error) {
	if p.all {
		return ix.decodeProj(key, out, scratch)
	}
	if len(key) < prefixLen+keyenc.IntLen*ix.lead {
		return scratch, fmt.Errorf("index %s: key of %d bytes is too short", ix.name, len(key))
	}
	src := key[prefixLen:]
	for _, i := range p.ints {
		out[i].Int = int64(binary.BigEndian.Uint64(src[i*keyenc.IntLen:]) ^ (1 << 63))
	}
	if p.tail == 0 {
		return scratch, nil
	}
	src = src[keyenc.IntLen*ix.lead:]
	for i := ix.lead; i < p.tail; i++ {
		var err error
		want := p.want&(1<<i) != 0
		switch {
		case ix.types[i] != model.String && want:
			out[i].Int, src, err = keyenc.DecodeInt(src)
		case ix.types[i] != model.String:
			if len(src) < keyenc.IntLen {
				err = fmt.Errorf("%w: int needs %d bytes, have %d", keyenc.ErrCorrupt, keyenc.IntLen, len(src))
			} else {
				src = src[keyenc.IntLen:]
			}
		case want:
			out[i].Bytes, src, scratch, err = keyenc.DecodeString(scratch, src)
		default:
			src, err = keyenc.SkipString(src)
		}
		if err != nil {
			return scratch, fmt.Errorf("index %s: column %d: %w", ix.name, i, err)
		}
	}
	return scratch, nil
}
