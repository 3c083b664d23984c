// Package rocksdb is the "rocksdb" engine: RocksDB (the LSM tree of the
// published MyRocks results) embedded through cgo and
// github.com/linxGnu/grocksdb, under the kv table layer. It needs Debian's
// librocksdb-dev and is compiled only with the build tag rocksdb; without
// it only the statistics text parsers are compiled (and tested), and
// internal/engine/all registers the engine as unbuilt.
package rocksdb
