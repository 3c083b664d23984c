// Package wiredtiger is the "wiredtiger" engine: WiredTiger (MongoDB's
// storage engine; a copy-on-write B-tree with a write-ahead log and
// periodic checkpoints) embedded through cgo, under the kv table layer. It
// needs Debian's libwiredtiger-dev and is compiled only with the build tag
// wiredtiger; without it the package is empty and internal/engine/all
// registers the engine as unbuilt.
//
// All tables live in one WiredTiger table (key_format=u, value_format=u)
// with the kv key layout. Sessions and cursors are not thread-safe: each
// View, Batch commit and Txn takes a session from a pool.
package wiredtiger
