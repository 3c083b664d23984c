package kv

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"rumbench/internal/model"
)

var (
	metaTableKey  = []byte{0, 0, 0, 0, 't'}
	metaTableEnd  = []byte{0, 0, 0, 0, 'u'}
	metaNextIDKey = []byte{0, 0, 0, 0, 'n'}
)

// buildChunk is how many index entries CreateIndexes writes per commit.
const buildChunk = 4096

// tableMeta is the JSON record of a table's schema.
type tableMeta struct {
	Format   int          `json:"format"`
	ID       uint32       `json:"id"`
	Table    *model.Table `json:"table"`
	IndexIDs []int        `json:"index_ids"` // key prefix id of each of Table.Indexes
}

// DB implements model.DB on a Store.
type DB struct {
	store Store
	info  model.Info
	// uniqueCheck makes Insert read each primary key before writing it
	// (Config.UniqueCheck).
	uniqueCheck bool
	// rowLockedTx: Txs run at once, isolated by row locks
	// (Config.RowLockedTx).
	rowLockedTx bool
	// cc is store when it isolates concurrent updates itself: Update then
	// takes no row lock (see ConcurrentStore).
	cc ConcurrentStore
	// bulk is the store's bulk path when index_build=bulk (bulk.go);
	// buildMemory bounds its sort; lastBulk is the last build's account
	// (under ddlMu), for tests.
	bulk        BulkLoader
	buildMemory int64
	lastBulk    bulkStats

	// ddlMu serializes schema changes (and guards nextID).
	ddlMu  sync.Mutex
	nextID uint32
	// txMu is held shared by write operations and by a Tx that runs beside
	// them (a ConcurrentStore's, a row-locked one), exclusively by any
	// other Tx, by index builds and by schema changes (as a barrier).
	txMu sync.RWMutex
	// Key locks (locks.go), taken in this order: inserts, the locks of
	// the unique check (conn.Insert); uniques, of unique secondary
	// prefixes (unique.go); rows, of read-modify-writes (Update,
	// DeleteOldest) where the store does not isolate them.
	inserts, uniques, rows lockTable
	state                  atomic.Pointer[map[string]*tableState]
	// gen changes with every published schema, so Conns can cache lookups.
	gen    atomic.Uint64
	closed atomic.Bool
	// retries counts writes rolled back by the store and run again
	// (retry.go).
	retries atomic.Int64
}

