//go:build wiredtiger

package wiredtiger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/model"
)

const (
	tableURI = "table:rumbench"
	fileURI  = "file:rumbench.wt" // the table's B-tree file, which holds its block_compressor
	// sessionMax bounds the open sessions: one per concurrent operation,
	// plus WiredTiger's own threads.
	sessionMax = 512
	// deleteChunk bounds the keys DeleteRange removes per transaction, so a
	// dropped table does not become one huge transaction pinning the cache.
	deleteChunk = 10000
	// commitRetries is how often a batch is retried after WT_ROLLBACK (a
	// conflict or cache pressure): its writes are blind, so a retry is safe.
	commitRetries = 10
)

func init() { engine.Register(Driver{}) }

// Driver is the wiredtiger model.Driver.
type Driver struct{}

// Name implements model.Driver.
func (Driver) Name() string { return "wiredtiger" }

// Family implements model.Driver.
func (Driver) Family() model.Family { return model.CoWBTree }

// Kind implements model.Driver.
func (Driver) Kind() model.Kind { return model.Embedded }

// Description implements model.Driver.
func (Driver) Description() string {
	return "WiredTiger copy-on-write B-tree with a log (MongoDB's engine, libwiredtiger through cgo), embedded"
}

// Options implements model.Driver.
func (Driver) Options() []model.Option {
	return append([]model.Option{
		{Key: "cache_size", Default: "256MB", Help: "WiredTiger cache size in bytes (plain bytes or with a unit: 256MB, 1GiB; units are 1024-based), at least 1MB; the default is MongoDB's minimum: the cache holds dirty pages too, and eviction forces application threads to write pages once 20% of it is dirty"},
		{Key: "block_compressor", Default: "snappy", Help: "page compression: none, snappy or zlib (the extension from Debian's libwiredtiger0); applies when the table is created"},
		{Key: "prefix_compression", Default: "true", Help: "compress key prefixes within pages (as MongoDB does for indexes); applies when the table is created"},
		{Key: "checkpoint_wait", Default: "60", Help: "seconds between checkpoints (MongoDB's default 60); 0: only at close"},
		{Key: "log", Default: "true", Help: "write-ahead log (MongoDB's journal); false: commits are durable only at the next checkpoint"},
		{Key: "sync", Default: "false", Help: "fsync the log at every commit (true: durable against power loss); the default false writes the log to the OS at every commit (transaction_sync method=none), durable against a process crash"},
	}, kv.Options()...)
}

// Available implements model.Driver: libwiredtiger is linked in.
func (Driver) Available() error { return nil }

type settings struct {
	kv                  kv.Config // the kv layer's own options (unique_check)
	cacheSize           int64
	compressor          string
	prefixCompression   bool
	checkpointWait      int
	log, sync           bool
	extensions          []string
	compressorExtension string
}

func parseOptions(opts map[string]string) (settings, error) {
	var s settings
	get := kv.OptionGetter(opts, Driver{}.Options())
	var err error
	if s.cacheSize, err = kv.ParseSize("cache_size", get("cache_size")); err != nil {
		return s, err
	}
	if s.cacheSize < 1<<20 || s.cacheSize > 10<<40 {
		return s, fmt.Errorf("engine option cache_size=%q: want a size from 1MB to 10TB", get("cache_size"))
	}
	if s.compressor, err = kv.ParseChoice("block_compressor", get("block_compressor"), "none", "snappy", "zlib"); err != nil {
		return s, err
	}
	if s.prefixCompression, err = kv.ParseBool("prefix_compression", get("prefix_compression")); err != nil {
		return s, err
	}
	n, err := kv.ParseInt("checkpoint_wait", get("checkpoint_wait"), 0, 100000)
	if err != nil {
		return s, err
	}
	s.checkpointWait = int(n)
	if s.log, err = kv.ParseBool("log", get("log")); err != nil {
		return s, err
	}
	if s.sync, err = kv.ParseBool("sync", get("sync")); err != nil {
		return s, err
	}
	if s.sync && !s.log {
		return s, errors.New("engine options sync=true and log=false conflict: sync applies to the log")
	}
	// Both compressors are loaded when present, so that a table created
	// with either can be reopened whatever block_compressor says now.
	for _, name := range []string{"snappy", "zlib"} {
		if path := findExtension(name); path != "" {
			s.extensions = append(s.extensions, path)
			if name == s.compressor {
				s.compressorExtension = path
			}
		}
	}
	if s.compressor != "none" && s.compressorExtension == "" {
		return s, fmt.Errorf("engine option block_compressor=%s: libwiredtiger_%s.so not found in %s (install libwiredtiger0)", s.compressor, s.compressor, strings.Join(extensionDirs, ", "))
	}
	if s.kv, err = kv.ParseConfig(get); err != nil {
		return s, err
	}
	return s, nil
}

