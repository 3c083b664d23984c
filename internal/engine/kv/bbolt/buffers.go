package bbolt

import (
	"rumbench/internal/engine/kv/extsort"
	"rumbench/internal/model"
)

var _ model.LargeBuffers = Driver{}

// indexBuild is the kv layer's bulk index build: it sorts in memory up to
// index_build_memory.
var indexBuild = model.Buffer{Option: "index_build_memory", Count: 1, What: "index build sort", Min: extsort.MinMemory}

// LargeBuffers implements model.LargeBuffers: the bulk index build's sort.
// bbolt has no cache or write buffer of its own (it reads through mmap).
func (Driver) LargeBuffers() []model.Buffer {
	return []model.Buffer{
		indexBuild,
	}
}
