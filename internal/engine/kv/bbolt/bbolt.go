// Package bbolt is the "bbolt" engine: etcd's bbolt copy-on-write B+tree
// (pure Go, embedded) under the kv table layer. All tables live in one
// bucket with the kv key layout; bbolt runs one writer at a time, so each
// commit is one read-write transaction taken in turn.
package bbolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

const (
	modulePath = "go.etcd.io/bbolt"
	fileName   = "bbolt.db"
	// deleteChunk bounds the keys DeleteRange removes per transaction, so a
	// dropped table does not become one huge dirty transaction.
	deleteChunk = 10000
)

var bucketName = []byte("rumbench")

func init() { engine.Register(Driver{}) }

// Driver is the bbolt model.Driver.
type Driver struct{}

// Name implements model.Driver.
func (Driver) Name() string { return "bbolt" }

// Family implements model.Driver.
func (Driver) Family() model.Family { return model.CoWBTree }

// Kind implements model.Driver.
func (Driver) Kind() model.Kind { return model.Embedded }

// Description implements model.Driver.
func (Driver) Description() string {
	return "bbolt copy-on-write B+tree (etcd's, pure Go), embedded; one writer at a time"
}

// Options implements model.Driver.
func (Driver) Options() []model.Option { return optionTable(&settings{}).Options() }

// Available implements model.Driver: bbolt is compiled in.
func (Driver) Available() error { return nil }

type settings struct {
	kv                   kv.Config // the kv layer's own options (unique_check)
	sync, noFreelistSync bool
	fillPercent          float64
	initialMmap          int64
	freelist             string
}

// optionTable declares bbolt's options, parsed into s.
func optionTable(s *settings) engineopt.Table {
	return append(engineopt.Table{
		engineopt.Bool(&s.sync, "sync", "false", "fsync at every commit (true: durable against power loss); the default false sets bbolt's NoSync, durable against a process crash, comparable to sqlite's synchronous=normal"),
		engineopt.Bool(&s.noFreelistSync, "no_freelist_sync", "false", "do not write the freelist at each commit (faster commits, slower open: it is rebuilt by scanning)"),
		engineopt.Float(&s.fillPercent, "fill_percent", "0.5", "how full split pages are left, 0.1 to 1.0 (bbolt's default 0.5; near 1.0 suits append-only keys)", 0.1, 1.0),
		engineopt.SizeIn(&s.initialMmap, "initial_mmap_size", "0", "initial mmap size in bytes (64MB, 1GiB...); a large value avoids remaps, which wait for open readers", 0, 1<<40, "at most 1TB"),
		engineopt.Choice(&s.freelist, "freelist_type", "array", "freelist implementation: array or hashmap (faster with many free pages)", "array", "hashmap"),
	}, kv.OptionTable(&s.kv)...)
}

func parseOptions(opts map[string]string) (settings, error) {
	var s settings
	err := optionTable(&s).Parse(opts)
	return s, err
}

// ValidateConfig checks the option values without opening anything.
func (Driver) ValidateConfig(cfg model.Config) error {
	_, err := parseOptions(cfg.Options)
	return err
}

var _ model.ConfigValidator = Driver{}

// Open implements model.Driver.
func (Driver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	s, err := parseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.DataDir == "" {
		return nil, errors.New("bbolt needs a data dir")
	}
	path := filepath.Join(cfg.DataDir, fileName)
	if cfg.ReadOnly {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, model.NoDataError(fmt.Errorf("bbolt: --data-dir %s holds no database file %s: give the data dir of a bbolt run", cfg.DataDir, fileName))
		}
	} else if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("bbolt data dir: %w", err)
	}
	st, err := openStore(path, s, cfg.ReadOnly)
	if err != nil {
		return nil, err
	}
	info := model.Info{
		Name:    "bbolt",
		Family:  model.CoWBTree,
		Kind:    model.Embedded,
		Version: kv.ModuleVersion(modulePath, "v1"),
		Settings: map[string]string{
			"sync":              strconv.FormatBool(s.sync),
			"no_freelist_sync":  strconv.FormatBool(s.noFreelistSync),
			"fill_percent":      strconv.FormatFloat(s.fillPercent, 'g', -1, 64),
			"initial_mmap_size": strconv.FormatInt(s.initialMmap, 10),
			"freelist_type":     s.freelist,
			"page_size":         strconv.Itoa(st.db.Info().PageSize),
		},
	}
	s.kv.Record(info.Settings)
	d, err := kv.Open(kv.WrapStore(ctx, st), info, s.kv)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("bbolt: %w", err)
	}
	return &DB{DB: d, st: st}, nil
}

