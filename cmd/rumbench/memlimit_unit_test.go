package main

import (
	"testing"

	"github.com/spf13/pflag"

	"rumbench/internal/workload"
)

// A memory preset sizes the run's cache budget (each engine's own cache
// key, not one the user gave), each engine's write-buffer and index build
// memory keys and a limit per embedded engine.
func TestApplyMemoryPreset(t *testing.T) {
	mp := &workload.MemoryPreset{CacheBytes: 5 << 20, WriteBufferBytes: 8 << 20, RoomBytes: 16 << 20}
	opts := map[string]string{"pebble.cache_size": "1MB"}
	var mem memFlags
	fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
	addMemFlags(fl, &mem, false)
	engines := []string{"sqlite", "pebble", "bbolt", "postgres"}
	b, err := chooseBudget(fl, &mem, mem.cacheSize, mp, "iobound", engines, opts)
	if err != nil || b.Bytes != 5<<20 || b.From != "preset iobound" || b.Overrides["pebble"] != "--engine-opt pebble.cache_size=1MB" {
		t.Fatalf("budget %+v (%v): want 5MB from the preset, pebble's own kept", b, err)
	}
	applyMemoryPreset(mp, engines, opts, &mem, false)
	want := map[string]string{"pebble.cache_size": "1MB", "pebble.memtable_size": "8388608", "sqlite.cache_size": "5242880",
		// the kv engines' sort memory for index builds, as large as the cache
		"pebble.index_build_memory": "5242880", "bbolt.index_build_memory": "5242880"}
	if len(opts) != len(want) {
		t.Errorf("opts %v, want %v", opts, want)
	}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("%s = %q, want %q", k, opts[k], v)
		}
	}
	// cache + own memory (+ 2 write buffers) + 16 MB room.
	lim := map[string]int64{"sqlite": 29 << 20, "bbolt": 53 << 20, "pebble": 57 << 20}
	if len(mem.perEngine) != len(lim) {
		t.Errorf("limits %v, want %v", mem.perEngine, lim)
	}
	for e, n := range lim {
		if mem.perEngine[e] != n {
			t.Errorf("%s limit %d, want %d", e, mem.perEngine[e], n)
		}
	}
	if mem.limit != "59768832" {
		t.Errorf("--memory-limit %q, want the largest engine limit", mem.limit)
	}
	// An explicit --memory-limit wins: no per-engine limits.
	mem = memFlags{limit: "1GB"}
	applyMemoryPreset(mp, []string{"sqlite"}, map[string]string{}, &mem, true)
	if mem.perEngine != nil || mem.limit != "1GB" {
		t.Errorf("explicit limit overridden: %+v", mem)
	}
}
