//go:build !cgo

package sqlite

import (
	"errors"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// Without cgo there is no SQLite (go-sqlite3 is a stub), so nothing to
// count.

type countingVFS struct{ name string }

func newCountingVFS() (*countingVFS, error) { return nil, errors.New("sqlite: needs a cgo build") }

func (v *countingVFS) read() (out [ioKinds][ioOps]int64) { return out }

func (v *countingVFS) free() {}

func dbHandle(*sqlite3.SQLiteConn) (unsafe.Pointer, error) {
	return nil, errors.New("sqlite: needs a cgo build")
}

func dbStatus(unsafe.Pointer, int) (int64, error) { return 0, errors.New("sqlite: needs a cgo build") }
