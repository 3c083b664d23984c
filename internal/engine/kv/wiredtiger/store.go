//go:build wiredtiger

package wiredtiger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"rumbench/internal/engine/kv"
)

// The kv store over a WiredTiger connection: sessions, keyspaces as
// tables, views, batches and transactions.

type store struct {
	conn        *conn
	dir         string
	tableConfig string // WT_SESSION::create config of a keyspace's table, without prefix_compression
	// prefixCompression is the prefix_compression option (spaceConfig).
	prefixCompression string
	mu                sync.Mutex
	free              []*session // idle sessions, with their cursors open
	// spaces maps each live keyspace to its table's URI; gen counts drops,
	// so sessions know when to close cursors on dropped tables.
	spaceMu sync.RWMutex
	spaces  map[uint64]string
	gen     uint64
}

var (
	_ kv.Keyspaces       = (*store)(nil)
	_ kv.ConcurrentStore = (*store)(nil)
)

// uri returns the table of keyspace ks.
func (s *store) uri(ks uint64) (string, error) {
	s.spaceMu.RLock()
	uri, ok := s.spaces[ks]
	s.spaceMu.RUnlock()
	if !ok {
		return "", fmt.Errorf("wiredtiger: no table for keyspace %d.%d (dropped, or never created)", ks>>8, ks&0xFF)
	}
	return uri, nil
}

// syncSession closes the session's cursors on dropped keyspaces.
func (s *store) syncSession(ss *session) {
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	if ss.gen == s.gen {
		return
	}
	ss.prune(func(ks uint64) bool { _, ok := s.spaces[ks]; return ok })
	ss.gen = s.gen
}

// get takes an idle session or opens one.
func (s *store) get() (*session, error) {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		ss := s.free[n-1]
		s.free = s.free[:n-1]
		s.mu.Unlock()
		s.syncSession(ss)
		return ss, nil
	}
	s.mu.Unlock()
	ss, err := s.conn.openSession(s)
	if err != nil {
		return nil, err
	}
	s.spaceMu.RLock()
	ss.gen = s.gen
	s.spaceMu.RUnlock()
	return ss, nil
}

// put returns a session to the pool (rolling back a transaction left open
// by an error path).
func (s *store) put(ss *session) {
	if ss.inTxn {
		ss.rollback()
	}
	s.syncSession(ss)
	s.mu.Lock()
	s.free = append(s.free, ss)
	s.mu.Unlock()
}

// CreateKeyspace implements kv.Keyspaces: a WiredTiger table per table's
// primary key and per secondary index, as MongoDB keeps a collection and
// each of its indexes.
func (s *store) CreateKeyspace(prefix []byte, name string) error {
	ks, rest := route(prefix)
	if ks == metaSpace || len(rest) != 0 {
		return fmt.Errorf("wiredtiger: bad keyspace prefix %x", prefix)
	}
	s.spaceMu.RLock()
	_, ok := s.spaces[ks]
	s.spaceMu.RUnlock()
	if ok {
		return nil
	}
	uri := spaceURI(ks, name)
	ss, err := s.get()
	if err != nil {
		return err
	}
	defer s.put(ss)
	if err := ss.create(uri, s.spaceConfig(prefix[kv.KeyspacePrefixLen-1] != 0)); err != nil {
		return err
	}
	s.spaceMu.Lock()
	s.spaces[ks] = uri
	s.spaceMu.Unlock()
	return nil
}

