package kv

import "errors"

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
	// setting, and leaves the batch empty and reusable, also on error,
	// except one: when the store rolled the whole batch back and the
	// error matches ErrConflict (WiredTiger's WT_ROLLBACK, RocksDB's Busy,
	// TryAgain or lock TimedOut), the writes stay, so that the kv layer
	// can commit the batch again (DB.commitBatch) or Reset it.
	Commit() error
	// Reset discards the buffered writes.
	Reset()
	// Close releases the batch.
	Close() error
}

// Txn is a read-write transaction. Its writes are applied atomically by
// Commit. Unless the store is a ConcurrentStore, it guarantees nothing about
// concurrent writers: the kv layer does its own locking. Iterators must be
// closed before writing.
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

// ---- optional capabilities ----

// KeyspacePrefixLen is the length of the prefix every key the kv layer
// writes starts with: the table id (4 bytes, big-endian) and the index id
// (1 byte, 0 for the primary key). Table id 0 holds the metadata.
const KeyspacePrefixLen = prefixLen

// Keyspaces is implemented by stores that keep each table's primary key and
// each secondary index in an object of its own (a WiredTiger table per
// table and per index, as MongoDB deploys it; a RocksDB column family per
// index), instead of one ordered keyspace. The kv layer still hands such a
// store whole keys: the store routes each key by its KeyspacePrefixLen-byte
// prefix. The kv layer guarantees that the bounds of an iterator never span
// two keyspaces (an upper bound may be the next keyspace's bare prefix, or
// shorter: it then means "to the end of the keyspace"), and calls
// DeleteRange only on whole keyspaces (a table's prefix range or an
// index's), which such a store implements by dropping them.
type Keyspaces interface {
	// CreateKeyspace makes the keyspace of prefix exist (it may exist
	// already). name says what it holds ("orders.PRIMARY", "orders.ix1"),
	// for names users see in the data dir.
	CreateKeyspace(prefix []byte, name string) error
}

// ConcurrentStore is implemented by stores with concurrency control of
// their own (RocksDB's TransactionDB, WiredTiger's snapshot transactions).
// On such a store Update takes no lock of the kv layer: the store's
// transaction keeps concurrent read-modify-writes of a row from losing a
// change, by making one wait (a pessimistic lock) or by failing one with a
// conflict (an error for which errors.Is(err, ErrConflict) holds, returned
// by GetForUpdate, a write or Commit). Transactions from Begin must detect
// the same conflicts with their reads (they run from a snapshot): a row
// read, then changed by an Update, then deleted must fail with ErrConflict.
type ConcurrentStore interface {
	Store
	// BeginUpdate starts a transaction for a read-modify-write of rows
	// read with GetForUpdate.
	BeginUpdate() (UpdateTxn, error)
}

// UpdateTxn is a transaction of a ConcurrentStore.
type UpdateTxn interface {
	Txn
	// GetForUpdate reads key for a write of it in this transaction: it
	// locks the key (pessimistic) or makes Commit fail if the key changes
	// before then (optimistic), and reads its latest committed value.
	GetForUpdate(key, dst []byte) (val []byte, found bool, err error)
}

// ErrConflict is matched (errors.Is) by the errors a ConcurrentStore
// returns when a transaction lost a conflict with a concurrent one and was
// rolled back: the operation may be run again. The error's text is the
// engine's own (WT_ROLLBACK, RocksDB's Busy or TimedOut), which is how
// workloads classify it.
var ErrConflict = errors.New("kv: transaction conflict")

// BulkLoader is implemented by stores with a bulk path for filling a new,
// empty keyspace range from sorted keys: Pebble and RocksDB write SSTs and
// ingest them, WiredTiger opens a bulk cursor on a new object, bbolt
// appends to full pages. CreateIndexes uses it (index_build=bulk) with
// writes blocked, so nothing else writes the range meanwhile.
type BulkLoader interface {
	// BulkDir is a directory on the data dir's filesystem for the build's
	// temporary files (sorted runs, SSTs to be linked into the store).
	BulkDir() string
	// NewBulkLoad starts filling [start, end): one index, one keyspace on a
	// Keyspaces store, holding no key. tmp is a directory under BulkDir
	// for the load's files; the caller removes it after Finish or Abort.
	// The loads of one build are fed concurrently (a goroutine each) and
	// finished one after another.
	NewBulkLoad(start, end []byte, tmp string) (BulkLoad, error)
}

// BulkLoad fills one range. Its keys become readable by Finish at the
// latest (bbolt commits as it goes); Abort removes every key it added.
type BulkLoad interface {
	// Add appends a key and its value; keys must be strictly increasing.
	// Add copies them.
	Add(key, value []byte) error
	Finish() error
	Abort() error
}
