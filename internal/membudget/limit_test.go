package membudget

import (
	"strconv"
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

// limitBudget is the budget of a run with only --memory-limit, its cache
// options set as a run sets them.
func limitBudget(t *testing.T, limit int64, text string, engines []string) (*Budget, map[string]string) {
	t.Helper()
	b, err := Choose(Choice{Limit: limit, LimitText: text, ProcessBytes: ProcessBytes})
	if err != nil {
		t.Fatal(err)
	}
	opts := map[string]string{}
	b.ApplyEngineOpts(engines, opts)
	return b, opts
}

// bytesOf is an engine's declared memory under opts: cache, own memory and
// every large buffer (each option as opts sets it, else its default).
func bytesOf(t *testing.T, name string, opts map[string]string) int64 {
	t.Helper()
	d, err := engine.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	val := func(key string) int64 {
		v, ok := opts[name+"."+key]
		if !ok {
			for _, o := range d.Options() {
				if o.Key == key {
					v = o.Default
				}
			}
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			n = 64 << 20 // the defaults of the buffers below
		}
		return n
	}
	n := val(d.(model.CacheOption).CacheOption()) + d.(model.OwnMemory).OwnMemoryBytes()
	for _, b := range d.(model.LargeBuffers).LargeBuffers() {
		n += int64(b.Count) * val(b.Option)
	}
	return n
}

// Issue 48 item 8: under --memory-limit 64MB pebble's memtables (2 × 64MB)
// and index build sort (64MB) are shrunk by one factor so that cache,
// buffers, own memory and the room fit the limit; the shrunk sizes are set
// and recorded.
func TestFitLimitShrinksBuffers(t *testing.T) {
	b, opts := limitBudget(t, 64<<20, "64MB", []string{"pebble", "sqlite"})
	if err := b.FitLimit(64<<20, "64MB", []string{"pebble", "sqlite"}, opts); err != nil {
		t.Fatal(err)
	}
	mt, ib := opts["pebble.memtable_size"], opts["pebble.index_build_memory"]
	if mt == "" || mt != ib || b.Fitted["pebble.memtable_size"] == 0 || strconv.FormatInt(b.Fitted["pebble.memtable_size"], 10) != mt {
		t.Fatalf("fitted opts %v, recorded %v", opts, b.Fitted)
	}
	if n := bytesOf(t, "pebble", opts) + RoomBytes; n > 64<<20 || n < 60<<20 {
		t.Errorf("pebble's memory %d with the room, want at most the limit and close to it", n)
	}
	if _, ok := opts["sqlite.index_build_memory"]; ok || len(b.Fitted) != 2 {
		t.Errorf("sqlite declares no buffer beside its page cache: %v", b.Fitted)
	}

	// A large limit holds the defaults: nothing is changed.
	b, opts = limitBudget(t, 1<<30, "1GB", []string{"pebble"})
	if err := b.FitLimit(1<<30, "1GB", []string{"pebble"}, opts); err != nil || b.Fitted != nil || len(opts) != 1 {
		t.Errorf("1GB: %v, fitted %v, opts %v", err, b.Fitted, opts)
	}

	// A buffer the user set stays; the others take what is left.
	b, opts = limitBudget(t, 64<<20, "64MB", []string{"pebble"})
	opts["memtable_size"] = "2MB"
	if err := b.FitLimit(64<<20, "64MB", []string{"pebble"}, opts); err != nil {
		t.Fatal(err)
	}
	if opts["memtable_size"] != "2MB" || opts["pebble.memtable_size"] != "" || b.Fitted["pebble.index_build_memory"] != 4<<20 {
		t.Errorf("set memtable: opts %v, fitted %v", opts, b.Fitted)
	}
}

// A limit an engine cannot meet even with its buffers at their smallest is
// refused in one line that names what it needs and the fix.
func TestFitLimitRefuses(t *testing.T) {
	b, opts := limitBudget(t, 40<<20, "40MB", []string{"pebble"})
	err := b.FitLimit(40<<20, "40MB", []string{"pebble"}, opts)
	for _, w := range []string{"--memory-limit 40MB cannot hold pebble", "cache 8MB (--memory-limit 40MB)", "memtables 2 × 64KB (memtable_size at its smallest)", "own memory 20MB", "give --memory-limit 49MB or more"} {
		if err == nil || !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("40MB: %v, want one line with %q", err, w)
		}
	}
	// 49MB holds it, as the error says.
	b, opts = limitBudget(t, 49<<20, "49MB", []string{"pebble"})
	if err := b.FitLimit(49<<20, "49MB", []string{"pebble"}, opts); err != nil {
		t.Errorf("49MB: %v", err)
	}

	// A cache and a memtable the user set are named as fixes.
	b, _ = limitBudget(t, 64<<20, "64MB", []string{"pebble"})
	opts = map[string]string{"pebble.cache_size": "32MB", "memtable_size": "8MB"}
	b.ApplyEngineOpts([]string{"pebble"}, opts)
	err = b.FitLimit(64<<20, "64MB", []string{"pebble"}, opts)
	for _, w := range []string{"cache 32MB (--engine-opt pebble.cache_size=32MB)", "memtables 2 × 8MB (memtable_size=8MB)", "give --memory-limit 85MB or more, or a smaller cache (--engine-opt pebble.cache_size=32MB), or smaller --engine-opt pebble.memtable_size"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("set sizes: %v, want %q", err, w)
		}
	}
}

// Under a limit whose cache is the smallest (1MB) the limit named is the
// one that holds the engine with that cache.
func TestFitLimitSmallestCache(t *testing.T) {
	b, opts := limitBudget(t, 16<<20, "16MB", []string{"sqlite"})
	err := b.FitLimit(16<<20, "16MB", []string{"sqlite"}, opts)
	if err == nil || !strings.Contains(err.Error(), "give --memory-limit 25MB or more") {
		t.Fatalf("16MB sqlite: %v", err)
	}
	b, opts = limitBudget(t, 25<<20, "25MB", []string{"sqlite"})
	if err := b.FitLimit(25<<20, "25MB", []string{"sqlite"}, opts); err != nil {
		t.Errorf("25MB: %v", err)
	}
}
