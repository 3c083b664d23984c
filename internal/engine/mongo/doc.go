package mongo

import (
	"errors"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"rumbench/internal/model"
)

// Rows as documents. A row is one document: _id holds the primary key (the
// value itself for a one-column key such as transactionid, an embedded
// document {c1: v1, c2: v2} in key order for a compound key), every other
// column is a top-level field named after it. Int and Time columns are
// int64 (Time as Unix seconds, so values round-trip exactly and compare as
// the other engines compare them); String columns are binary (subtype 0),
// which keeps any bytes exact and costs no UTF-8 validation.
//
// Documents, filters and updates are built with bsoncore into buffers a Conn
// reuses, and results are decoded from the cursor's raw bytes, so the client
// adds no per-row allocations of its own to the driver's.

// meta maps one table's columns to document fields.
type meta struct {
	t      *model.Table
	ncols  int
	nidx   int
	single bool     // one-column primary key: _id is its value
	isPK   []bool   // per column
	field  []string // per column: "_id", "_id.<name>" (compound key) or the name
	// byName maps a top-level field to its column; pkByName an _id
	// subfield (compound keys) to its column.
	byName   map[string]int
	pkByName map[string]int
	pk       *shape   // the primary key "index"
	idx      []*shape // secondary indexes, built on first use
	full     *decoder // all columns, for Get
}

// shape is what a scan of one index needs: the covering columns, the key
// paths in order, and the sort/projection documents.
type shape struct {
	cols      []int    // t.IndexColumns(i), the covering row's columns
	keyFields []string // index key paths: the columns' fields, then _id
	bound     []string // path of each covering column, for range bounds
	sortAsc   bson.Raw
	sortDesc  bson.Raw
	proj      bson.Raw
	hint      string
	dec       *decoder
}

func newMeta(t *model.Table) *meta {
	m := &meta{
		t: t, ncols: len(t.Columns), nidx: len(t.Indexes), single: len(t.PK) == 1,
		isPK: make([]bool, len(t.Columns)), field: make([]string, len(t.Columns)),
		byName: map[string]int{}, pkByName: map[string]int{},
		idx: make([]*shape, len(t.Indexes)),
	}
	for _, p := range t.PK {
		m.isPK[p] = true
	}
	for i, c := range t.Columns {
		switch {
		case m.isPK[i] && m.single:
			m.field[i] = "_id"
		case m.isPK[i]:
			m.field[i] = "_id." + c.Name
			m.pkByName[c.Name] = i
		default:
			m.field[i] = c.Name
			m.byName[c.Name] = i
		}
	}
	all := make([]int, len(t.Columns))
	for i := range all {
		all[i] = i
	}
	m.full = newDecoder(m, all)
	m.pk = m.newShape(-1)
	return m
}

// index returns the shape of index i (-1: the primary key).
func (m *meta) index(i int) *shape {
	if i < 0 {
		return m.pk
	}
	if m.idx[i] == nil {
		m.idx[i] = m.newShape(i)
	}
	return m.idx[i]
}

func (m *meta) newShape(i int) *shape {
	s := &shape{cols: m.t.IndexColumns(i)}
	for _, c := range s.cols {
		s.bound = append(s.bound, m.field[c])
	}
	if i < 0 {
		s.keyFields = []string{"_id"}
		s.hint = "_id_"
	} else {
		hasID := false
		for _, c := range m.t.Indexes[i].Columns {
			s.keyFields = append(s.keyFields, m.field[c])
			hasID = hasID || m.field[c] == "_id"
		}
		if !hasID {
			s.keyFields = append(s.keyFields, "_id")
		}
		s.hint = m.t.Indexes[i].Name
	}
	s.sortAsc = keyDoc(s.keyFields, 1)
	s.sortDesc = keyDoc(s.keyFields, -1)
	// The projection names top-level fields only: _id covers a compound
	// key's subfields (naming both _id and _id.x is a path collision).
	var proj []string
	seen := map[string]bool{}
	for _, c := range s.cols {
		f := m.field[c]
		if m.isPK[c] {
			f = "_id"
		}
		if !seen[f] {
			seen[f] = true
			proj = append(proj, f)
		}
	}
	if !seen["_id"] {
		proj = append(proj, "_id")
	}
	s.proj = keyDoc(proj, 1)
	s.dec = newDecoder(m, s.cols)
	return s
}

// keyDoc is {f1: v, f2: v, ...} in order.
func keyDoc(fields []string, v int32) bson.Raw {
	idx, b := bsoncore.AppendDocumentStart(nil)
	for _, f := range fields {
		b = bsoncore.AppendInt32Element(b, f, v)
	}
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return bson.Raw(b)
}

// arrayKeys are the element names of BSON arrays ("0", "1", ...), made once.
var arrayKeys = func() []string {
	k := make([]string, 1024)
	for i := range k {
		k[i] = strconv.Itoa(i)
	}
	return k
}()

