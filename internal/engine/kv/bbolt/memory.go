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

// OwnMemoryBytes implements model.OwnMemory: 29 MB peak anonymous memory
// at the iobound preset (pad 256, 3 indexes): a write transaction's
// copied pages, the freelist, the Go heap; rounded up. Its cache is the
// page cache, which the budget's share of the limit holds.
func (Driver) OwnMemoryBytes() int64 { return 32 << 20 }

// Memory implements model.MemoryReporter: no cache (-1) and no write
// buffer; a write transaction's dirty pages live in the Go heap until it
// commits.
func (d *DB) Memory(context.Context) (model.Memory, error) {
	return model.Memory{CacheBytes: -1, CacheSource: noCache}, nil
}