// spaceConfig is the create configuration of a table's primary key
// (index false) or of a secondary index. With prefix_compression=indexes
// only indexes compress key prefixes, as MongoDB configures its indexes and
// collections. In WiredTiger 3.2 a prefix-compressed leaf page builds a key
// by walking back to the last whole one, which made LinkBench's descending
// link-list scans cost 70% of the CPU (1M nodes: 570 req/s with every
// keyspace compressed, 3,161 with indexes only, 7,685 with none).
func (s *store) spaceConfig(index bool) string {
	on := s.prefixCompression == "true" || (s.prefixCompression == "indexes" && index)
	return s.tableConfig + ",prefix_compression=" + strconv.FormatBool(on)
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

// Begin starts a snapshot transaction: a write to a row that another
// transaction wrote after this one's snapshot (committed or not) fails with
// WT_ROLLBACK, so a row read, then updated by someone else, then deleted
// here is a conflict (kv.ConcurrentStore).
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

// BeginUpdate implements kv.ConcurrentStore with a snapshot transaction:
// concurrent updates of one row conflict (WT_ROLLBACK, first writer wins),
// as in MongoDB, which retries such a WriteConflict.
func (s *store) BeginUpdate() (kv.UpdateTxn, error) {
	t, err := s.Begin(false)
	if err != nil {
		return nil, err
	}
	return t.(*txn), nil
}

// DeleteRange implements kv.Store for whole keyspaces (the kv.Keyspaces
// contract): it drops their tables.
func (s *store) DeleteRange(start, end []byte) error {
	var uris []string
	s.spaceMu.Lock()
	for ks, uri := range s.spaces {
		if ks == metaSpace {
			continue
		}
		p := binary.BigEndian.AppendUint32(nil, uint32(ks>>8))
		p = append(p, byte(ks))
		if bytes.Compare(p, start) >= 0 && bytes.Compare(p, end) < 0 {
			uris = append(uris, uri)
			delete(s.spaces, ks)
		}
	}
	if len(uris) > 0 {
		s.gen++
	}
	s.spaceMu.Unlock()
	for _, uri := range uris {
		if err := s.drop(uri); err != nil {
			return fmt.Errorf("delete range: %w", err)
		}
	}
	return nil
}

// dropWait bounds how long a drop waits for sessions to close their
// cursors on the table (each does when it returns to the pool).
const dropWait = 30 * time.Second

func (s *store) drop(uri string) error {
	deadline := time.Now().Add(dropWait)
	for {
		// Close the idle sessions' cursors on the table first.
		s.mu.Lock()
		idle := append([]*session(nil), s.free...)
		s.free = s.free[:0]
		s.mu.Unlock()
		for _, ss := range idle {
			s.syncSession(ss)
		}
		var err error
		if len(idle) > 0 {
			err = idle[0].drop(uri)
		} else {
			var ss *session
			if ss, err = s.get(); err == nil {
				err = ss.drop(uri)
				idle = append(idle, ss)
			}
		}
		s.mu.Lock()
		s.free = append(s.free, idle...)
		s.mu.Unlock()
		if err == nil || !isCode(err, ebusy) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// objectBytes is the file size of each table and index (and of the
// metadata table), by file name.
func (s *store) objectBytes() map[string]int64 {
	s.spaceMu.RLock()
	uris := make([]string, 0, len(s.spaces))
	for _, uri := range s.spaces {
		uris = append(uris, uri)
	}
	s.spaceMu.RUnlock()
	out := make(map[string]int64, len(uris))
	for _, uri := range uris {
		name := strings.TrimPrefix(uri, "table:") + ".wt"
		if fi, err := os.Stat(filepath.Join(s.dir, name)); err == nil {
			out[name] = fi.Size()
		}
	}
	return out
}

// Size is WiredTiger's live size as MongoDB's storageSize reports it: the
// files of rumbench's tables and indexes, plus the history store
// (WiredTigerHS.wt, or WiredTigerLAS.wt in older releases). The log is not
// counted: its files are preallocated to their full size (100 MB each), and
// WiredTiger does not say how much of them holds changes the tables lack;
// so until the first checkpoint (checkpoint_wait, or maint) or eviction
// writes them, rows live only in the cache and the log and this figure
// understates (docs/metrics.md).
func (s *store) Size() (int64, error) {
	var n int64
	for _, b := range s.objectBytes() {
		n += b
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return -1, fmt.Errorf("wiredtiger: list the data dir: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || (name != "WiredTigerHS.wt" && name != "WiredTigerLAS.wt") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}

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
	return v.ss.newIter(lower, upper)
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
	st     *store
	data   []byte   // keys (without their keyspace prefix) and values, back to back
	ops    []int64  // per write: key length, value length (-1: delete)
	spaces []uint64 // per write: its keyspace
}

func (b *batch) Set(key, value []byte) error {
	ks, rest := route(key)
	b.data = append(append(b.data, rest...), value...)
	b.ops = append(b.ops, int64(len(rest)), int64(len(value)))
	b.spaces = append(b.spaces, ks)
	return nil
}

func (b *batch) Delete(key []byte) error {
	ks, rest := route(key)
	b.data = append(b.data, rest...)
	b.ops = append(b.ops, int64(len(rest)), -1)
	b.spaces = append(b.spaces, ks)
	return nil
}

func (b *batch) Len() int { return len(b.ops) / 2 }

func (b *batch) Reset() {
	b.data = b.data[:0]
	b.ops = b.ops[:0]
	b.spaces = b.spaces[:0]
}

func (b *batch) Close() error {
	b.Reset()
	return nil
}

// Commit applies the batch in one transaction. After WT_ROLLBACK (a write
// conflict, or WiredTiger rolling the transaction back to relieve cache
// pressure) the batch keeps its writes: the kv layer commits it again
// after a backoff (kv.Batch).
func (b *batch) Commit() error {
	if len(b.ops) == 0 {
		return nil
	}
	ss, err := b.st.get()
	if err != nil {
		b.Reset()
		return err
	}
	err = ss.apply(b.data, b.ops, b.spaces)
	b.st.put(ss)
	if err == nil || !isCode(err, wtRollback) {
		b.Reset()
	}
	return err
}

// txn is a WiredTiger transaction on its own session.
type txn struct {
	st *store
	ss *session
}

func (t *txn) Get(key, dst []byte) ([]byte, bool, error) { return t.ss.get(key, dst) }
func (t *txn) NewIter(lower, upper []byte) (kv.Iter, error) {
	return t.ss.newIter(lower, upper)
}

// GetForUpdate implements kv.UpdateTxn: a snapshot read; a concurrent
// update of the key makes this transaction's write of it fail.
func (t *txn) GetForUpdate(key, dst []byte) ([]byte, bool, error) { return t.ss.get(key, dst) }
func (t *txn) Set(key, value []byte) error                        { return t.ss.put(key, value) }
func (t *txn) Delete(key []byte) error                            { return t.ss.remove(key) }

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