func arrayKey(i int) string {
	if i < len(arrayKeys) {
		return arrayKeys[i]
	}
	return strconv.Itoa(i)
}

// appendValue appends column value v of type typ as element key.
func appendValue(dst []byte, key string, typ model.Type, v model.Value) []byte {
	if typ == model.String {
		return bsoncore.AppendBinaryElement(dst, key, 0, v.Bytes)
	}
	return bsoncore.AppendInt64Element(dst, key, v.Int)
}

// appendID appends the _id element (under key) of a row whose primary key
// values are pk(j) for j over the key's columns.
func (m *meta) appendID(dst []byte, key string, pk func(j int) model.Value) []byte {
	t := m.t
	if m.single {
		return appendValue(dst, key, t.Columns[t.PK[0]].Type, pk(0))
	}
	idx, dst := bsoncore.AppendDocumentElementStart(dst, key)
	for j, c := range t.PK {
		dst = appendValue(dst, t.Columns[c].Name, t.Columns[c].Type, pk(j))
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendRow appends row r as a document.
func (m *meta) appendRow(dst []byte, r model.Row) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = m.appendID(dst, "_id", func(j int) model.Value { return r[m.t.PK[j]] })
	for i, c := range m.t.Columns {
		if !m.isPK[i] {
			dst = appendValue(dst, c.Name, c.Type, r[i])
		}
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// decoder turns documents into rows of the given columns, in a reused row.
type decoder struct {
	m      *meta
	cols   []int
	outPos []int // per table column: position in cols, or -1
	row    model.Row
	seen   []bool
}

func newDecoder(m *meta, cols []int) *decoder {
	d := &decoder{m: m, cols: cols, outPos: make([]int, m.ncols), row: make(model.Row, len(cols)), seen: make([]bool, len(cols))}
	for i := range d.outPos {
		d.outPos[i] = -1
	}
	for j, c := range cols {
		d.outPos[c] = j
	}
	return d
}

// decode reads doc into the decoder's row, valid until the next call (String
// values point into doc).
func (d *decoder) decode(doc []byte) (model.Row, error) {
	clear(d.seen)
	if err := d.fields(doc, false); err != nil {
		return nil, err
	}
	for j, ok := range d.seen {
		if !ok {
			return nil, fmt.Errorf("document %s has no field %s", shortDoc(doc), d.m.field[d.cols[j]])
		}
	}
	return d.row, nil
}

func (d *decoder) fields(doc []byte, inID bool) error {
	if len(doc) < 5 {
		return errors.New("short document")
	}
	rem := doc[4 : len(doc)-1]
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return fmt.Errorf("malformed document %s", shortDoc(doc))
		}
		rem = rest
		key := el.KeyBytes()
		val := el.Value()
		col := -1
		switch {
		case inID:
			if c, ok := d.m.pkByName[string(key)]; ok {
				col = c
			}
		case string(key) == "_id" && d.m.single:
			col = d.m.t.PK[0]
		case string(key) == "_id":
			sub, ok := val.DocumentOK()
			if !ok {
				return fmt.Errorf("_id of %s is a %s, want a document (compound primary key)", shortDoc(doc), val.Type)
			}
			if err := d.fields(sub, true); err != nil {
				return err
			}
			continue
		default:
			if c, ok := d.m.byName[string(key)]; ok {
				col = c
			}
		}
		if col < 0 || d.outPos[col] < 0 {
			continue
		}
		j := d.outPos[col]
		if err := setValue(&d.row[j], d.m.t.Columns[col].Type, val); err != nil {
			return fmt.Errorf("field %s: %w", key, err)
		}
		d.seen[j] = true
	}
	return nil
}

// setValue converts a BSON value to a column value without copying bytes.
func setValue(dst *model.Value, typ model.Type, v bsoncore.Value) error {
	if typ == model.String {
		switch v.Type {
		case bsoncore.TypeBinary:
			_, b, ok := v.BinaryOK()
			if !ok {
				return errors.New("malformed binary")
			}
			*dst = model.Value{Bytes: b}
			return nil
		case bsoncore.TypeString:
			// int32 length (with the NUL), bytes, NUL.
			if len(v.Data) < 5 {
				return errors.New("malformed string")
			}
			*dst = model.Value{Bytes: v.Data[4 : len(v.Data)-1]}
			return nil
		}
		return fmt.Errorf("got %s, want binary or string", v.Type)
	}
	switch v.Type {
	case bsoncore.TypeInt64, bsoncore.TypeInt32:
		n, _ := v.AsInt64OK()
		*dst = model.Value{Int: n}
		return nil
	case bsoncore.TypeDouble:
		f, _ := v.DoubleOK()
		if f != float64(int64(f)) {
			return fmt.Errorf("double %v is not an integer", f)
		}
		*dst = model.Value{Int: int64(f)}
		return nil
	}
	return fmt.Errorf("got %s, want an integer", v.Type)
}

func shortDoc(doc []byte) string {
	s := bson.Raw(doc).String()
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
