// Package wiredtiger is the "wiredtiger" engine: WiredTiger (MongoDB's
// storage engine; a copy-on-write B-tree with a write-ahead log and
// periodic checkpoints) embedded through cgo, under the kv table layer. It
// needs Debian's libwiredtiger-dev and is compiled only with the build tag
// wiredtiger; without it the package is empty and internal/engine/all
// registers the engine as unbuilt.
//
// As MongoDB deploys WiredTiger, every table's primary key and every
// secondary index is a WiredTiger table of its own (key_format=u,
// value_format=u; file rumbench-<table id>-<index id>-<table>.<index>.wt),
// keyed by the kv key without its 5-byte prefix (kv.Keyspaces); the kv
// layer's metadata is in rumbench-meta.wt. Updates run in snapshot
// transactions without a lock of the kv layer (kv.ConcurrentStore): a
// conflict is WT_ROLLBACK. Sessions and cursors are not thread-safe: each
// View, Batch commit and Txn takes a session, with its cursors, from a pool.
package wiredtiger
