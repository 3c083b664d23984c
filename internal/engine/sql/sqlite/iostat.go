package sqlite

// #include "iostat.h"
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// countingVFS is one registered counting VFS (iostat.c).
type countingVFS struct {
	p    unsafe.Pointer
	name string
}

var vfsSeq atomic.Int64

// newCountingVFS registers a counting VFS for one database.
func newCountingVFS() (*countingVFS, error) {
	if C.rbvfs_available() == 0 {
		return nil, errors.New("sqlite: SQLite's C functions are not linked into this binary")
	}
	name := fmt.Sprintf("rumbench-iostat-%d", vfsSeq.Add(1))
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	p := C.rbvfs_new(cs)
	if p == nil {
		return nil, errors.New("sqlite: could not register the counting VFS")
	}
	return &countingVFS{p: p, name: name}, nil
}

// read returns the counters, indexed [kind][op].
func (v *countingVFS) read() (out [ioKinds][ioOps]int64) {
	C.rbvfs_read(v.p, (*C.int64_t)(unsafe.Pointer(&out[0][0])))
	return out
}

// free unregisters the VFS once no connection uses it.
func (v *countingVFS) free() { C.rbvfs_free(v.p) }

// dbHandle is a connection's sqlite3* handle. go-sqlite3 keeps it in an
// unexported field and offers no accessor; the field is read by reflection
// (go.mod pins the driver, and TestInternals fails if the field changes).
func dbHandle(c *sqlite3.SQLiteConn) (unsafe.Pointer, error) {
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		return nil, errors.New("sqlite: go-sqlite3's connection has no db handle field (driver changed)")
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().UnsafePointer(), nil
}

// dbStatus reads and resets one sqlite3_db_status counter of a connection.
func dbStatus(h unsafe.Pointer, op int) (int64, error) {
	var cur C.int
	if rc := C.rb_db_status(h, C.int(op), &cur); rc != 0 {
		return 0, fmt.Errorf("sqlite: sqlite3_db_status(%d): error %d", op, int(rc))
	}
	return int64(cur), nil
}
