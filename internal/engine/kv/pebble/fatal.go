package pebble

import (
	"fmt"
	"sync/atomic"

	pdb "github.com/cockroachdb/pebble/v2"
)

// failure records that Pebble hit an error it cannot continue after: a WAL
// write that failed (a full disk), which Pebble reports by panicking in the
// committing goroutine with its commit pipeline still locked.
type failure struct {
	err atomic.Pointer[error]
}

func (f *failure) get() error {
	if p := f.err.Load(); p != nil {
		return *p
	}
	return nil
}

// commit commits b, turning Pebble's panic into an error so the step ends
// with one line instead of a crash. Later commits fail at once with the same
// error (Pebble would block them forever), and Close leaves the DB as is.
func (f *failure) commit(b *pdb.Batch, wo *pdb.WriteOptions) (err error) {
	if e := f.get(); e != nil {
		return e
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				e = fmt.Errorf("%v", r)
			}
			err = fmt.Errorf("pebble stopped after a failed WAL write (reopen the data dir to recover): %w", e)
			f.err.CompareAndSwap(nil, &err)
		}
	}()
	return b.Commit(wo)
}
