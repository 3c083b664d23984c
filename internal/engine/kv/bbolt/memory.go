package bbolt

import (
	"context"

	"rumbench/internal/model"
)

var (
	_ model.MemoryReporter = (*DB)(nil)
	_ model.NoCache        = Driver{}
)

// noCache says where bbolt's reads are cached.
const noCache = "bbolt has no cache of its own: it reads its file through a read-only mmap, so the OS page cache is its cache, bounded only by --memory-limit"

// NoCache implements model.NoCache.
func (Driver) NoCache() string { return noCache }

// Memory implements model.MemoryReporter: no cache (-1) and no write
// buffer; a write transaction's dirty pages live in the Go heap until it
// commits.
func (d *DB) Memory(context.Context) (model.Memory, error) {
	return model.Memory{CacheBytes: -1, CacheSource: noCache}, nil
}