// openStore opens (creating if needed) the file; readOnly opens an existing
// one under a shared lock and creates nothing.
func openStore(path string, s settings, readOnly bool) (*store, error) {
	ft := bolt.FreelistArrayType
	if s.freelist == "hashmap" {
		ft = bolt.FreelistMapType
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		// A lock held by another process fails the open instead of hanging.
		Timeout:         5 * time.Second,
		NoSync:          !s.sync,
		NoFreelistSync:  s.noFreelistSync,
		InitialMmapSize: int(s.initialMmap),
		FreelistType:    ft,
		ReadOnly:        readOnly,
	})
	if err != nil {
		return nil, fmt.Errorf("open bbolt file %s: %w", path, err)
	}
	if readOnly {
		err := db.View(func(tx *bolt.Tx) error {
			if tx.Bucket(bucketName) == nil {
				return model.NoDataError(fmt.Errorf("bbolt %s holds no rumbench tables", path))
			}
			return nil
		})
		if err != nil {
			db.Close()
			return nil, err
		}
		return &store{db: db, fill: s.fillPercent}, nil
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketName)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("bbolt %s: create bucket: %w", path, err)
	}
	return &store{db: db, fill: s.fillPercent}, nil
}

// DB is the bbolt engine: the kv table layer plus bbolt's statistics.
type DB struct {
	*kv.DB
	st *store
}

var _ model.StatsReporter = (*DB)(nil)

// Stats implements model.StatsReporter with bbolt's counters (cumulative
// since open) and the freelist. It does not walk the tree (Bucket.Stats
// would read every page).
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	s := d.st.db.Stats()
	pageSize := d.st.db.Info().PageSize
	var size int64
	if err := d.st.db.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil }); err != nil {
		return nil, fmt.Errorf("bbolt stats: %w", err)
	}
	ts := &s.TxStats
	return map[string]any{
		"page_size":         pageSize,
		"data_bytes":        size,
		"pages":             size / int64(pageSize),
		"free_pages":        s.FreePageN,
		"pending_pages":     s.PendingPageN,
		"free_bytes":        s.FreeAlloc,
		"freelist_bytes":    s.FreelistInuse,
		"read_txs":          s.TxN,
		"open_read_txs":     s.OpenTxN,
		"pages_allocated":   ts.GetPageCount(),
		"page_alloc_bytes":  ts.GetPageAlloc(),
		"cursors":           ts.GetCursorCount(),
		"nodes":             ts.GetNodeCount(),
		"node_derefs":       ts.GetNodeDeref(),
		"rebalances":        ts.GetRebalance(),
		"rebalance_seconds": ts.GetRebalanceTime().Seconds(),
		"splits":            ts.GetSplit(),
		"spills":            ts.GetSpill(),
		"spill_seconds":     ts.GetSpillTime().Seconds(),
		"page_writes":       ts.GetWrite(),
		"write_seconds":     ts.GetWriteTime().Seconds(),
	}, nil
}

// ---- kv.Store on bbolt ----

type store struct {
	db   *bolt.DB
	fill float64
}

func (s *store) bucket(tx *bolt.Tx) (*bolt.Bucket, error) {
	b := tx.Bucket(bucketName)
	if b == nil {
		return nil, errors.New("bbolt: bucket missing")
	}
	b.FillPercent = s.fill
	return b, nil
}

func (s *store) begin(writable bool) (*tx, error) {
	btx, err := s.db.Begin(writable)
	if err != nil {
		return nil, err
	}
	b, err := s.bucket(btx)
	if err != nil {
		btx.Rollback()
		return nil, err
	}
	return &tx{tx: btx, b: b}, nil
}

func (s *store) NewView() (kv.View, error) { return s.begin(false) }

func (s *store) Begin(bool) (kv.Txn, error) { return s.begin(true) }

func (s *store) NewBatch() kv.Batch { return &batch{s: s} }

func (s *store) DeleteRange(start, end []byte) error {
	var keys [][]byte
	for {
		t, err := s.begin(true)
		if err != nil {
			return err
		}
		keys = keys[:0]
		c := t.b.Cursor()
		for k, _ := c.Seek(start); k != nil && bytes.Compare(k, end) < 0 && len(keys) < deleteChunk; k, _ = c.Next() {
			keys = append(keys, append([]byte(nil), k...))
		}
		for _, k := range keys {
			if err := t.b.Delete(k); err != nil {
				t.tx.Rollback()
				return err
			}
		}
		if err := t.tx.Commit(); err != nil {
			return err
		}
		if len(keys) < deleteChunk {
			return nil
		}
	}
}

// Size is bbolt's live size: the database's pages as a transaction sees
// them (Tx.Size: up to the high-water mark) less the free and pending
// pages (Stats.FreeAlloc) that deletes left for reuse. The file's
// preallocated tail beyond the high-water mark is not counted.
func (s *store) Size() (int64, error) {
	var size int64
	if err := s.db.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil }); err != nil {
		return -1, err
	}
	return max(size-int64(s.db.Stats().FreeAlloc), 0), nil
}