// extensionDirs are where Debian (multiarch) and source builds put
// WiredTiger's compressor extensions.
var extensionDirs = []string{"/usr/lib/*-linux-gnu", "/usr/lib", "/usr/local/lib"}

func findExtension(name string) string {
	for _, dir := range extensionDirs {
		m, _ := filepath.Glob(filepath.Join(dir, "libwiredtiger_"+name+".so"))
		if len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// openConfig is the wiredtiger_open configuration.
func (s settings) openConfig() string {
	var b strings.Builder
	fmt.Fprintf(&b, "create,cache_size=%d,session_max=%d,statistics=(fast),checkpoint=(wait=%d)", s.cacheSize, sessionMax, s.checkpointWait)
	if s.log {
		// method=none writes the log to the OS at commit without a flush.
		method := "none"
		if s.sync {
			method = "fsync"
		}
		fmt.Fprintf(&b, ",log=(enabled=true,archive=true),transaction_sync=(enabled=true,method=%s)", method)
	} else {
		b.WriteString(",log=(enabled=false)")
	}
	if len(s.extensions) > 0 {
		b.WriteString(",extensions=[")
		for i, e := range s.extensions {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(e))
		}
		b.WriteByte(']')
	}
	return b.String()
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
		return nil, errors.New("wiredtiger needs a data dir")
	}
	st, compressor, err := openStore(filepath.Join(cfg.DataDir, "wiredtiger"), s)
	if err != nil {
		return nil, err
	}
	method := "none"
	if s.sync {
		method = "fsync"
	}
	info := model.Info{
		Name:    "wiredtiger",
		Family:  model.CoWBTree,
		Kind:    model.Embedded,
		Version: version(),
		Settings: map[string]string{
			"cache_size":         strconv.FormatInt(s.cacheSize, 10),
			"block_compressor":   compressor,
			"prefix_compression": strconv.FormatBool(s.prefixCompression),
			"checkpoint_wait":    strconv.Itoa(s.checkpointWait),
			"log":                strconv.FormatBool(s.log),
			"sync":               strconv.FormatBool(s.sync),
			"transaction_sync":   "method=" + method,
			"session_max":        strconv.Itoa(sessionMax),
		},
	}
	if !s.log {
		info.Settings["transaction_sync"] = "none (no log)"
	}
	s.kv.Record(info.Settings)
	d, err := kv.Open(st, info, s.kv)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("wiredtiger: %w", err)
	}
	return &DB{DB: d, st: st}, nil
}

// openStore opens the connection and creates the table if needed. It
// returns the block compressor the table actually has (it is fixed when
// the table is created).
func openStore(dir string, s settings) (*store, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("wiredtiger data dir: %w", err)
	}
	c, err := openConn(dir, s.openConfig())
	if err != nil {
		return nil, "", fmt.Errorf("open wiredtiger in %s: %w", dir, err)
	}
	st := &store{conn: c, dir: dir}
	ss, err := c.openSession("metadata:")
	if err == nil {
		err = ss.create(tableURI, fmt.Sprintf("key_format=u,value_format=u,block_compressor=%s,prefix_compression=%v", s.compressor, s.prefixCompression))
	}
	var meta string
	if err == nil {
		meta, err = ss.metadata(fileURI)
	}
	if err != nil {
		c.close()
		return nil, "", fmt.Errorf("wiredtiger in %s: %w", dir, err)
	}
	compressor := "none"
	if _, rest, ok := strings.Cut(meta, "block_compressor="); ok {
		if v, _, _ := strings.Cut(rest, ","); v != "" && v != `""` {
			compressor = strings.Trim(v, `"`)
		}
	}
	return st, compressor, nil
}

// DB is the wiredtiger engine: the kv table layer plus WiredTiger's
// statistics and checkpoints.
type DB struct {
	*kv.DB
	st *store
}

