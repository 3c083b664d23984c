//go:build rocksdb

package all

import _ "rumbench/internal/engine/kv/rocksdb" // needs librocksdb-dev
