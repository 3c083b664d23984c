package mongo

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"rumbench/internal/model"
)

// maxShapes bounds a Conn's cache of find options, like the SQL engines'
// statement cache: workloads use a handful of shapes.
const maxShapes = 256

// ErrTxDone is returned by operations on a committed or aborted Tx.
var ErrTxDone = errors.New("transaction already committed or aborted")

var errInTx = errors.New("the connection has an open transaction: use the Tx")

// Conn is one worker's handle: the driver's client pools the network
// connections; the Conn keeps the buffers and cached options that make an
// operation allocation-free on the client's side.
type Conn struct {
	d      *DB
	metas  map[*model.Table]*cmeta
	finds  map[findKey]*options.FindOptionsBuilder
	buf    []byte // documents and filters under construction
	offs   []int
	docs   []any
	one    []model.Row // Upsert's insert
	insOpt *options.InsertManyOptionsBuilder
	tx     *Tx
}

// cmeta is a table's mapping plus its collection handle.
type cmeta struct {
	*meta
	coll *mongo.Collection
}

type findKey struct {
	m     *meta
	kind  byte // 'g' get, 's' scan, 'd' delete's id lookup
	idx   int
	desc  bool
	limit int64
}

var (
	_ model.Conn       = (*Conn)(nil)
	_ model.Transactor = (*Conn)(nil)
	_ model.Tx         = (*Tx)(nil)
)

func newConn(d *DB) *Conn {
	return &Conn{
		d: d, metas: map[*model.Table]*cmeta{}, finds: map[findKey]*options.FindOptionsBuilder{},
		insOpt: options.InsertMany().SetOrdered(true),
	}
}

// Close aborts an open transaction. The network connections belong to the
// client's pool.
func (c *Conn) Close() error {
	if c.tx != nil {
		return c.tx.Rollback(context.Background())
	}
	return nil
}

// meta returns the table's mapping, rebuilt when the schema's shape changed.
func (c *Conn) meta(t *model.Table) *cmeta {
	m := c.metas[t]
	if m == nil || m.ncols != len(t.Columns) || m.nidx != len(t.Indexes) {
		if len(c.metas) >= maxShapes {
			clear(c.metas)
			clear(c.finds)
		}
		m = &cmeta{meta: newMeta(t), coll: c.d.db.Collection(t.Name)}
		c.metas[t] = m
	}
	return m
}

func (c *Conn) findOpts(k findKey, build func() *options.FindOptionsBuilder) *options.FindOptionsBuilder {
	o := c.finds[k]
	if o == nil {
		if len(c.finds) >= maxShapes {
			clear(c.finds)
		}
		o = build()
		c.finds[k] = o
	}
	return o
}

// Insert inserts rows with one ordered insertMany. MongoDB makes each
// document's write atomic, not the batch: ordered stops at the first
// refused row with the rows before it written. Outside a Tx, Insert then
// deletes those rows again (undoInsert) so that, as model.Ops requires, a
// failed Insert has written nothing once it returns; inside a Tx the
// server aborts the transaction instead.
func (c *Conn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if c.tx != nil {
		return errInTx
	}
	return c.insert(ctx, t, rows)
}

func (c *Conn) insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if len(rows) == 0 {
		return nil
	}
	m := c.meta(t)
	buf, offs := c.buf[:0], c.offs[:0]
	for i, r := range rows {
		if len(r) != m.ncols {
			return fmt.Errorf("insert into %s: row %d has %d values, table has %d columns", t.Name, i, len(r), m.ncols)
		}
		offs = append(offs, len(buf))
		buf = m.appendRow(buf, r)
	}
	offs = append(offs, len(buf))
	docs := c.docs[:0]
	for i := range rows {
		docs = append(docs, bson.Raw(buf[offs[i]:offs[i+1]]))
	}
	_, err := m.coll.InsertMany(ctx, docs, c.insOpt)
	clear(docs)
	c.buf, c.offs, c.docs = buf, offs, docs[:0]
	if err == nil {
		return nil
	}
	ierr := fmt.Errorf("insert %d rows into %s: %w", len(rows), t.Name, err)
	if mongo.IsDuplicateKeyError(err) {
		ierr = fmt.Errorf("insert %d rows into %s: %w: %w", len(rows), t.Name, model.ErrDuplicateKey, err)
	}
	if c.tx == nil {
		if n := writtenBefore(err); n > 0 {
			if uerr := c.undoInsert(ctx, m, rows[:n]); uerr != nil {
				return errors.Join(ierr, uerr)
			}
		}
	}
	return ierr
}