func (s *store) Close() error { return s.db.Close() }

// tx is a bbolt transaction: a read view, or a read-write Txn whose reads
// see its own writes.
type tx struct {
	tx *bolt.Tx
	b  *bolt.Bucket
	// vals keeps written values alive until commit: bbolt copies keys but
	// references values.
	vals []byte
}

func (t *tx) Get(key, dst []byte) ([]byte, bool, error) {
	// A cursor, not Bucket.Get, so an empty value is not taken for a
	// missing key.
	k, v := t.b.Cursor().Seek(key)
	if k == nil || !bytes.Equal(k, key) {
		return dst[:0], false, nil
	}
	return append(dst[:0], v...), true, nil
}

func (t *tx) NewIter(lower, upper []byte) (kv.Iter, error) {
	return &iter{c: t.b.Cursor(), lower: lower, upper: upper}, nil
}

func (t *tx) Set(key, value []byte) error {
	start := len(t.vals)
	t.vals = append(t.vals, value...)
	return t.b.Put(key, t.vals[start:len(t.vals):len(t.vals)])
}

func (t *tx) Delete(key []byte) error { return t.b.Delete(key) }
func (t *tx) Commit() error           { return t.tx.Commit() }
func (t *tx) Rollback() error         { return t.tx.Rollback() }
func (t *tx) Close() error            { return t.tx.Rollback() }

// batch buffers writes and applies them in one read-write transaction.
type batch struct {
	s    *store
	data []byte // keys and values, back to back
	ops  []op
}

type op struct {
	del         bool
	keyEnd, end int // key is data[start:keyEnd], value data[keyEnd:end]
}

func (b *batch) Set(key, value []byte) error {
	b.data = append(b.data, key...)
	ke := len(b.data)
	b.data = append(b.data, value...)
	b.ops = append(b.ops, op{keyEnd: ke, end: len(b.data)})
	return nil
}

func (b *batch) Delete(key []byte) error {
	b.data = append(b.data, key...)
	b.ops = append(b.ops, op{del: true, keyEnd: len(b.data), end: len(b.data)})
	return nil
}

func (b *batch) Len() int { return len(b.ops) }

func (b *batch) Reset() {
	b.data = b.data[:0]
	b.ops = b.ops[:0]
}

func (b *batch) Close() error {
	b.Reset()
	return nil
}

func (b *batch) Commit() error {
	defer b.Reset()
	if len(b.ops) == 0 {
		return nil
	}
	t, err := b.s.begin(true)
	if err != nil {
		return err
	}
	start := 0
	for _, o := range b.ops {
		key := b.data[start:o.keyEnd]
		if o.del {
			err = t.b.Delete(key)
		} else {
			// b.data is not touched until the commit returns, so the value
			// can be referenced without a copy.
			err = t.b.Put(key, b.data[o.keyEnd:o.end:o.end])
		}
		if err != nil {
			t.tx.Rollback()
			return err
		}
		start = o.end
	}
	return t.tx.Commit()
}

// iter is a bounded iterator on a bbolt cursor.
type iter struct {
	c            *bolt.Cursor
	lower, upper []byte
	k, v         []byte
}

func (it *iter) set(k, v []byte) bool {
	if k == nil || (it.upper != nil && bytes.Compare(k, it.upper) >= 0) || (it.lower != nil && bytes.Compare(k, it.lower) < 0) {
		it.k, it.v = nil, nil
		return false
	}
	it.k, it.v = k, v
	return true
}

func (it *iter) SeekGE(key []byte) bool {
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	return it.set(it.c.Seek(key))
}

func (it *iter) SeekLT(key []byte) bool {
	if it.upper != nil && bytes.Compare(key, it.upper) > 0 {
		key = it.upper
	}
	if k, _ := it.c.Seek(key); k == nil {
		return it.set(it.c.Last())
	}
	return it.set(it.c.Prev())
}

func (it *iter) First() bool {
	if it.lower != nil {
		return it.SeekGE(it.lower)
	}
	return it.set(it.c.First())
}

func (it *iter) Last() bool {
	if it.upper != nil {
		return it.SeekLT(it.upper)
	}
	return it.set(it.c.Last())
}

func (it *iter) Next() bool    { return it.set(it.c.Next()) }
func (it *iter) Prev() bool    { return it.set(it.c.Prev()) }
func (it *iter) Valid() bool   { return it.k != nil }
func (it *iter) Key() []byte   { return it.k }
func (it *iter) Value() []byte { return it.v }
func (it *iter) Error() error  { return nil }
func (it *iter) Close() error  { return nil }