var (
	_ model.StatsReporter = (*DB)(nil)
	_ model.Maintainer    = (*DB)(nil)
)

// statPrefixes are the statistics categories reported in full (non-zero
// values, keyed by WiredTiger's description).
var statPrefixes = []string{"cache: ", "block-manager: ", "log: ", "transaction: ", "reconciliation: "}

// headline statistics under short names.
var headline = map[string]string{
	"cache: bytes currently in the cache":                           "cache_bytes",
	"cache: maximum bytes configured":                               "cache_max_bytes",
	"cache: tracked dirty bytes in the cache":                       "cache_dirty_bytes",
	"cache: bytes read into cache":                                  "cache_bytes_read",
	"cache: bytes written from cache":                               "cache_bytes_written",
	"cache: pages read into cache":                                  "cache_pages_read",
	"cache: pages written from cache":                               "cache_pages_written",
	"cache: modified pages evicted":                                 "evicted_modified_pages",
	"cache: unmodified pages evicted":                               "evicted_unmodified_pages",
	"cache: pages evicted by application threads":                   "evicted_by_app_threads",
	"cache: application threads page read from disk to cache count": "app_thread_page_reads",
	"transaction: transaction checkpoints":                          "checkpoints",
	"transaction: transaction checkpoint total time (msecs)":        "checkpoint_total_ms",
	"transaction: transaction checkpoint max time (msecs)":          "checkpoint_max_ms",
	"transaction: transaction checkpoint most recent time (msecs)":  "checkpoint_last_ms",
	"transaction: transactions committed":                           "commits",
	"transaction: transactions rolled back":                         "rollbacks",
	"block-manager: bytes written":                                  "block_bytes_written",
	"block-manager: bytes read":                                     "block_bytes_read",
	"log: log bytes written":                                        "log_bytes_written",
	"log: log sync operations":                                      "log_syncs",
}