// writtenBefore returns how many leading documents a failed ordered
// insertMany wrote: the index of the first refused one. An error without a
// write error (a write concern error alone, a lost connection) gives 0: the
// rows are then either all written or in an unknown state, and nothing is
// undone.
func writtenBefore(err error) int {
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) == 0 {
		return 0
	}
	n := bwe.WriteErrors[0].Index
	for _, we := range bwe.WriteErrors[1:] {
		n = min(n, we.Index)
	}
	return n
}

// undoInsert deletes the rows a failed Insert wrote before the refused one,
// with one deleteMany {_id: {$in: [...]}}. They were written by this call
// (each _id was absent, or the insert would have failed there), so the
// delete removes nothing else; until it runs, other clients can read them
// (docs/mongodb.md, "Duplicate keys and batches").
func (c *Conn) undoInsert(ctx context.Context, m *cmeta, rows []model.Row) error {
	t := m.t
	i, b := bsoncore.AppendDocumentStart(c.buf[:0])
	j, b := bsoncore.AppendDocumentElementStart(b, "_id")
	a, b := bsoncore.AppendArrayElementStart(b, "$in")
	for n, r := range rows {
		b = m.appendID(b, arrayKey(n), func(k int) model.Value { return r[t.PK[k]] })
	}
	b, _ = bsoncore.AppendArrayEnd(b, a)
	b, _ = bsoncore.AppendDocumentEnd(b, j)
	b, _ = bsoncore.AppendDocumentEnd(b, i)
	// Fewer deleted than written means another client deleted some first:
	// they are gone either way.
	_, err := m.coll.DeleteMany(context.WithoutCancel(ctx), bson.Raw(b))
	c.buf = b[:0]
	if err != nil {
		return fmt.Errorf("undo of the %d rows written before the refused one: %w (they may stay in %s)", len(rows), err, t.Name)
	}
	return nil
}

// DeleteOldest deletes the n rows with the smallest primary keys at or
// above from (the table's start when from is empty).
func (c *Conn) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if c.tx != nil {
		return 0, errInTx
	}
	return c.deleteFrom(ctx, t, from, n)
}

// deleteFrom deletes the first n rows in primary key order whose key is >=
// lower (all rows when lower is nil). MongoDB's delete has no limit, so it
// is two commands: a find of the first n _ids in _id order (an _id index
// range read, ids only, hinted), then one deleteMany of the _id range
// [first, last] found. The range, not the list of ids, is what the SQL
// engines' DELETE ... ORDER BY pk LIMIT n removes, and the server walks it
// as one index range instead of n lookups. The count returned is the
// server's deletedCount, so it is exact even when another deleter took some
// of the rows meanwhile; a row inserted into [first, last] between the two
// commands would be deleted too, which the workloads never do (inserts go
// above the largest key). With a client-tracked lower bound
// (model.DeleteOldest taking one) the find starts at it instead of at the
// first key, skipping the deleted entries the index may still hold.
func (c *Conn) deleteFrom(ctx context.Context, t *model.Table, lower model.Row, n int) (int, error) {
	if n <= 0 {
		return 0, nil
	}
	m := c.meta(t)
	if len(lower) == 0 {
		lower = nil
	}
	if lower != nil && len(lower) != len(t.PK) {
		return 0, fmt.Errorf("delete from %s: lower bound has %d values, primary key has %d columns", t.Name, len(lower), len(t.PK))
	}
	filter := c.buf[:0]
	if lower == nil {
		filter = bsoncore.BuildDocument(filter)
	} else {
		i, b := bsoncore.AppendDocumentStart(filter)
		j, b2 := bsoncore.AppendDocumentElementStart(b, "_id")
		b2 = m.appendID(b2, "$gte", func(j int) model.Value { return lower[j] })
		b2, _ = bsoncore.AppendDocumentEnd(b2, j)
		filter, _ = bsoncore.AppendDocumentEnd(b2, i)
	}
	hint := c.d.p.hint
	opts := c.findOpts(findKey{m: m.meta, kind: 'd', limit: int64(n)}, func() *options.FindOptionsBuilder {
		o := options.Find().SetSort(m.pk.sortAsc).SetProjection(m.pk.proj).SetLimit(int64(n))
		if hint {
			o.SetHint(m.pk.hint)
		}
		return o
	})
	cur, err := m.coll.Find(ctx, bson.Raw(filter), opts)
	c.buf = filter[:0]
	if err != nil {
		return 0, fmt.Errorf("delete %d oldest rows from %s: find ids: %w", n, t.Name, err)
	}
	var first, last []byte // _id values (type byte + data)
	found := 0
	for cur.Next(ctx) {
		v, err := cur.Current.LookupErr("_id")
		if err != nil {
			cur.Close(context.WithoutCancel(ctx))
			return 0, fmt.Errorf("delete from %s: document without _id: %w", t.Name, err)
		}
		last = append(append(last[:0], byte(v.Type)), v.Value...)
		if found == 0 {
			first = append(first[:0], last...)
		}
		found++
	}
	err = cur.Err()
	cur.Close(context.WithoutCancel(ctx))
	if err != nil {
		return 0, fmt.Errorf("delete %d oldest rows from %s: find ids: %w", n, t.Name, err)
	}
	if found == 0 {
		return 0, nil
	}
	i, b := bsoncore.AppendDocumentStart(c.buf[:0])
	j, b := bsoncore.AppendDocumentElementStart(b, "_id")
	b = bsoncore.AppendValueElement(b, "$gte", bsoncore.Value{Type: bsoncore.Type(first[0]), Data: first[1:]})
	b = bsoncore.AppendValueElement(b, "$lte", bsoncore.Value{Type: bsoncore.Type(last[0]), Data: last[1:]})
	b, _ = bsoncore.AppendDocumentEnd(b, j)
	b, _ = bsoncore.AppendDocumentEnd(b, i)
	res, err := m.coll.DeleteMany(ctx, bson.Raw(b))
	c.buf = b[:0]
	if err != nil {
		return 0, fmt.Errorf("delete %d oldest rows from %s: %w", n, t.Name, err)
	}
	return int(res.DeletedCount), nil
}

