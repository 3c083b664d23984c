package kv

// Reader reads a consistent state of the store.
type Reader interface {
	// Get appends the value of key to dst[:0] and returns it, with whether
	// the key exists.
	Get(key, dst []byte) (val []byte, found bool, err error)
	// NewIter returns an unpositioned iterator over keys in [lower, upper)
	// (nil means unbounded). The bounds are retained until Close: the caller
	// must not modify them meanwhile.
	NewIter(lower, upper []byte) (Iter, error)
}

// Writer buffers writes. Set and Delete copy key and value.
type Writer interface {
	Set(key, value []byte) error
	Delete(key []byte) error
}

// Iter is a bounded, bidirectional iterator. Key and Value are valid until
// the next positioning call or Close.
type Iter interface {
	First() bool
	Last() bool
	SeekGE(key []byte) bool
	SeekLT(key []byte) bool
	Next() bool
	Prev() bool
	Valid() bool
	Key() []byte
	Value() []byte
	// Error is the error that made the iterator invalid, if any.
	Error() error
	Close() error
}

// View is a read-only view. Close it before the same goroutine begins a Txn:
// some stores (bbolt) cannot grow their file while a read view is open.
type View interface {
	Reader
	Close() error
}

// Batch is a write-only batch, committed atomically.
type Batch interface {
	Writer
	// Len is the number of writes buffered.
	Len() int
	// Commit applies the writes atomically and durably per the store's sync
	// setting, and leaves the batch empty and reusable, also on error.
	Commit() error
	// Reset discards the buffered writes.
	Reset()
	// Close releases the batch.
	Close() error
}

// Txn is a read-write transaction. Its writes are applied atomically by
// Commit. The store guarantees nothing about concurrent writers: the kv
// layer does its own locking. Iterators must be closed before writing.
type Txn interface {
	Reader
	Writer
	Commit() error
	Rollback() error
}

// Store is the ordered key-value store the kv layer runs on.
type Store interface {
	// NewView opens a read view.
	NewView() (View, error)
	// NewBatch returns an empty write-only batch.
	NewBatch() Batch
	// Begin starts a read-write transaction. With readOwnWrites its reads
	// see its own uncommitted writes; without, reads may skip them (cheaper
	// on some stores), which suits read-then-write operations.
	Begin(readOwnWrites bool) (Txn, error)
	// DeleteRange deletes every key in [start, end). It may commit in several
	// steps: callers make the range unreachable first.
	DeleteRange(start, end []byte) error
	// Size is the store's size on disk in bytes.
	Size() (int64, error)
	Close() error
}
