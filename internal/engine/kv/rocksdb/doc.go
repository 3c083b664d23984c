// Package rocksdb is the "rocksdb" engine: RocksDB (the LSM tree of the
// published MyRocks results) embedded through cgo and
// github.com/linxGnu/grocksdb, under the kv table layer. It needs Debian's
// librocksdb-dev and is compiled only with the build tag rocksdb; without
// it only the statistics text parsers are compiled (and tested), and
// internal/engine/all registers the engine as unbuilt.
//
// The DB is a TransactionDB (pessimistic; option transactions=optimistic:
// an OptimisticTransactionDB), so that row updates are isolated by RocksDB
// (kv.ConcurrentStore). Every table and index lives in the default column
// family, as in MyRocks by default; column_family_per_index=true gives each
// its own (kv.Keyspaces).
package rocksdb