// Get fetches rows by primary key with one find {_id: {$in: [...]}}.
func (c *Conn) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	if c.tx != nil {
		return 0, errInTx
	}
	return c.get(ctx, t, keys, fn)
}

func (c *Conn) get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	m := c.meta(t)
	i, b := bsoncore.AppendDocumentStart(c.buf[:0])
	j, b := bsoncore.AppendDocumentElementStart(b, "_id")
	a, b := bsoncore.AppendArrayElementStart(b, "$in")
	for n, k := range keys {
		if len(k) != len(t.PK) {
			return 0, fmt.Errorf("get from %s: key %d has %d values, primary key has %d columns", t.Name, n, len(k), len(t.PK))
		}
		b = m.appendID(b, arrayKey(n), func(j int) model.Value { return k[j] })
	}
	b, _ = bsoncore.AppendArrayEnd(b, a)
	b, _ = bsoncore.AppendDocumentEnd(b, j)
	b, _ = bsoncore.AppendDocumentEnd(b, i)
	opts := c.findOpts(findKey{m: m.meta, kind: 'g'}, options.Find)
	cur, err := m.coll.Find(ctx, bson.Raw(b), opts)
	c.buf = b[:0]
	if err != nil {
		return 0, fmt.Errorf("get %d keys from %s: %w", len(keys), t.Name, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	found := 0
	for cur.Next(ctx) {
		row, err := m.full.decode(cur.Current)
		if err != nil {
			return found, fmt.Errorf("get from %s: %w", t.Name, err)
		}
		found++
		fn(row)
	}
	if err := cur.Err(); err != nil {
		return found, fmt.Errorf("get %d keys from %s: %w", len(keys), t.Name, err)
	}
	return found, nil
}

// Scan reads index entries in order: a find with a range filter on the
// index's leading columns, sorted by the index key, projected to the
// covering columns, limited and (option hint) hinted — the published
// insert benchmark's Mongo query. See model.ScanSpec.
func (c *Conn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if c.tx != nil {
		return 0, errInTx
	}
	return c.scan(ctx, t, spec, fn)
}

func (c *Conn) scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if spec.Index < -1 || spec.Index >= len(t.Indexes) {
		return 0, fmt.Errorf("scan %s: index %d out of range (table has %d)", t.Name, spec.Index, len(t.Indexes))
	}
	if spec.Limit < 0 {
		return 0, fmt.Errorf("scan %s: negative limit %d", t.Name, spec.Limit)
	}
	m := c.meta(t)
	s := m.index(spec.Index)
	if len(spec.Lower) > len(s.cols) {
		return 0, fmt.Errorf("scan %s: bound has %d values, index has %d columns", t.Name, len(spec.Lower), len(s.cols))
	}
	var filter []byte
	if spec.Upper != nil {
		if err := model.CheckRange(t, len(s.cols), spec); err != nil {
			return 0, err
		}
		filter = appendBetweenFilter(c.buf[:0], m.meta, s, spec.Lower, spec.Upper)
	} else {
		filter = appendRangeFilter(c.buf[:0], m.meta, s, spec.Lower, spec.Desc)
	}
	hint := c.d.p.hint
	opts := c.findOpts(findKey{m: m.meta, kind: 's', idx: spec.Index, desc: spec.Desc, limit: int64(spec.Limit)}, func() *options.FindOptionsBuilder {
		sort := s.sortAsc
		if spec.Desc {
			sort = s.sortDesc
		}
		o := options.Find().SetSort(sort).SetProjection(s.proj)
		if spec.Limit > 0 {
			o.SetLimit(int64(spec.Limit))
		}
		if hint {
			o.SetHint(s.hint)
		}
		return o
	})
	cur, err := m.coll.Find(ctx, bson.Raw(filter), opts)
	c.buf = filter[:0]
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	n := 0
	for cur.Next(ctx) {
		row, err := s.dec.decode(cur.Current)
		if err != nil {
			return n, fmt.Errorf("scan %s: %w", t.Name, err)
		}
		n++
		if !fn(row) {
			return n, nil
		}
	}
	if err := cur.Err(); err != nil {
		return n, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	return n, nil
}

// appendRangeFilter appends the filter of a scan from lower: entries whose
// covering columns, as a tuple, are >= lower (<= when descending). One
// column is {f: {$gte: v}}; more are the lexicographic comparison
// {f1: {$gte: v1}, $or: [{f1: {$gt: v1}}, {f1: v1, f2: {$gt: v2}}, ...,
// {f1: v1, ..., fk: {$gte: vk}}]}, whose first term gives the planner the
// index range to start from.
func appendRangeFilter(dst []byte, m *meta, s *shape, lower model.Row, desc bool) []byte {
	ge, gt := "$gte", "$gt"
	if desc {
		ge, gt = "$lte", "$lt"
	}
	typ := func(j int) model.Type { return m.t.Columns[s.cols[j]].Type }
	cmp := func(b []byte, j int, op string) []byte {
		i, b := bsoncore.AppendDocumentElementStart(b, s.bound[j])
		b = appendValue(b, op, typ(j), lower[j])
		b, _ = bsoncore.AppendDocumentEnd(b, i)
		return b
	}
	i, b := bsoncore.AppendDocumentStart(dst)
	if len(lower) > 0 {
		b = cmp(b, 0, ge)
	}
	if len(lower) > 1 {
		a, b2 := bsoncore.AppendArrayElementStart(b, "$or")
		for k := range lower {
			e, b3 := bsoncore.AppendDocumentElementStart(b2, arrayKey(k))
			for j := 0; j < k; j++ {
				b3 = appendValue(b3, s.bound[j], typ(j), lower[j])
			}
			op := gt
			if k == len(lower)-1 {
				op = ge
			}
			b3 = cmp(b3, k, op)
			b2, _ = bsoncore.AppendDocumentEnd(b3, e)
		}
		b, _ = bsoncore.AppendArrayEnd(b2, a)
	}
	b, _ = bsoncore.AppendDocumentEnd(b, i)
	return b
}

// appendBetweenFilter appends the filter of a bounded range (see
// model.ScanSpec.Upper): {f1: v1, ..., fk: {$gte: lower_k, $lte: upper_k}}.
func appendBetweenFilter(dst []byte, m *meta, s *shape, lower, upper model.Row) []byte {
	typ := func(j int) model.Type { return m.t.Columns[s.cols[j]].Type }
	i, b := bsoncore.AppendDocumentStart(dst)
	k := len(lower) - 1
	for j := 0; j < k; j++ {
		b = appendValue(b, s.bound[j], typ(j), lower[j])
	}
	e, b := bsoncore.AppendDocumentElementStart(b, s.bound[k])
	b = appendValue(b, "$gte", typ(k), lower[k])
	b = appendValue(b, "$lte", typ(k), upper[k])
	b, _ = bsoncore.AppendDocumentEnd(b, e)
	b, _ = bsoncore.AppendDocumentEnd(b, i)
	return b
}

// Delete deletes the row with primary key pk with one deleteOne by _id.
func (c *Conn) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if c.tx != nil {
		return false, errInTx
	}
	return c.del(ctx, t, pk)
}

