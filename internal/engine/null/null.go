// Package null is the engine that discards everything. It measures the
// client's own ceiling and its results are always labelled as such.
package null

import (
	"context"
	"sync"
	"sync/atomic"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

// Note labels every result of this engine.
const Note = "null engine: discards all writes; measures the rumbench client's own ceiling, not a storage engine"

func init() { engine.Register(driver{}) }

type driver struct{}

func (driver) Name() string            { return "null" }
func (driver) Family() model.Family    { return model.NoFamily }
func (driver) Kind() model.Kind        { return model.Embedded }
func (driver) Options() []model.Option { return nil }
func (driver) Available() error        { return nil }
func (driver) Description() string {
	return "discards writes, returns nothing: the client's own ceiling"
}
func (driver) Open(_ context.Context, cfg model.Config) (model.DB, error) {
	return &db{tables: map[string]*table{}}, nil
}

// table tracks only the live row count so deletes report what they would
// have removed and the harness's bookkeeping stays consistent.
type table struct {
	schema model.Table
	rows   atomic.Int64
}

type db struct {
	mu     sync.Mutex
	tables map[string]*table
}

func (d *db) Info() model.Info {
	return model.Info{Name: "null", Family: model.NoFamily, Kind: model.Embedded, Version: "n/a", Settings: map[string]string{}, Note: Note}
}

func (d *db) CreateTable(_ context.Context, t *model.Table) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := *t
	s.Indexes = nil
	d.tables[t.Name] = &table{schema: s}
	return nil
}

func (d *db) DropTable(_ context.Context, t *model.Table) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.tables, t.Name)
	return nil
}

func (d *db) CreateIndexes(_ context.Context, t *model.Table) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if tb, ok := d.tables[t.Name]; ok {
		tb.schema.Indexes = append([]model.Index(nil), t.Indexes...)
	}
	return nil
}

func (d *db) Tables(context.Context) ([]*model.Table, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*model.Table
	for _, t := range d.tables {
		s := t.schema
		out = append(out, &s)
	}
	return out, nil
}

func (d *db) table(name string) *table {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.tables[name]
}

func (d *db) Conn(context.Context) (model.Conn, error) { return conn{d}, nil }
func (d *db) Size(context.Context) (int64, error)      { return 0, nil }
func (d *db) Close() error                             { return nil }

type conn struct{ d *db }

func (c conn) Insert(_ context.Context, t *model.Table, rows []model.Row) error {
	if tb := c.d.table(t.Name); tb != nil {
		tb.rows.Add(int64(len(rows)))
	}
	return nil
}

// DeleteOldest ignores the bound: the null engine keeps a row count, not
// rows.
func (c conn) DeleteOldest(_ context.Context, t *model.Table, _ model.Row, n int) (int, error) {
	tb := c.d.table(t.Name)
	if tb == nil {
		return 0, nil
	}
	for {
		cur := tb.rows.Load()
		del := int64(n)
		if del > cur {
			del = cur
		}
		if tb.rows.CompareAndSwap(cur, cur-del) {
			return int(del), nil
		}
	}
}

func (conn) Get(context.Context, *model.Table, []model.Row, func(model.Row)) (int, error) {
	return 0, nil
}

func (conn) Scan(context.Context, *model.Table, model.ScanSpec, func(model.Row) bool) (int, error) {
	return 0, nil
}

func (conn) Update(context.Context, *model.Table, model.Row, []model.Change) (bool, error) {
	return true, nil
}

// Delete reports no row: the null engine keeps a row count, not rows.
func (conn) Delete(context.Context, *model.Table, model.Row) (bool, error) {
	return false, nil
}

func (conn) Upsert(context.Context, *model.Table, model.Row, []model.Change) error {
	return nil
}

// Begin returns a transaction that discards its operations like the conn:
// workloads that need transactions (linkbench) measure their own ceiling.
func (c conn) Begin(context.Context) (model.Tx, error) { return tx{c}, nil }

func (conn) Close() error { return nil }

type tx struct{ conn }

func (tx) Commit(context.Context) error   { return nil }
func (tx) Rollback(context.Context) error { return nil }
