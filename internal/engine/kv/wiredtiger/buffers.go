//go:build wiredtiger

package wiredtiger

import (
	"rumbench/internal/engine/kv/extsort"
	"rumbench/internal/model"
)

var _ model.LargeBuffers = Driver{}

// indexBuild is the kv layer's bulk index build: it sorts in memory up to
// index_build_memory.
var indexBuild = model.Buffer{Option: "index_build_memory", Count: 1, What: "index build sort", Min: extsort.MinMemory}

// LargeBuffers implements model.LargeBuffers: the bulk index build's sort.
// WiredTiger's cache is the whole of the rest: it holds the dirty pages
// and the log buffer is small.
func (Driver) LargeBuffers() []model.Buffer {
	return []model.Buffer{
		indexBuild,
	}
}