func (c *Conn) del(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if len(pk) != len(t.PK) {
		return false, fmt.Errorf("delete from %s: key has %d values, primary key has %d columns", t.Name, len(pk), len(t.PK))
	}
	m := c.meta(t)
	i, b := bsoncore.AppendDocumentStart(c.buf[:0])
	b = m.appendID(b, "_id", func(j int) model.Value { return pk[j] })
	b, _ = bsoncore.AppendDocumentEnd(b, i)
	res, err := m.coll.DeleteOne(ctx, bson.Raw(b))
	c.buf = b[:0]
	if err != nil {
		return false, fmt.Errorf("delete from %s: %w", t.Name, err)
	}
	return res.DeletedCount > 0, nil
}

// Upsert applies changes with an updateOne of row's _id and, when no
// document matched, inserts row; an insert that loses to a concurrent one
// (duplicate key) applies the changes instead. An upsert updateOne cannot do
// it in one command: $inc and $setOnInsert may not name the same field.
func (c *Conn) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if c.tx != nil {
		return errInTx
	}
	return c.upsert(ctx, t, row, changes)
}

func (c *Conn) upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if len(row) != len(t.Columns) {
		return fmt.Errorf("upsert into %s: row has %d values, table has %d columns", t.Name, len(row), len(t.Columns))
	}
	pk := make(model.Row, len(t.PK))
	for j, p := range t.PK {
		pk[j] = row[p]
	}
	for try := 0; ; try++ {
		found, err := c.update(ctx, t, pk, changes)
		if err != nil || found {
			return err
		}
		c.one = append(c.one[:0], row)
		err = c.insert(ctx, t, c.one)
		c.one[0] = nil
		if err == nil || !errors.Is(err, model.ErrDuplicateKey) || try > 0 {
			return err
		}
	}
}