// Open loads the schemas stored in store and returns the DB. info is what
// Info reports; cfg holds the kv layer's own settings (ParseConfig), which
// the caller also records in info.Settings (Config.Record).
func Open(store Store, info model.Info, cfg Config) (*DB, error) {
	d := &DB{store: store, info: info, nextID: 1, uniqueCheck: cfg.UniqueCheck, rowLockedTx: cfg.RowLockedTx}
	d.cc, _ = store.(ConcurrentStore)
	if bl, ok := store.(BulkLoader); ok && cfg.IndexBuild != "online" {
		d.bulk = bl
	}
	d.buildMemory = cfg.IndexBuildMemory
	if d.buildMemory <= 0 {
		d.buildMemory = defaultBuildMemory
	}
	tables := map[string]*tableState{}
	v, err := store.NewView()
	if err != nil {
		return nil, fmt.Errorf("open view: %w", err)
	}
	defer v.Close()
	val, found, err := v.Get(metaNextIDKey, nil)
	if err != nil {
		return nil, fmt.Errorf("read next table id: %w", err)
	}
	if found {
		if len(val) != 4 {
			return nil, fmt.Errorf("corrupt next table id record (%d bytes)", len(val))
		}
		d.nextID = binary.BigEndian.Uint32(val)
	}
	it, err := v.NewIter(metaTableKey, metaTableEnd)
	if err != nil {
		return nil, fmt.Errorf("read schemas: %w", err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		var m tableMeta
		if err := json.Unmarshal(it.Value(), &m); err != nil {
			it.Close()
			return nil, fmt.Errorf("schema record %q: %w", it.Key()[len(metaTableKey):], err)
		}
		if m.Format != metaFormat || m.Table == nil {
			it.Close()
			return nil, fmt.Errorf("schema record %q has format %d, this rumbench reads %d", it.Key()[len(metaTableKey):], m.Format, metaFormat)
		}
		if err := m.Table.Validate(); err != nil {
			it.Close()
			return nil, fmt.Errorf("stored schema: %w", err)
		}
		ids := make([]byte, len(m.IndexIDs))
		for i, id := range m.IndexIDs {
			if id < 1 || id > 255 {
				it.Close()
				return nil, fmt.Errorf("schema record %q: bad index id %d", it.Key()[len(metaTableKey):], id)
			}
			ids[i] = byte(id)
		}
		st, err := newTableState(m.ID, m.Table, ids, nil, nil, nil)
		if err != nil {
			it.Close()
			return nil, err
		}
		tables[m.Table.Name] = st
		if m.ID >= d.nextID {
			d.nextID = m.ID + 1
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return nil, fmt.Errorf("read schemas: %w", err)
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("read schemas: %w", err)
	}
	d.publish(tables)
	return d, nil
}

func (d *DB) publish(m map[string]*tableState) {
	d.state.Store(&m)
	d.gen.Add(1)
}

// tablesCopy returns a copy of the published table map, for a schema change.
func (d *DB) tablesCopy() map[string]*tableState {
	cur := *d.state.Load()
	m := make(map[string]*tableState, len(cur)+1)
	for k, v := range cur {
		m[k] = v
	}
	return m
}

func (d *DB) table(name string) (*tableState, error) {
	if st := (*d.state.Load())[name]; st != nil {
		return st, nil
	}
	return nil, fmt.Errorf("table %s does not exist", name)
}

// barrier waits until every write operation that may have seen the previous
// schema has finished.
func (d *DB) barrier() {
	d.txMu.Lock()
	d.txMu.Unlock() //nolint:staticcheck // an empty critical section is the point
}

func (d *DB) checkOpen(ctx context.Context) error {
	if d.closed.Load() {
		return errors.New("engine is closed")
	}
	return ctx.Err()
}

// Info implements model.DB.
func (d *DB) Info() model.Info { return d.info }

func copyTable(t *model.Table) *model.Table {
	c := &model.Table{Name: t.Name}
	c.Columns = append([]model.Column(nil), t.Columns...)
	c.PK = append([]int(nil), t.PK...)
	for _, ix := range t.Indexes {
		c.Indexes = append(c.Indexes, model.Index{Name: ix.Name, Columns: append([]int(nil), ix.Columns...), Unique: ix.Unique})
	}
	return c
}

func (d *DB) writeMeta(b Batch, st *tableState) error {
	m := tableMeta{Format: metaFormat, ID: st.id, Table: st.schema}
	for _, id := range indexIDs(st) {
		m.IndexIDs = append(m.IndexIDs, int(id))
	}
	rec, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode schema of %s: %w", st.schema.Name, err)
	}
	return b.Set(append(append([]byte(nil), metaTableKey...), st.schema.Name...), rec)
}

func indexIDs(st *tableState) []byte {
	var ids []byte
	for _, ix := range st.ixs {
		if ix.built {
			ids = append(ids, ix.id)
		}
	}
	return ids
}

// createKeyspace gives a table's primary key or an index its own object on
// stores that keep them apart (Keyspaces).
func (d *DB) createKeyspace(prefix []byte, name string) error {
	if ks, ok := d.store.(Keyspaces); ok {
		if err := ks.CreateKeyspace(prefix, name); err != nil {
			return fmt.Errorf("create keyspace of %s: %w", name, err)
		}
	}
	return nil
}

// dropRange deletes a table's or an index's keys once no operation can reach
// them any more.
func (d *DB) dropRange(start, end []byte) error {
	d.barrier()
	if err := d.store.DeleteRange(start, end); err != nil {
		return fmt.Errorf("delete old keys: %w", err)
	}
	return nil
}

// CreateTable implements model.DB. It replaces a table of the same name.
func (d *DB) CreateTable(ctx context.Context, t *model.Table) error {
	if err := d.checkOpen(ctx); err != nil {
		return err
	}
	if t == nil {
		return errors.New("create table: nil schema")
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	schema := copyTable(t)
	schema.Indexes = nil
	d.ddlMu.Lock()
	defer d.ddlMu.Unlock()
	if d.nextID > maxTableID {
		return fmt.Errorf("create table %s: table ids exhausted", t.Name)
	}
	st, err := newTableState(d.nextID, schema, nil, nil, nil, nil)
	if err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	if err := d.createKeyspace(st.pk.start, t.Name+"."+st.pk.name); err != nil {
		return fmt.Errorf("create table %s: %w", t.Name, err)
	}
	b := d.store.NewBatch()
	defer b.Close()
	if err := d.writeMeta(b, st); err != nil {
		return err
	}
	if err := b.Set(metaNextIDKey, binary.BigEndian.AppendUint32(nil, d.nextID+1)); err != nil {
		return fmt.Errorf("create table %s: %w", t.Name, err)
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("create table %s: record schema: %w", t.Name, err)
	}
	d.nextID++
	tables := d.tablesCopy()
	old := tables[t.Name]
	tables[t.Name] = st
	d.publish(tables)
	if old != nil {
		if err := d.dropRange(tablePrefix(nil, old.id), tablePrefix(nil, old.id+1)); err != nil {
			return fmt.Errorf("create table %s: replace old table: %w", t.Name, err)
		}
	}
	return nil
}

// DropTable implements model.DB. Dropping a missing table is not an error.
func (d *DB) DropTable(ctx context.Context, t *model.Table) error {
	if err := d.checkOpen(ctx); err != nil {
		return err
	}
	if t == nil {
		return errors.New("drop table: nil schema")
	}
	d.ddlMu.Lock()
	defer d.ddlMu.Unlock()
	tables := d.tablesCopy()
	old := tables[t.Name]
	if old == nil {
		return nil
	}
	b := d.store.NewBatch()
	defer b.Close()
	if err := b.Delete(append(append([]byte(nil), metaTableKey...), t.Name...)); err != nil {
		return fmt.Errorf("drop table %s: %w", t.Name, err)
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("drop table %s: delete schema: %w", t.Name, err)
	}
	delete(tables, t.Name)
	d.publish(tables)
	if err := d.dropRange(tablePrefix(nil, old.id), tablePrefix(nil, old.id+1)); err != nil {
		return fmt.Errorf("drop table %s: %w", t.Name, err)
	}
	return nil
}

// Tables implements model.DB.
func (d *DB) Tables(ctx context.Context) ([]*model.Table, error) {
	if err := d.checkOpen(ctx); err != nil {
		return nil, err
	}
	cur := *d.state.Load()
	out := make([]*model.Table, 0, len(cur))
	for _, st := range cur {
		out = append(out, copyTable(st.schema))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateIndexes implements model.DB. It builds the indexes of t.Indexes that
// are not built yet: by sorting them and loading them through the store's
// bulk path, with writes blocked (createIndexesBulk), or, without one or
// with index_build=online, beside concurrent writers: once the new indexes
// are published they maintain them, and the build copies the older rows in
// chunks, each under the exclusive transaction lock so no row changes
// between being read and being indexed.
func (d *DB) CreateIndexes(ctx context.Context, t *model.Table) error {
	if err := d.checkOpen(ctx); err != nil {
		return err
	}
	if t == nil {
		return errors.New("create indexes: nil schema")
	}
	d.ddlMu.Lock()
	defer d.ddlMu.Unlock()
	tables := d.tablesCopy()
	st := tables[t.Name]
	if st == nil {
		return fmt.Errorf("create indexes: table %s does not exist", t.Name)
	}
	// Check the indexes against the stored columns.
	check := copyTable(st.schema)
	check.Indexes = t.Indexes
	if err := check.Validate(); err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	used := map[byte]bool{}
	for _, ix := range st.ixs {
		used[ix.id] = true
	}
	var todo []model.Index
	var ids []byte
	nextID := byte(1)
	for _, ix := range t.Indexes {
		if have := findIndex(st, ix.Name); have != nil {
			if !equalInts(have.cols, ix.Columns) || have.unique != ix.Unique {
				return fmt.Errorf("create indexes: table %s already has an index %s on other columns (or unique where this is not, or the reverse)", t.Name, ix.Name)
			}
			continue
		}
		for _, dup := range todo {
			if dup.Name == ix.Name {
				return fmt.Errorf("create indexes: table %s: index %s is listed twice", t.Name, ix.Name)
			}
		}
		for used[nextID] {
			if nextID == 255 {
				return fmt.Errorf("create indexes: table %s has too many indexes", t.Name)
			}
			nextID++
		}
		used[nextID] = true
		todo = append(todo, model.Index{Name: ix.Name, Columns: append([]int(nil), ix.Columns...), Unique: ix.Unique})
		ids = append(ids, nextID)
	}
	if len(todo) == 0 {
		return nil
	}
	// The index's own object first (stores with a keyspace per index), so
	// the leftover check below reads an object that exists.
	for i, id := range ids {
		if err := d.createKeyspace(append(tablePrefix(nil, st.id), id), t.Name+"."+todo[i].Name); err != nil {
			return fmt.Errorf("create indexes: %w", err)
		}
	}
	// Entries left by a build that crashed would be stale: clear the ranges
	// that have any. Only those: a range tombstone costs every later point
	// read that overlaps it (Pebble allocates an iterator for it in each).
	for _, id := range ids {
		start := append(tablePrefix(nil, st.id), id)
		end := append(tablePrefix(nil, st.id), id+1)
		used, err := d.rangeUsed(start, end)
		if err == nil && used {
			err = d.store.DeleteRange(start, end)
		}
		if err != nil {
			return fmt.Errorf("create indexes: clear index range: %w", err)
		}
	}
	if d.bulk != nil {
		if err := d.createIndexesBulk(ctx, st, todo, ids, d.bulk); err != nil {
			return fmt.Errorf("create indexes on %s: %w", t.Name, err)
		}
		return nil
	}
	building, err := newTableState(st.id, st.schema, indexIDs(st), todo, ids, st.tail)
	if err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	tables[t.Name] = building
	d.publish(tables)
	d.barrier()
	newIxs := building.ixs[len(building.ixs)-len(todo):]
	err = d.buildIndexes(ctx, building, newIxs)
	if err == nil {
		err = d.checkUniqueBuilt(newIxs)
	}
	if err != nil {
		// Unpublish: writers stop maintaining the half-built indexes; a
		// later build clears what they wrote.
		tables = d.tablesCopy()
		tables[t.Name] = st
		d.publish(tables)
		return fmt.Errorf("create indexes on %s: %w", t.Name, err)
	}
	schema := copyTable(st.schema)
	schema.Indexes = append(schema.Indexes, todo...)
	done, err := newTableState(st.id, schema, append(indexIDs(st), ids...), nil, nil, st.tail)
	if err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	b := d.store.NewBatch()
	defer b.Close()
	if err := d.writeMeta(b, done); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("create indexes on %s: record schema: %w", t.Name, err)
	}
	tables = d.tablesCopy()
	tables[t.Name] = done
	d.publish(tables)
	return nil
}

// rangeUsed reports whether any key is in [start, end).
func (d *DB) rangeUsed(start, end []byte) (bool, error) {
	v, err := d.store.NewView()
	if err != nil {
		return false, err
	}
	defer v.Close()
	it, err := v.NewIter(start, end)
	if err != nil {
		return false, err
	}
	used := it.First()
	if err := it.Error(); err != nil {
		it.Close()
		return false, err
	}
	return used, it.Close()
}

func findIndex(st *tableState, name string) *indexState {
	for i := range st.ixs {
		if st.ixs[i].name == name {
			return &st.ixs[i]
		}
	}
	return nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// buildIndexes writes the entries of ixs for every row of the table, a chunk
// of rows per commit.
func (d *DB) buildIndexes(ctx context.Context, st *tableState, ixs []indexState) error {
	rowsPerChunk := buildChunk / len(ixs)
	if rowsPerChunk < 1 {
		rowsPerChunk = 1
	}
	row := make(model.Row, len(st.schema.Columns))
	var (
		resume  = append([]byte(nil), st.pk.start...)
		arena   keyArena
		scratch []byte
	)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := d.buildChunk(st, ixs, resume, rowsPerChunk, row, &arena, &scratch)
		if err != nil {
			return err
		}
		if n < rowsPerChunk {
			return nil
		}
		// Resume just after the last row: its key followed by 0x00 is the
		// smallest key above it.
		resume = append(resume[:0], arena.lastRowKey...)
		resume = append(resume, 0)
	}
}

func (d *DB) buildChunk(st *tableState, ixs []indexState, from []byte, max int, row model.Row, arena *keyArena, scratch *[]byte) (int, error) {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	txn, err := d.store.Begin(false)
	if err != nil {
		return 0, err
	}
	arena.reset()
	n, err := func() (int, error) {
		it, err := txn.NewIter(from, st.pk.end)
		if err != nil {
			return 0, err
		}
		n := 0
		for ok := it.First(); ok && n < max; ok = it.Next() {
			*scratch, err = st.pk.decodeKey(it.Key(), row, true, (*scratch)[:0])
			if err == nil {
				err = st.decodeValue(it.Value(), row)
			}
			if err != nil {
				it.Close()
				return 0, err
			}
			for i := range ixs {
				arena.add(ixs[i].appendKey(arena.buf, row))
			}
			arena.lastRowKey = append(arena.lastRowKey[:0], it.Key()...)
			n++
		}
		if err := it.Error(); err != nil {
			it.Close()
			return 0, err
		}
		return n, it.Close()
	}()
	if err == nil {
		for i := 0; i < arena.len() && err == nil; i++ {
			err = txn.Set(arena.key(i), nil)
		}
	}
	if err != nil {
		txn.Rollback()
		return 0, err
	}
	if err := txn.Commit(); err != nil {
		return 0, err
	}
	return n, nil
}

// Conn implements model.DB.
func (d *DB) Conn(ctx context.Context) (model.Conn, error) {
	if err := d.checkOpen(ctx); err != nil {
		return nil, err
	}
	return newConn(d), nil
}

// Size implements model.DB.
func (d *DB) Size(ctx context.Context) (int64, error) {
	if err := d.checkOpen(ctx); err != nil {
		return -1, err
	}
	n, err := d.store.Size()
	if err != nil {
		return -1, fmt.Errorf("size: %w", err)
	}
	return n, nil
}

// closeWait bounds how long Close waits for write operations and
// transactions in flight, so a transaction left open cannot hang shutdown.
const closeWait = 5 * time.Second

// Close implements model.DB. It waits (up to closeWait) for write operations
// and open transactions to finish.
func (d *DB) Close() error {
	if d.closed.Swap(true) {
		return nil
	}
	for deadline := time.Now().Add(closeWait); ; time.Sleep(time.Millisecond) {
		if d.txMu.TryLock() {
			defer d.txMu.Unlock()
			break
		}
		if time.Now().After(deadline) {
			break
		}
	}
	return d.store.Close()
}

// Closed reports whether Close has been called (for engine wrappers).
func (d *DB) Closed() bool { return d.closed.Load() }

// keyArena collects keys in one buffer, to be written after an iterator is
// closed (stores cannot write while iterating).
type keyArena struct {
	buf        []byte
	ends       []int
	lastRowKey []byte
}

func (a *keyArena) reset() {
	a.buf = a.buf[:0]
	a.ends = a.ends[:0]
}

// add records the key that was just appended to a.buf (the caller passes
// the result of an append to a.buf).
func (a *keyArena) add(grown []byte) {
	a.buf = grown
	a.ends = append(a.ends, len(grown))
}

func (a *keyArena) len() int { return len(a.ends) }

func (a *keyArena) key(i int) []byte {
	start := 0
	if i > 0 {
		start = a.ends[i-1]
	}
	return a.buf[start:a.ends[i]:a.ends[i]]
}

// Store returns the store under the table layer, for benchmarks that
// compare the layer with the store's own batches (kvtest.BenchOverhead).
func (d *DB) Store() Store { return d.store }
