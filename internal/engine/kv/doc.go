// Package kv implements the rumbench table model (model.DB, model.Conn,
// model.Tx) on any ordered key-value store that satisfies Store. Engine
// packages (kv/pebble, kv/bbolt) only adapt their store to Store and add
// their options, statistics and maintenance.
//
// # Key layout
//
// All integers are big-endian; columns are encoded with keyenc, so bytewise
// key order is tuple order:
//
//	table id (4 bytes) | index id (1 byte, 0 = primary key) | index columns | PK columns not in the index
//
// A primary-key entry's value holds the non-PK columns in column order
// (zigzag varints for Int and Time, length-prefixed bytes for String).
// Secondary-index entries have empty values: the covering projection
// (model.Table.IndexColumns) is decoded from the key. Table id 0 holds the
// metadata: each table's schema as JSON, with the ids of its built indexes,
// and the next table id. Table ids are never reused, so keys left behind by
// an interrupted drop can never be read as a new table's.
//
// # Concurrency and isolation
//
// Every autocommit operation is one atomic store commit. Reads (Get, Scan)
// take no lock and see the latest committed state (per iterator or view).
//
// Insert enforces the primary key by default (Config.UniqueCheck, engine
// option unique_check): it locks the rows' primary keys (insert locks,
// which exclude only other inserts of the same keys), reads each one and
// fails with model.ErrDuplicateKey if it exists or is twice in the batch,
// writing nothing. That read is what a database does on insert, and for an
// LSM it is the one read an insert cannot avoid. With unique_check=false
// Insert writes blindly, and inserting an existing key overwrites its row
// without removing the old row's index entries (MyRocks with unique checks
// off).
//
// A unique secondary index (model.Index.Unique) is checked the same way and
// under the same option: Insert locks each row's unique prefix (the index
// columns) and reads it before writing, failing with model.ErrDuplicateKey
// (see unique.go).
//
// Update and DeleteOldest are read-modify-write: they lock the rows' primary
// keys (1024 striped mutexes, taken in ascending order) before reading, so
// concurrent Updates of one row never lose a change, and a row being deleted
// is never brought back by an Update. On a ConcurrentStore (RocksDB's
// TransactionDB, WiredTiger) Update takes no such lock: the store's
// transaction isolates it, by a lock of the engine's or by failing one of two
// conflicting updates (ErrConflict, the engine's error text); DeleteOldest
// still locks its rows, and its snapshot transaction fails, and is retried,
// when an Update changed one of them after it read it.
//
// A store may keep each table and index in its own object (Keyspaces: a
// WiredTiger table, a RocksDB column family); the keys are the same, the
// store routes them by their 5-byte prefix.
//
// DeleteOldest finds the oldest keys at or above the caller's lower bound
// without locks, locks them, then deletes the rows still there. The bound
// comes from the workload, which knows which rows it deleted: the kv layer
// keeps no state about where the last delete stopped, like every other
// engine. Rows are deleted with point deletes, not
// SingleDelete (keys may be set more than once) nor range deletes.
//
// A Tx (Conn.Begin) holds the DB's transaction lock exclusively until Commit
// or Rollback: transactions run one at a time and exclude every write
// operation, reads in a Tx see its own writes, and Commit applies all of its
// writes at once. That is serializable, at the price of no concurrency
// between transactions of one DB.
//
// CreateIndexes runs while writers run: once the new indexes are published,
// writers maintain them, and the build copies the older rows in chunks of
// about 4096 entries per commit, each chunk under the exclusive transaction
// lock so that no row changes between being read and being indexed.
//
// # Allocation
//
// A Conn owns every buffer its operations use (keys, values, decoded rows),
// so steady-state operations allocate nothing per row; rows passed to
// callbacks are valid only during the call. Callbacks must not call into
// the engine.
package kv
