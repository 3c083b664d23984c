package enginetest

import (
	"context"
	"testing"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/workload/ibench"
)

func TestWriteStepsEmbedded(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			WriteSteps(t, Target{Engine: name, DataDir: t.TempDir()})
		})
	}
}

// TestSizesEmbedded: the on-disk footprint and the engine's live size are
// both recorded, and space amplification divides the live size (issue 34).
func TestSizesEmbedded(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			Sizes(t, Target{Engine: name, DataDir: t.TempDir()}, results.DiskDataDir)
		})
	}
}

func openEmbedded(t *testing.T, name string) model.DB {
	t.Helper()
	db, err := engine.Open(context.Background(), name, model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestConfigDiffEmbedded: each embedded engine reports the options it
// opened with that differ from its defaults, and nothing with its
// defaults, spelled as the engine runs them (sizes in bytes).
func TestConfigDiffEmbedded(t *testing.T) {
	for _, c := range []struct {
		name          string
		changed, want map[string]string
	}{
		{"pebble", map[string]string{"compression": "zstd", "memtable_size": "8MB", "cache_size": "256MB"}, map[string]string{"compression": "zstd", "memtable_size": "8388608"}},
		{"pebble", map[string]string{"compression": "none", "bloom_bits_per_key": "0", "sync": "on"}, map[string]string{"compression": "none", "bloom_bits_per_key": "0", "sync": "true"}},
		{"bbolt", map[string]string{"fill_percent": "0.9", "freelist_type": "hashmap"}, map[string]string{"fill_percent": "0.9", "freelist_type": "hashmap"}},
		{"sqlite", map[string]string{"synchronous": "full", "page_size": "8192"}, map[string]string{"synchronous": "full", "page_size": "8192"}},
	} {
		t.Run(c.name, func(t *testing.T) { ConfigDiff(t, c.name, c.changed, c.want) })
	}
}

// TestConfigDiffInRunJSON: two pebble runs, compression none and zstd,
// record each its compression in run.json's engine.config_diff, read back
// from the store it ran; a third with the defaults records an empty diff.
func TestConfigDiffInRunJSON(t *testing.T) {
	c := cfg(ibench.StepLoad)
	for _, comp := range []string{"none", "zstd", ""} {
		tg := Target{Engine: "pebble", DataDir: t.TempDir()}
		if comp != "" {
			tg.Options = map[string]string{"compression": comp}
		}
		b := RunSteps(t, tg, c)
		d := b.Run.Engine.ConfigDiff
		if d == nil {
			t.Fatalf("compression=%q: run.json has no config_diff", comp)
		}
		got, ok := d.Get("compression")
		if comp == "" {
			if len(d.Settings) != 0 {
				t.Errorf("a run with the defaults records the diff %+v", d.Settings)
			}
			continue
		}
		if !ok || got != comp || len(d.Settings) != 1 || d.Settings[0].Default != "snappy" {
			t.Errorf("compression=%s: run.json config_diff %+v, want only compression=%s (default snappy)", comp, d.Settings, comp)
		}
	}
}

// TestInternalsEmbedded: pebble's own counters over a load, per inserted
// row: the WAL carries every row (from 0.03 KB), a fresh store misses its
// block cache less than once per row.
func TestInternalsEmbedded(t *testing.T) {
	Internals(t, Target{Engine: "pebble", DataDir: t.TempDir()}, map[string]Bounds{
		model.InternalLogKB: {Lo: 0.03, Hi: 2}, model.InternalCacheMiss: {Lo: 0, Hi: 1}, model.InternalStallS: {Lo: 0, Hi: 1},
	}, map[string]Bounds{"wal_bytes_in": {Lo: 30, Hi: 2048}})
}

// TestInternalsSQLite: SQLite's own counters over a load through the
// runner: every row is logged in the WAL (each commit appends the pages it
// changed, 4 KB each, so from 0.03 KB per row up to a few pages per row),
// and a WAL frame is a page the cache wrote.
func TestInternalsSQLite(t *testing.T) {
	s := Internals(t, Target{Engine: "sqlite", DataDir: t.TempDir()}, map[string]Bounds{
		model.InternalLogKB: {Lo: 0.03, Hi: 20}, model.InternalCacheMiss: {Lo: 0, Hi: 5}, model.InternalBgWriteKB: {Lo: 0, Hi: 20},
	}, map[string]Bounds{"cache_write": {Lo: 0.005, Hi: 5}, "cache_hit": {Lo: 0.1, Hi: 1000}})
	m := s.Metrics
	if frames, bytes := m.EngineCounters["cache_write"], m.EngineCounters["wal_write_bytes"]; bytes < frames*(4096+24) {
		t.Errorf("WAL bytes written %g, fewer than cache_write %g frames of 4096 + 24 bytes", bytes, frames)
	}
}