// Stats implements model.StatsReporter with the connection's statistics
// (statistics=(fast); cumulative since open).
func (d *DB) Stats(ctx context.Context) (map[string]any, error) {
	if d.Closed() {
		return nil, errors.New("engine is closed")
	}
	ss, err := d.st.get()
	if err != nil {
		return nil, err
	}
	defer d.st.put(ss)
	all := map[string]int64{}
	out := map[string]any{}
	err = ss.stats("statistics:", func(desc string, val int64) {
		if short, ok := headline[desc]; ok {
			out[short] = val
		}
		if val == 0 {
			return
		}
		for _, p := range statPrefixes {
			if strings.HasPrefix(desc, p) {
				all[desc] = val
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out["statistics"] = all
	return out, nil
}

// Maintain implements model.Maintainer: a checkpoint, which writes every
// dirty page and lets the log be archived.
func (d *DB) Maintain(ctx context.Context) error {
	if d.Closed() {
		return errors.New("engine is closed")
	}
	ss, err := d.st.get()
	if err != nil {
		return err
	}
	defer d.st.put(ss)
	return ss.checkpoint()
}

// ---- kv.Store on WiredTiger ----

type store struct {
	conn *conn
	dir  string
	mu   sync.Mutex
	free []*session // idle sessions, each with its table cursor open
}

// get takes an idle session or opens one.
func (s *store) get() (*session, error) {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		ss := s.free[n-1]
		s.free = s.free[:n-1]
		s.mu.Unlock()
		return ss, nil
	}
	s.mu.Unlock()
	return s.conn.openSession(tableURI)
}

// put returns a session to the pool (rolling back a transaction left open
// by an error path).
func (s *store) put(ss *session) {
	if ss.inTxn {
		ss.rollback()
	}
	s.mu.Lock()
	s.free = append(s.free, ss)
	s.mu.Unlock()
}

func (s *store) NewView() (kv.View, error) {
	ss, err := s.get()
	if err != nil {
		return nil, err
	}
	// A transaction gives the view one snapshot for all its reads.
	if err := ss.begin(); err != nil {
		s.put(ss)
		return nil, err
	}
	return &view{st: s, ss: ss}, nil
}

func (s *store) NewBatch() kv.Batch { return &batch{st: s} }

func (s *store) Begin(bool) (kv.Txn, error) {
	ss, err := s.get()
	if err != nil {
		return nil, err
	}
	if err := ss.begin(); err != nil {
		s.put(ss)
		return nil, err
	}
	// Writes go to WiredTiger at once, inside the transaction: reads see
	// them whatever readOwnWrites asks.
	return &txn{st: s, ss: ss}, nil
}

func (s *store) DeleteRange(start, end []byte) error {
	var keys []byte
	var ends []int
	for {
		ss, err := s.get()
		if err != nil {
			return err
		}
		n, err := func() (int, error) {
			defer s.put(ss)
			if err := ss.begin(); err != nil {
				return 0, err
			}
			it, err := ss.newIter(tableURI, start, end)
			if err != nil {
				return 0, err
			}
			keys, ends = keys[:0], ends[:0]
			for ok := it.First(); ok && len(ends) < deleteChunk; ok = it.Next() {
				keys = append(keys, it.Key()...)
				ends = append(ends, len(keys))
			}
			if err := it.Close(); err != nil {
				return 0, err
			}
			from := 0
			for _, e := range ends {
				if err := ss.remove(keys[from:e]); err != nil {
					return 0, err
				}
				from = e
			}
			return len(ends), ss.commit()
		}()
		if err != nil {
			return fmt.Errorf("delete range: %w", err)
		}
		if n < deleteChunk {
			return nil
		}
	}
}

// Size is the size of the files in the data dir: the table, WiredTiger's
// metadata and history files and the log (including preallocated log
// files).
func (s *store) Size() (int64, error) { return kv.DirFileBytes(s.dir) }

// Close closes the connection, which closes every session and writes a
// final checkpoint.
func (s *store) Close() error {
	s.mu.Lock()
	s.free = nil
	s.mu.Unlock()
	return s.conn.close()
}

// view reads in a snapshot transaction.
type view struct {
	st *store
	ss *session
}

func (v *view) Get(key, dst []byte) ([]byte, bool, error) { return v.ss.get(key, dst) }
func (v *view) NewIter(lower, upper []byte) (kv.Iter, error) {
	return v.ss.newIter(tableURI, lower, upper)
}

func (v *view) Close() error {
	if v.ss == nil {
		return nil
	}
	// Commit, not rollback: WiredTiger's rollback counter then counts
	// only failed writes.
	err := v.ss.commit()
	v.st.put(v.ss)
	v.ss = nil
	return err
}

// batch buffers writes in Go and applies them in one cgo call.
type batch struct {
	st   *store
	data []byte  // keys and values, back to back
	ops  []int64 // per write: key length, value length (-1: delete)
}

func (b *batch) Set(key, value []byte) error {
	b.data = append(append(b.data, key...), value...)
	b.ops = append(b.ops, int64(len(key)), int64(len(value)))
	return nil
}

func (b *batch) Delete(key []byte) error {
	b.data = append(b.data, key...)
	b.ops = append(b.ops, int64(len(key)), -1)
	return nil
}

func (b *batch) Len() int { return len(b.ops) / 2 }

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
	ss, err := b.st.get()
	if err != nil {
		return err
	}
	defer b.st.put(ss)
	for try := 0; ; try++ {
		err = ss.apply(b.data, b.ops)
		if err == nil || !isCode(err, wtRollback) || try == commitRetries {
			return err
		}
		time.Sleep(time.Duration(try+1) * time.Millisecond)
	}
}

// txn is a WiredTiger transaction on its own session.
type txn struct {
	st *store
	ss *session
}

func (t *txn) Get(key, dst []byte) ([]byte, bool, error) { return t.ss.get(key, dst) }
func (t *txn) NewIter(lower, upper []byte) (kv.Iter, error) {
	return t.ss.newIter(tableURI, lower, upper)
}
func (t *txn) Set(key, value []byte) error { return t.ss.put(key, value) }
func (t *txn) Delete(key []byte) error     { return t.ss.remove(key) }

func (t *txn) Commit() error {
	if t.ss == nil {
		return errors.New("wiredtiger: transaction already finished")
	}
	err := t.ss.commit()
	t.st.put(t.ss)
	t.ss = nil
	return err
}

func (t *txn) Rollback() error {
	if t.ss == nil {
		return nil
	}
	err := t.ss.rollback()
	t.st.put(t.ss)
	t.ss = nil
	return err
}
