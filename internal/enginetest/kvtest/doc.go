// Package kvtest holds the kv layer's own tests, run by each kv engine
// against the real store: the bulk index build (BulkBuild) and the layer's
// overhead over the store's own batches (BenchOverhead). The conformance
// suite every engine runs is enginetest.Conformance.
package kvtest
