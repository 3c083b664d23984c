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
// which exclude only other inserts of the same keys), checks that none
// exists and fails with model.ErrDuplicateKey if one does or is twice in
// the batch, writing nothing. That check is what a database does on insert,
// and for an LSM it is the one read an insert cannot avoid. Every key is
// checked: the batch's keys, sorted, are merged with the stored keys of the
// range they span, read by one iterator that steps over short runs of
// stored keys and seeks over long ones, so a batch of new keys costs a seek
// per run of it that no stored key interleaves; a batch scattered among
// stored keys falls back to a point read per key.
//
// A batch whose keys ascend strictly and all lie above every key of its
// table (an append: the insert benchmark's inserts, a load's node rows)
// needs neither the read nor the locks (pktail.go): each table keeps an
// upper bound of its primary keys, read from the store once and raised by
// every writer of a new key before it checks it, and such a batch claims
// the range of its keys until its commit; any other writer of a key in a
// claimed range waits for the claim before it reads. It is the check a
// B-tree makes for free when it appends to its rightmost leaf, and the one
// place the kv layer knows more than the store tells it: the bound is its
// own, held in memory, and correct because every new key passes through it.
//
// # Locks
//
// The kv layer's locks (locks.go) are exact: a lock table per kind (insert,
// unique prefix, row), sharded, keyed by a 64-bit hash of the key, so two
// operations wait for each other only when they lock the same key (or keys
// whose hashes collide, which is negligible), never because of striping.
// An operation sorts the hashes it needs and locks them in ascending order,
// and kinds in the order insert, unique, row: no deadlock. A lock nobody
// holds takes no memory, and entries are recycled: no allocation in steady
// state. With unique_check=false
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
// keys (row locks) before reading, so
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
// A Tx (Conn.Begin) reads its own writes, and Commit applies all of its
// writes at once. How it is isolated depends on the store:
//
//   - Pebble (Config.RowLockedTx, engine option transactions=row_locks, the
//     default): the Tx is an indexed batch, beside other Txs and
//     autocommit writes (it holds the transaction lock shared), isolated by
//     the kv layer's locks, which it holds until it ends: the row lock of
//     every row it updates, deletes or upserts (the lock autocommit Update,
//     Delete, Upsert and DeleteOldest take on this store), the rows
//     DeleteOldest deletes, and, for an Insert and an Upsert, the keys'
//     insert locks. Its reads see the latest commits and its own writes:
//     like RocksDB's TransactionDB above (READ COMMITTED, every row it
//     writes locked, so no update is lost). A Tx waits for a lock at most
//     RowLockWait (1 s, RocksDB's default) and fails at once when its wait
//     would close a cycle of Txs waiting for each other (a deadlock); both
//     errors match ErrConflict. What it does not isolate: a blind insert
//     (unique_check=false) takes no lock, so one that overwrites a row a
//     Tx has locked may be lost (blind inserts are for new keys); and an
//     autocommit operation, which never waits in a cycle itself, can be
//     part of one that only the Tx's timeout breaks.
//   - Pebble with transactions=serial, and bbolt (one writer anyway): the
//     Tx holds the DB's transaction lock exclusively until Commit or
//     Rollback, so transactions run one at a time and exclude every write
//     operation (reads outside see committed data): serializable, at the
//     price of no concurrency between the transactions of one DB.
//   - RocksDB (TransactionDB, default) and WiredTiger: the Tx runs in the
//     store's own transaction (BeginUpdate), holding the transaction lock
//     shared (only index builds and schema changes exclude it), beside
//     other Txs and autocommit writes. Every read that precedes a write of
//     the same row in the kv layer (the row read of Update, Delete and
//     Upsert, the unique check of Insert, the rows of DeleteOldest) uses
//     GetForUpdate. On RocksDB that locks the row until the Tx ends (a
//     waiter times out after the lock timeout, a lock cycle is detected at
//     once) and reads its latest committed version: like InnoDB's READ
//     COMMITTED, with locking reads for every row written, so no update is
//     lost; plain Get and Scan read the latest committed data. The
//     optimistic RocksDB mode fails the commit instead, if a row read for
//     update changed. On WiredTiger every read is from the Tx's snapshot
//     and a write of a row another transaction changed since fails
//     (WT_ROLLBACK, first writer wins): snapshot isolation, as MongoDB
//     runs it. In both, an Insert (and an Upsert that finds no row) also
//     holds the keys' insert locks until the Tx ends, so no autocommit
//     Insert or Upsert of those keys runs between its check and its commit;
//     a Tx waits for such a lock at most txLockWait (20 ms), so it never
//     waits in a cycle with the store's locks. A Tx that loses a conflict
//     fails with an error matching ErrConflict: the engine's own text
//     (RocksDB's TimedOut, Busy or Deadlock, WT_ROLLBACK), or "kv: lock
//     wait timeout" for the kv layer's insert lock. The caller rolls the Tx
//     back and may run it again (linkbench retries it).
//
// CreateIndexes builds new indexes the way databases do, by sorting
// (bulk.go with package extsort, index_build=bulk, the default on stores
// with a BulkLoader): it holds the transaction lock exclusively for the
// whole build (writers and Txs wait, reads go on, as under PostgreSQL's
// CREATE INDEX), reads the
// table once, sorts the entries in runs of at most index_build_memory,
// spilled to files under the data dir and merged, checks unique indexes in
// the merged order, and hands the entries to the store's bulk path (SST
// ingestion, a WiredTiger bulk cursor, bbolt's sequential fill). Stores
// without one, and index_build=online, copy the older rows while writers
// run: once the new indexes are published, writers maintain them, and the
// build copies the rows in chunks of about 4096 entries per commit, each
// chunk under the exclusive transaction lock so that no row changes
// between being read and being indexed.
//
// # Allocation
//
// A Conn owns every buffer its operations use (keys, values, decoded rows),
// so steady-state operations allocate nothing per row; rows passed to
// callbacks are valid only during the call. Callbacks must not call into
// the engine.
package kv
