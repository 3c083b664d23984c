package pebble

import (
	"rumbench/internal/engine/kv/extsort"
	"rumbench/internal/model"
)

var _ model.LargeBuffers = Driver{}

// indexBuild is the kv layer's bulk index build: it sorts in memory up to
// index_build_memory.
var indexBuild = model.Buffer{Option: "index_build_memory", Count: 1, What: "index build sort", Min: extsort.MinMemory}

// LargeBuffers implements model.LargeBuffers: the memtables (writes stall
// when MemTableStopWritesThreshold, Pebble's default 2, are full) and the
// bulk index build's sort.
func (Driver) LargeBuffers() []model.Buffer {
	return []model.Buffer{
		{Option: "memtable_size", Count: 2, What: "memtables", Min: 64 << 10},
		indexBuild,
	}
}
