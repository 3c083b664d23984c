//go:build wiredtiger

package wiredtiger

// The C side: cgo cannot call WiredTiger's method pointers
// (WT_CONNECTION, WT_SESSION, WT_CURSOR), so small C functions call them,
// and the hot ones (a Get, an iterator step, a whole batch) do their work
// in one cgo call.

/*
#cgo LDFLAGS: -lwiredtiger
#cgo noescape rb_get
#cgo nocallback rb_get
#cgo noescape rb_put
#cgo nocallback rb_put
#cgo noescape rb_remove
#cgo nocallback rb_remove
#cgo noescape rb_move
#cgo nocallback rb_move
#cgo noescape rb_apply
#cgo nocallback rb_apply
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <errno.h>
#include <wiredtiger.h>

// The last error message WiredTiger reported (it names the cause, which
// the error code alone does not), instead of printing it on stderr.
static pthread_mutex_t rb_err_mu = PTHREAD_MUTEX_INITIALIZER;
static char rb_err_msg[1024];
static unsigned long rb_err_seq;

static int rb_handle_error(WT_EVENT_HANDLER *h, WT_SESSION *s, int err, const char *msg) {
	pthread_mutex_lock(&rb_err_mu);
	strncpy(rb_err_msg, msg, sizeof rb_err_msg - 1);
	rb_err_seq++;
	pthread_mutex_unlock(&rb_err_mu);
	return 0;
}

static int rb_handle_message(WT_EVENT_HANDLER *h, WT_SESSION *s, const char *msg) { return 0; }

static WT_EVENT_HANDLER rb_events = { rb_handle_error, rb_handle_message, NULL, NULL };

// rb_last_error copies the last message into buf (1024 bytes) and returns
// its sequence number.
static unsigned long rb_last_error(char *buf) {
	pthread_mutex_lock(&rb_err_mu);
	memcpy(buf, rb_err_msg, sizeof rb_err_msg);
	unsigned long seq = rb_err_seq;
	pthread_mutex_unlock(&rb_err_mu);
	return seq;
}

static int rb_open(const char *home, const char *cfg, WT_CONNECTION **c) {
	return wiredtiger_open(home, &rb_events, cfg, c);
}
static int rb_close(WT_CONNECTION *c) { return c->close(c, NULL); }
static int rb_open_session(WT_CONNECTION *c, WT_SESSION **s) {
	return c->open_session(c, &rb_events, "isolation=snapshot", s);
}
static int rb_session_close(WT_SESSION *s) { return s->close(s, NULL); }
static int rb_create(WT_SESSION *s, const char *uri, const char *cfg) { return s->create(s, uri, cfg); }
static int rb_drop(WT_SESSION *s, const char *uri) { return s->drop(s, uri, NULL); }
static int rb_open_cursor(WT_SESSION *s, const char *uri, const char *cfg, WT_CURSOR **c) {
	return s->open_cursor(s, uri, NULL, cfg, c);
}
static int rb_cursor_close(WT_CURSOR *c) { return c->close(c); }
static int rb_reset(WT_CURSOR *c) { return c->reset(c); }
static int rb_begin(WT_SESSION *s) { return s->begin_transaction(s, NULL); }
static int rb_commit(WT_SESSION *s) { return s->commit_transaction(s, NULL); }
static int rb_rollback(WT_SESSION *s) { return s->rollback_transaction(s, NULL); }
static int rb_checkpoint(WT_SESSION *s) { return s->checkpoint(s, NULL); }

static void rb_set_key(WT_CURSOR *c, const void *k, size_t kn) {
	WT_ITEM key;
	memset(&key, 0, sizeof key);
	key.data = k;
	key.size = kn;
	c->set_key(c, &key);
}

// rb_get looks key up and copies its value into dst when it fits in cap;
// *vn is the value's length either way. The cursor is reset, so it holds
// no page and no reference to key.
static int rb_get(WT_CURSOR *c, const void *k, size_t kn, void *dst, size_t cap, size_t *vn) {
	rb_set_key(c, k, kn);
	int r = c->search(c);
	if (r == 0) {
		WT_ITEM v;
		r = c->get_value(c, &v);
		if (r == 0) {
			*vn = v.size;
			if (v.size <= cap && v.size > 0) memcpy(dst, v.data, v.size);
		}
	}
	c->reset(c);
	return r;
}

// rb_put inserts or overwrites (the cursor's overwrite=true default).
static int rb_put(WT_CURSOR *c, const void *k, size_t kn, const void *v, size_t vn) {
	WT_ITEM val;
	memset(&val, 0, sizeof val);
	val.data = v;
	val.size = vn;
	rb_set_key(c, k, kn);
	c->set_value(c, &val);
	int r = c->insert(c);
	c->reset(c);
	return r;
}

// rb_remove removes key; a missing key is not an error.
static int rb_remove(WT_CURSOR *c, const void *k, size_t kn) {
	rb_set_key(c, k, kn);
	int r = c->remove(c);
	if (r == WT_NOTFOUND) r = 0;
	c->reset(c);
	return r;
}

// rb_apply applies a batch in one transaction: op i writes through cursor
// cs[i] a key of ops[2i] bytes, then a value of ops[2i+1] bytes (-1: remove
// the key), back to back in data. On failure the transaction is rolled
// back.
static int rb_apply(WT_SESSION *s, WT_CURSOR **cs, const char *data, const int64_t *ops, int64_t n) {
	int r = s->begin_transaction(s, NULL);
	if (r != 0) return r;
	const char *p = data;
	for (int64_t i = 0; i < n; i++) {
		WT_CURSOR *c = cs[i];
		int64_t kn = ops[2*i], vn = ops[2*i+1];
		rb_set_key(c, p, (size_t)kn);
		p += kn;
		if (vn < 0) {
			r = c->remove(c);
			if (r == WT_NOTFOUND) r = 0;
		} else {
			WT_ITEM val;
			memset(&val, 0, sizeof val);
			val.data = p;
			val.size = (size_t)vn;
			p += vn;
			c->set_value(c, &val);
			r = c->insert(c);
		}
		c->reset(c);
		if (r != 0) {
			s->rollback_transaction(s, NULL);
			return r;
		}
	}
	// A failed commit rolls the transaction back.
	return s->commit_transaction(s, NULL);
}

// rb_pos is an iterator's position: key and value in WiredTiger's memory,
// valid until the cursor moves.
typedef struct {
	const void *k, *v;
	size_t kn, vn;
	int valid;
} rb_pos;

enum { RB_FIRST, RB_LAST, RB_SEEK_GE, RB_SEEK_LT, RB_NEXT, RB_PREV };

static int rb_move(WT_CURSOR *c, int op, const void *k, size_t kn, rb_pos *p) {
	int r = 0, exact = 0;
	switch (op) {
	case RB_FIRST:
		c->reset(c);
		r = c->next(c);
		break;
	case RB_LAST:
		c->reset(c);
		r = c->prev(c);
		break;
	case RB_SEEK_GE:
		rb_set_key(c, k, kn);
		r = c->search_near(c, &exact);
		if (r == 0 && exact < 0) r = c->next(c);
		break;
	case RB_SEEK_LT:
		rb_set_key(c, k, kn);
		r = c->search_near(c, &exact);
		if (r == 0 && exact >= 0) r = c->prev(c);
		break;
	case RB_NEXT:
		r = c->next(c);
		break;
	case RB_PREV:
		r = c->prev(c);
		break;
	}
	p->valid = 0;
	if (r == 0) {
		WT_ITEM kk, vv;
		r = c->get_key(c, &kk);
		if (r == 0) r = c->get_value(c, &vv);
		if (r == 0) {
			p->k = kk.data;
			p->kn = kk.size;
			p->v = vv.data;
			p->vn = vv.size;
			p->valid = 1;
		}
	}
	return r == WT_NOTFOUND ? 0 : r;
}

// rb_stat_next steps a statistics cursor.
static int rb_stat_next(WT_CURSOR *c, const char **desc, int64_t *val) {
	int r = c->next(c);
	if (r != 0) return r;
	const char *pv;
	return c->get_value(c, desc, &pv, val);
}

// rb_meta_next steps a metadata cursor; *key points into the cursor.
static int rb_meta_next(WT_CURSOR *c, const char **key) {
	int r = c->next(c);
	if (r == 0) r = c->get_key(c, key);
	return r;
}

// rb_meta_get reads the metadata of uri; *val points into the cursor.
static int rb_meta_get(WT_CURSOR *c, const char *uri, const char **val) {
	c->set_key(c, uri);
	int r = c->search(c);
	if (r == 0) r = c->get_value(c, val);
	return r;
}
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"rumbench/internal/engine/kv"
	"rumbench/internal/model"
)

const (
	wtNotFound = int(C.WT_NOTFOUND)
	wtRollback = int(C.WT_ROLLBACK)
	ebusy      = int(C.EBUSY) // a drop of a table with open cursors or a checkpoint running
)

// wtError is an error returned by WiredTiger.
type wtError struct {
	code int
	msg  string
}

func (e *wtError) Error() string { return e.msg }

// Is makes WT_ROLLBACK (a write conflict between snapshot transactions, or
// a transaction rolled back to relieve cache pressure) a kv.ErrConflict:
// the transaction was rolled back and may be run again. Like a deadlock
// the engine rolled the loser back at once (model.ErrDeadlock). ENOSPC is
// a full disk.
func (e *wtError) Is(target error) bool {
	switch e.code {
	case wtRollback:
		return target == kv.ErrConflict || target == model.ErrDeadlock || target == model.ErrConflict
	case int(syscall.ENOSPC):
		return target == model.ErrDiskFull
	}
	return false
}

var lastErr struct {
	mu   sync.Mutex
	seen C.ulong
	buf  [1024]byte
}

// newError turns a WiredTiger return code into an error with the library's
// text for it, and the message it reported for the failure if there is a
// new one (the messages are global: under concurrent failures another
// goroutine's may show).
func newError(op string, code C.int) error {
	msg := C.GoString(C.wiredtiger_strerror(code))
	lastErr.mu.Lock()
	seq := C.rb_last_error((*C.char)(unsafe.Pointer(&lastErr.buf[0])))
	if seq != lastErr.seen {
		lastErr.seen = seq
		detail := lastErr.buf[:]
		if i := bytes.IndexByte(detail, 0); i >= 0 {
			detail = detail[:i]
		}
		d := string(detail)
		// Drop the "[time][pid:thread], " prefix of WiredTiger's messages.
		for strings.HasPrefix(d, "[") {
			i := strings.IndexByte(d, ']')
			if i < 0 {
				break
			}
			d = d[i+1:]
		}
		d = strings.TrimSpace(strings.TrimPrefix(d, ","))
		if d != "" && !strings.Contains(msg, d) {
			msg += ": " + strings.ReplaceAll(d, "\n", " ")
		}
	}
	lastErr.mu.Unlock()
	return &wtError{code: int(code), msg: fmt.Sprintf("wiredtiger %s: %s", op, msg)}
}

func isCode(err error, code int) bool {
	var e *wtError
	return errors.As(err, &e) && e.code == code
}

func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// conn is a WiredTiger connection.
type conn struct{ c *C.WT_CONNECTION }

func openConn(home, config string) (*conn, error) {
	ch, cc := C.CString(home), C.CString(config)
	defer C.free(unsafe.Pointer(ch))
	defer C.free(unsafe.Pointer(cc))
	var c *C.WT_CONNECTION
	if r := C.rb_open(ch, cc, &c); r != 0 {
		return nil, newError("open", r)
	}
	return &conn{c: c}, nil
}

// close checkpoints and closes every session and cursor.
func (c *conn) close() error {
	if r := C.rb_close(c.c); r != 0 {
		return newError("close", r)
	}
	return nil
}

func version() string { return C.GoString(C.wiredtiger_version(nil, nil, nil)) }

// session is a WiredTiger session with its cursors, one per keyspace
// (opened on first use). Neither is safe for concurrent use: the store
// hands a session to one operation at a time.
type session struct {
	s     *C.WT_SESSION
	st    *store                  // resolves keyspaces to URIs
	curs  map[uint64]*C.WT_CURSOR // point cursors by keyspace
	idle  map[uint64][]*iter      // closed iterators whose cursors are kept open for reuse
	gen   uint64                  // the store's drop generation the cursors were checked at
	inTxn bool
	cs    cursors // per-op cursors of a batch
}

func (c *conn) openSession(st *store) (*session, error) {
	var s *C.WT_SESSION
	if r := C.rb_open_session(c.c, &s); r != 0 {
		return nil, newError("open session", r)
	}
	return &session{s: s, st: st, curs: map[uint64]*C.WT_CURSOR{}, idle: map[uint64][]*iter{}}, nil
}

// cursor returns the session's point cursor on keyspace ks.
func (s *session) cursor(ks uint64) (*C.WT_CURSOR, error) {
	if c := s.curs[ks]; c != nil {
		return c, nil
	}
	uri, err := s.st.uri(ks)
	if err != nil {
		return nil, err
	}
	c, err := s.openCursor(uri, "")
	if err != nil {
		return nil, err
	}
	s.curs[ks] = c
	return c, nil
}

// prune closes the cursors on keyspaces that are no longer live (dropped),
// so that WiredTiger can drop their tables.
func (s *session) prune(live func(ks uint64) bool) {
	for ks, c := range s.curs {
		if !live(ks) {
			C.rb_cursor_close(c)
			delete(s.curs, ks)
		}
	}
	for ks, its := range s.idle {
		if !live(ks) {
			for _, it := range its {
				C.rb_cursor_close(it.c)
			}
			delete(s.idle, ks)
		}
	}
}

func (s *session) openCursor(uri, config string) (*C.WT_CURSOR, error) {
	cu := C.CString(uri)
	defer C.free(unsafe.Pointer(cu))
	var cc *C.char
	if config != "" {
		cc = C.CString(config)
		defer C.free(unsafe.Pointer(cc))
	}
	var c *C.WT_CURSOR
	if r := C.rb_open_cursor(s.s, cu, cc, &c); r != 0 {
		return nil, newError("open cursor on "+uri, r)
	}
	return c, nil
}

func (s *session) create(uri, config string) error {
	cu, cc := C.CString(uri), C.CString(config)
	defer C.free(unsafe.Pointer(cu))
	defer C.free(unsafe.Pointer(cc))
	if r := C.rb_create(s.s, cu, cc); r != 0 {
		return newError("create "+uri, r)
	}
	return nil
}

func (s *session) drop(uri string) error {
	cu := C.CString(uri)
	defer C.free(unsafe.Pointer(cu))
	if r := C.rb_drop(s.s, cu); r != 0 {
		return newError("drop "+uri, r)
	}
	return nil
}

func (s *session) begin() error {
	if r := C.rb_begin(s.s); r != 0 {
		return newError("begin transaction", r)
	}
	s.inTxn = true
	return nil
}

func (s *session) commit() error {
	s.inTxn = false
	if r := C.rb_commit(s.s); r != 0 {
		return newError("commit", r)
	}
	return nil
}

func (s *session) rollback() error {
	s.inTxn = false
	if r := C.rb_rollback(s.s); r != 0 {
		return newError("rollback", r)
	}
	return nil
}

func (s *session) checkpoint() error {
	if r := C.rb_checkpoint(s.s); r != 0 {
		return newError("checkpoint", r)
	}
	return nil
}

// get appends the value of key to dst[:0].
func (s *session) get(key, dst []byte) ([]byte, bool, error) {
	ks, rest := route(key)
	c, err := s.cursor(ks)
	if err != nil {
		return dst[:0], false, err
	}
	for {
		var n C.size_t
		r := C.rb_get(c, bytesPtr(rest), C.size_t(len(rest)), bytesPtr(dst[:cap(dst)]), C.size_t(cap(dst)), &n)
		switch {
		case int(r) == wtNotFound:
			return dst[:0], false, nil
		case r != 0:
			return dst[:0], false, newError("search", r)
		case int(n) <= cap(dst):
			return dst[:n], true, nil
		}
		dst = make([]byte, 0, int(n)) // did not fit: read it again
	}
}

func (s *session) put(key, value []byte) error {
	ks, rest := route(key)
	c, err := s.cursor(ks)
	if err != nil {
		return err
	}
	if r := C.rb_put(c, bytesPtr(rest), C.size_t(len(rest)), bytesPtr(value), C.size_t(len(value))); r != 0 {
		return newError("insert", r)
	}
	return nil
}

func (s *session) remove(key []byte) error {
	ks, rest := route(key)
	c, err := s.cursor(ks)
	if err != nil {
		return err
	}
	if r := C.rb_remove(c, bytesPtr(rest), C.size_t(len(rest))); r != 0 {
		return newError("remove", r)
	}
	return nil
}

// apply applies a batch (see rb_apply for the layout; spaces holds each
// op's keyspace, the keys in data are already stripped of their prefix)
// in one transaction.
func (s *session) apply(data []byte, ops []int64, spaces []uint64) error {
	if len(ops) == 0 {
		return nil
	}
	s.cs = s.cs[:0]
	for _, ks := range spaces {
		c, err := s.cursor(ks)
		if err != nil {
			return err
		}
		s.cs = append(s.cs, c)
	}
	return s.applyCursors(s.cs, data, ops)
}

// cursors is a list of cursors, one per op of a batch.
type cursors []*C.WT_CURSOR

// cursorPtr is a cursor, for Go code that cannot name C types (tests).
type cursorPtr = *C.WT_CURSOR

// applyCursors applies a batch whose op i writes through cs[i] (rb_apply).
func (s *session) applyCursors(cs cursors, data []byte, ops []int64) error {
	if len(ops) == 0 {
		return nil
	}
	r := C.rb_apply(s.s, (**C.WT_CURSOR)(unsafe.Pointer(&cs[0])), (*C.char)(bytesPtr(data)), (*C.int64_t)(unsafe.Pointer(&ops[0])), C.int64_t(len(ops)/2))
	if r != 0 {
		return newError("batch commit", r)
	}
	return nil
}

// stats reads a statistics cursor (uri "statistics:") into fn.
func (s *session) stats(uri string, fn func(desc string, val int64)) error {
	c, err := s.openCursor(uri, "")
	if err != nil {
		return err
	}
	defer C.rb_cursor_close(c)
	for {
		var desc *C.char
		var val C.int64_t
		r := C.rb_stat_next(c, &desc, &val)
		if int(r) == wtNotFound {
			return nil
		}
		if r != 0 {
			return newError("statistics", r)
		}
		fn(C.GoString(desc), int64(val))
	}
}

// metadataKeys calls fn with every URI in WiredTiger's metadata.
func (s *session) metadataKeys(fn func(uri string)) error {
	c, err := s.openCursor("metadata:", "")
	if err != nil {
		return err
	}
	defer C.rb_cursor_close(c)
	for {
		var key *C.char
		r := C.rb_meta_next(c, &key)
		if int(r) == wtNotFound {
			return nil
		}
		if r != 0 {
			return newError("metadata", r)
		}
		fn(C.GoString(key))
	}
}

// metadata returns the configuration string of uri, or "" if it has none.
func (s *session) metadata(uri string) (string, error) {
	c, err := s.openCursor("metadata:", "")
	if err != nil {
		return "", err
	}
	defer C.rb_cursor_close(c)
	cu := C.CString(uri)
	defer C.free(unsafe.Pointer(cu))
	var val *C.char
	r := C.rb_meta_get(c, cu, &val)
	if int(r) == wtNotFound {
		return "", nil
	}
	if r != 0 {
		return "", newError("metadata of "+uri, r)
	}
	return C.GoString(val), nil
}

// newIter returns an iterator over [lower, upper) on a cursor of s.
// WiredTiger 3.2 has no cursor bounds, so they are checked here. The bounds
// lie in one keyspace (the Keyspaces contract): lower's; an upper bound in
// a later keyspace means the end of it.
func (s *session) newIter(lower, upper []byte) (*iter, error) {
	if lower == nil {
		return nil, errors.New("wiredtiger: an iterator needs a lower bound (its keyspace)")
	}
	ks, lo := route(lower)
	var hi []byte
	if upper != nil {
		if uks, rest := route(upper); uks == ks && len(upper) >= len(lower)-len(lo) {
			hi = rest
		}
	}
	var it *iter
	if n := len(s.idle[ks]); n > 0 {
		it = s.idle[ks][n-1]
		s.idle[ks] = s.idle[ks][:n-1]
	} else {
		uri, err := s.st.uri(ks)
		if err != nil {
			return nil, err
		}
		c, err := s.openCursor(uri, "")
		if err != nil {
			return nil, err
		}
		it = &iter{s: s, ks: ks, c: c, pos: new(C.rb_pos)}
	}
	if len(lo) == 0 {
		lo = nil // the keyspace's start
	}
	it.lower, it.upper = lo, hi
	it.prefix = append(it.prefix[:0], lower[:len(lower)-len(lo)]...)
	if ks == metaSpace {
		it.prefix = it.prefix[:0] // meta keys are stored whole
		it.lower = lower
	}
	return it, nil
}

// iter is a bounded iterator on a cursor of one keyspace. Keys are
// returned whole: the keyspace's prefix, then the stored key.
type iter struct {
	s            *session
	ks           uint64
	c            *C.WT_CURSOR
	pos          *C.rb_pos // separate: cgo rejects pointers into structs with Go pointers
	prefix       []byte
	lower, upper []byte
	kbuf         []byte
	k, v         []byte
	valid        bool
	err          error
}

func (it *iter) move(op C.int, key []byte) bool {
	p := it.pos
	if r := C.rb_move(it.c, op, bytesPtr(key), C.size_t(len(key)), p); r != 0 {
		it.err = newError("cursor", r)
		it.k, it.v, it.valid = nil, nil, false
		return false
	}
	if p.valid == 0 {
		it.k, it.v, it.valid = nil, nil, false
		return false
	}
	k := unsafe.Slice((*byte)(p.k), int(p.kn))
	if (it.upper != nil && bytes.Compare(k, it.upper) >= 0) || (it.lower != nil && bytes.Compare(k, it.lower) < 0) {
		it.k, it.v, it.valid = nil, nil, false
		return false
	}
	if len(it.prefix) > 0 {
		it.kbuf = append(append(it.kbuf[:0], it.prefix...), k...)
		k = it.kbuf
	}
	it.k, it.v, it.valid = k, unsafe.Slice((*byte)(p.v), int(p.vn)), true
	return true
}

// strip turns a whole key into a key of the iterator's keyspace; cmp is
// -1 or +1 when key lies before or after the keyspace.
func (it *iter) strip(key []byte) (rest []byte, cmp int) {
	n := len(it.prefix)
	if n == 0 {
		return key, 0
	}
	if len(key) >= n && bytes.Equal(key[:n], it.prefix) {
		return key[n:], 0
	}
	if bytes.Compare(key, it.prefix) < 0 {
		return nil, -1
	}
	return nil, 1
}

func (it *iter) First() bool {
	if it.lower != nil {
		return it.move(C.RB_SEEK_GE, it.lower)
	}
	return it.move(C.RB_FIRST, nil)
}

func (it *iter) Last() bool {
	if it.upper != nil {
		return it.move(C.RB_SEEK_LT, it.upper)
	}
	return it.move(C.RB_LAST, nil)
}

func (it *iter) SeekGE(key []byte) bool {
	key, cmp := it.strip(key)
	switch {
	case cmp < 0:
		return it.First()
	case cmp > 0:
		it.k, it.v, it.valid = nil, nil, false
		return false
	}
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	return it.move(C.RB_SEEK_GE, key)
}

func (it *iter) SeekLT(key []byte) bool {
	key, cmp := it.strip(key)
	switch {
	case cmp > 0:
		return it.Last()
	case cmp < 0:
		it.k, it.v, it.valid = nil, nil, false
		return false
	}
	if it.upper != nil && bytes.Compare(key, it.upper) > 0 {
		key = it.upper
	}
	return it.move(C.RB_SEEK_LT, key)
}

func (it *iter) Next() bool {
	if !it.valid {
		return false // a WiredTiger cursor that fell off would restart
	}
	return it.move(C.RB_NEXT, nil)
}

func (it *iter) Prev() bool {
	if !it.valid {
		return false
	}
	return it.move(C.RB_PREV, nil)
}

func (it *iter) Valid() bool   { return it.valid }
func (it *iter) Key() []byte   { return it.k }
func (it *iter) Value() []byte { return it.v }
func (it *iter) Error() error  { return it.err }

// Close resets the cursor (releasing its page) and keeps it for reuse.
func (it *iter) Close() error {
	err := it.err
	if r := C.rb_reset(it.c); r != 0 && err == nil {
		err = newError("cursor reset", r)
	}
	it.lower, it.upper, it.k, it.v, it.valid, it.err = nil, nil, nil, nil, false, nil
	it.s.idle[it.ks] = append(it.s.idle[it.ks], it)
	return err
}
