//go:build wiredtiger

package wiredtiger

/*
#cgo noescape rb_bulk_insert
#cgo nocallback rb_bulk_insert
#include <stdint.h>
#include <string.h>
#include <wiredtiger.h>

// rb_bulk_insert inserts n keys with empty values through a bulk cursor,
// keys[ends[i-1]:ends[i]], in one cgo call.
static int rb_bulk_insert(WT_CURSOR *c, const char *keys, const int64_t *ends, int n) {
	WT_ITEM k, v;
	memset(&k, 0, sizeof k);
	memset(&v, 0, sizeof v);
	int64_t start = 0;
	for (int i = 0; i < n; i++) {
		k.data = keys + start;
		k.size = (size_t)(ends[i] - start);
		start = ends[i];
		c->set_key(c, &k);
		c->set_value(c, &v);
		int r = c->insert(c);
		if (r != 0) return r;
	}
	return 0;
}

static int rb_bulk_close(WT_CURSOR *c) { return c->close(c); }
static int rb_bulk_session_close(WT_SESSION *s) { return s->close(s, NULL); }
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"rumbench/internal/engine/kv"
)

// The bulk path of index builds (kv.BulkLoader), as MongoDB builds an
// index: a bulk cursor (open_cursor "bulk") on a new, empty table, which
// WiredTiger fills by writing leaf pages straight to the file in key
// order, without the cache's insert lists, eviction or transactions. A
// bulk cursor needs the table to be exclusively its own, so the load drops
// the index's table (empty; other sessions may hold cursors on it) and
// creates it again with the same URI and configuration.

var _ kv.BulkLoader = (*store)(nil)

const bulkBatch = 1024 // keys per cgo call

// BulkDir implements kv.BulkLoader: WiredTiger's home (in the data dir).
func (s *store) BulkDir() string { return s.dir }

// NewBulkLoad implements kv.BulkLoader.
func (s *store) NewBulkLoad(start, end []byte, tmp string) (kv.BulkLoad, error) {
	ks, rest := route(start)
	if ks == metaSpace || len(rest) != 0 {
		return nil, fmt.Errorf("wiredtiger: bulk load of a range that is not one keyspace (%x)", start)
	}
	uri, err := s.uri(ks)
	if err != nil {
		return nil, err
	}
	// Drop (unregistering it, so no session reopens a cursor on it) and
	// create again: a bulk cursor needs a new object no handle holds.
	if err := s.DeleteRange(start, end); err != nil {
		return nil, err
	}
	// A session of its own: a pooled one may hold cursors on the
	// tables the next loads drop.
	ss, err := s.conn.openSession(s)
	if err != nil {
		return nil, err
	}
	l := &bulkLoad{s: s, ss: ss, ks: ks, uri: uri, start: start, end: end}
	if err := ss.create(uri, s.spaceConfig(start[kv.KeyspacePrefixLen-1] != 0)); err != nil {
		l.close()
		return nil, err
	}
	if l.c, err = ss.openCursor(uri, "bulk"); err != nil {
		l.close()
		l.register()
		return nil, err
	}
	return l, nil
}

type bulkLoad struct {
	s          *store
	ss         *session
	c          *C.WT_CURSOR
	ks         uint64
	uri        string
	start, end []byte
	buf        []byte // keys without their keyspace prefix
	ends       []int64
}

// register makes the table the keyspace's again.
func (l *bulkLoad) register() {
	l.s.spaceMu.Lock()
	l.s.spaces[l.ks] = l.uri
	l.s.spaceMu.Unlock()
}

func (l *bulkLoad) Add(key, value []byte) error {
	if len(value) != 0 {
		return errors.New("wiredtiger bulk load: index entries have empty values")
	}
	l.buf = append(l.buf, key[kv.KeyspacePrefixLen:]...)
	l.ends = append(l.ends, int64(len(l.buf)))
	if len(l.ends) < bulkBatch {
		return nil
	}
	return l.flush()
}

func (l *bulkLoad) flush() error {
	if len(l.ends) == 0 {
		return nil
	}
	r := C.rb_bulk_insert(l.c, (*C.char)(bytesPtr(l.buf)), (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(l.ends))), C.int(len(l.ends)))
	l.buf, l.ends = l.buf[:0], l.ends[:0]
	if r != 0 {
		return newError("bulk insert into "+l.uri, r)
	}
	return nil
}

// close closes the bulk cursor (which writes the last pages) and its
// session.
func (l *bulkLoad) close() error {
	var err error
	if l.c != nil {
		if r := C.rb_bulk_close(l.c); r != 0 {
			err = newError("close bulk cursor on "+l.uri, r)
		}
		l.c = nil
	}
	if l.ss != nil {
		if r := C.rb_bulk_session_close(l.ss.s); r != 0 && err == nil {
			err = newError("close bulk load session", r)
		}
		l.ss = nil
	}
	return err
}

// Finish closes the bulk cursor and registers the filled table.
func (l *bulkLoad) Finish() error {
	err := l.flush()
	if cerr := l.close(); err == nil {
		err = cerr
	}
	l.register()
	return err
}

// Abort drops the table's contents (the table itself: a later build
// creates the keyspace again).
func (l *bulkLoad) Abort() error {
	l.buf, l.ends = l.buf[:0], l.ends[:0]
	l.close()
	l.register()
	return l.s.DeleteRange(l.start, l.end)
}