// Update applies changes to the row with primary key pk in one updateOne:
// Set columns under $set, Add columns under $inc, which the server applies
// atomically to the document (so concurrent increments are never lost).
func (c *Conn) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if c.tx != nil {
		return false, errInTx
	}
	return c.update(ctx, t, pk, changes)
}

func (c *Conn) update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if len(pk) != len(t.PK) {
		return false, fmt.Errorf("update %s: key has %d values, primary key has %d columns", t.Name, len(pk), len(t.PK))
	}
	m := c.meta(t)
	for _, ch := range changes {
		if ch.Col < 0 || ch.Col >= m.ncols {
			return false, fmt.Errorf("update %s: column %d out of range", t.Name, ch.Col)
		}
		if m.isPK[ch.Col] {
			return false, fmt.Errorf("update %s: column %s is part of the primary key", t.Name, t.Columns[ch.Col].Name)
		}
		if ch.Op == model.Add && t.Columns[ch.Col].Type == model.String {
			return false, fmt.Errorf("update %s: can't add to string column %s", t.Name, t.Columns[ch.Col].Name)
		}
	}
	if len(changes) == 0 {
		return false, fmt.Errorf("update %s: no changes", t.Name)
	}
	i, b := bsoncore.AppendDocumentStart(c.buf[:0])
	b = m.appendID(b, "_id", func(j int) model.Value { return pk[j] })
	b, _ = bsoncore.AppendDocumentEnd(b, i)
	filterEnd := len(b)
	u, b := bsoncore.AppendDocumentStart(b)
	for _, op := range [...]struct {
		name string
		op   model.ChangeOp
	}{{"$set", model.Set}, {"$inc", model.Add}} {
		start := -1
		var e int32
		for _, ch := range changes {
			if ch.Op != op.op {
				continue
			}
			if start < 0 {
				start = len(b)
				e, b = bsoncore.AppendDocumentElementStart(b, op.name)
			}
			b = appendValue(b, t.Columns[ch.Col].Name, t.Columns[ch.Col].Type, ch.Value)
		}
		if start >= 0 {
			b, _ = bsoncore.AppendDocumentEnd(b, e)
		}
	}
	b, _ = bsoncore.AppendDocumentEnd(b, u)
	res, err := m.coll.UpdateOne(ctx, bson.Raw(b[:filterEnd]), bson.Raw(b[filterEnd:]))
	c.buf = b[:0]
	if err != nil {
		return false, fmt.Errorf("update %s: %w", t.Name, err)
	}
	return res.MatchedCount > 0, nil
}

// Begin starts a multi-document transaction in a session, with the engine's
// write and read concerns. It needs a replica set or a sharded cluster; on
// a standalone server or FerretDB it returns model.ErrNotSupported.
func (c *Conn) Begin(ctx context.Context) (model.Tx, error) {
	if c.tx != nil {
		return nil, errInTx
	}
	if !c.d.txns {
		return nil, fmt.Errorf("mongodb: %w: multi-document transactions need a replica set or a sharded cluster (server at %s is %s)", model.ErrNotSupported, c.d.host, c.d.info.Settings["topology"])
	}
	sess, err := c.d.client.StartSession()
	if err != nil {
		return nil, fmt.Errorf("mongodb: start session: %w", err)
	}
	to := options.Transaction()
	if c.d.p.wc != nil {
		to.SetWriteConcern(c.d.p.wc)
	}
	if c.d.p.rc != nil {
		to.SetReadConcern(c.d.p.rc)
	}
	if err := sess.StartTransaction(to); err != nil {
		sess.EndSession(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("mongodb: start transaction: %w", err)
	}
	c.tx = &Tx{c: c, sess: sess}
	return c.tx, nil
}

// Tx is a multi-document transaction: the Conn's operations run with the
// session in their context.
type Tx struct {
	c    *Conn
	sess *mongo.Session
	done bool
}

func (tx *Tx) ctx(ctx context.Context) context.Context { return mongo.NewSessionContext(ctx, tx.sess) }

func (tx *Tx) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	if tx.done {
		return ErrTxDone
	}
	return tx.c.insert(tx.ctx(ctx), t, rows)
}

func (tx *Tx) DeleteOldest(ctx context.Context, t *model.Table, from model.Row, n int) (int, error) {
	if tx.done {
		return 0, ErrTxDone
	}
	return tx.c.deleteFrom(tx.ctx(ctx), t, from, n)
}

func (tx *Tx) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	if tx.done {
		return 0, ErrTxDone
	}
	return tx.c.get(tx.ctx(ctx), t, keys, fn)
}

func (tx *Tx) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if tx.done {
		return 0, ErrTxDone
	}
	return tx.c.scan(tx.ctx(ctx), t, spec, fn)
}

func (tx *Tx) Update(ctx context.Context, t *model.Table, pk model.Row, changes []model.Change) (bool, error) {
	if tx.done {
		return false, ErrTxDone
	}
	return tx.c.update(tx.ctx(ctx), t, pk, changes)
}

// Commit commits; a failed commit is aborted.
func (tx *Tx) Delete(ctx context.Context, t *model.Table, pk model.Row) (bool, error) {
	if tx.done {
		return false, ErrTxDone
	}
	return tx.c.del(tx.ctx(ctx), t, pk)
}

func (tx *Tx) Upsert(ctx context.Context, t *model.Table, row model.Row, changes []model.Change) error {
	if tx.done {
		return ErrTxDone
	}
	return tx.c.upsert(tx.ctx(ctx), t, row, changes)
}

func (tx *Tx) Commit(ctx context.Context) error {
	if tx.done {
		return ErrTxDone
	}
	tx.done = true
	tx.c.tx = nil
	defer tx.sess.EndSession(context.WithoutCancel(ctx))
	if err := tx.sess.CommitTransaction(ctx); err != nil {
		tx.sess.AbortTransaction(context.WithoutCancel(ctx)) //nolint:errcheck // the commit error is the one to report
		return fmt.Errorf("mongodb: commit: %w", err)
	}
	return nil
}

// Rollback aborts. After Commit or Rollback it does nothing, so it can be
// deferred.
func (tx *Tx) Rollback(ctx context.Context) error {
	if tx.done {
		return nil
	}
	tx.done = true
	tx.c.tx = nil
	defer tx.sess.EndSession(context.WithoutCancel(ctx))
	if err := tx.sess.AbortTransaction(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("mongodb: abort: %w", err)
	}
	return nil
}
