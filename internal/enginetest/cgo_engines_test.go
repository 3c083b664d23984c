//go:build rocksdb && wiredtiger

package enginetest

import (
	"testing"

	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/workload/ibench"
)

// The cgo engines, built with -tags rocksdb,wiredtiger (scripts/test.sh).
var cgoEngines = []struct {
	name string
	// stats are engine_stats keys that must be present after a write step.
	stats []string
}{
	{"rocksdb", []string{"rocksdb.stats", "write_amp", "stall_count", "estimate-num-keys", "total-sst-files-size", "is-write-stopped"}},
	{"wiredtiger", []string{"cache_bytes", "evicted_modified_pages", "checkpoints", "log_bytes_written", "statistics"}},
}

func TestWriteStepsCgo(t *testing.T) {
	for _, e := range cgoEngines {
		t.Run(e.name, func(t *testing.T) {
			WriteSteps(t, Target{Engine: e.name, DataDir: t.TempDir()})
		})
	}
}

// TestEngineStatsCgo checks the step summary's engine statistics and size
// after a write step, then reopens the data dir for verify.
func TestEngineStatsCgo(t *testing.T) {
	for _, e := range cgoEngines {
		t.Run(e.name, func(t *testing.T) {
			tg := Target{Engine: e.name, DataDir: t.TempDir()}
			b := RunSteps(t, tg, cfg(ibench.StepLoad))
			s := mustStep(t, b, ibench.StepLoad)
			if len(s.EngineStats) == 0 {
				t.Fatal("engine_stats is empty")
			}
			for _, k := range e.stats {
				if _, ok := s.EngineStats[k]; !ok {
					t.Errorf("engine_stats has no %q", k)
				}
			}
			if s.EngineSize <= 0 {
				t.Errorf("size = %d", s.EngineSize)
			}
			Verify(t, tg)
		})
	}
}

// TestSizesCgo: both size figures, and space amplification from the live
// size (issue 34).
func TestSizesCgo(t *testing.T) {
	for _, e := range cgoEngines {
		t.Run(e.name, func(t *testing.T) {
			Sizes(t, Target{Engine: e.name, DataDir: t.TempDir()}, results.DiskDataDir)
		})
	}
}

// TestLinkBenchCountsCgo: counts equal visible links after concurrent
// requests (issue 19).
func TestLinkBenchCountsCgo(t *testing.T) {
	for _, e := range cgoEngines {
		t.Run(e.name, func(t *testing.T) {
			LinkBenchCounts(t, Target{Engine: e.name, DataDir: t.TempDir()})
		})
	}
}

// TestErrorKindsCgo: a real conflict between two transactions carries its
// model kind: WiredTiger's WT_ROLLBACK (first writer wins) is a deadlock,
// RocksDB's TransactionDB detects the lock cycle (deadlock_detect).
func TestErrorKindsCgo(t *testing.T) {
	for _, name := range []string{"rocksdb", "wiredtiger"} {
		t.Run(name, func(t *testing.T) {
			err := CrossedUpdates(t, openEmbedded(t, name), "ek")
			CheckKind(t, "crossed updates", err, model.ErrDeadlock)
			CheckKind(t, "crossed updates", err, model.ErrConflict)
		})
	}
}

func TestConfigDiffCgo(t *testing.T) {
	t.Run("rocksdb", func(t *testing.T) {
		ConfigDiff(t, "rocksdb", map[string]string{"compression": "zstd", "write_buffer_size": "16MB"},
			map[string]string{"compression": "zstd", "write_buffer_size": "16777216"})
	})
	t.Run("rocksdb_bottommost", func(t *testing.T) {
		ConfigDiff(t, "rocksdb", map[string]string{"bottommost_compression": "zstd"}, map[string]string{"bottommost_compression": "zstd"})
	})
	t.Run("wiredtiger", func(t *testing.T) {
		ConfigDiff(t, "wiredtiger", map[string]string{"leaf_page_max": "8KB", "eviction_threads": "2"},
			map[string]string{"leaf_page_max": "8192", "eviction_threads": "2"})
	})
}

// TestInternalsCgo: rocksdb's and WiredTiger's own counters over a load,
// per inserted row: the log carries every row (from 0.03 KB), a fresh store
// misses its cache less than once per row.
func TestInternalsCgo(t *testing.T) {
	for _, e := range cgoEngines {
		t.Run(e.name, func(t *testing.T) {
			Internals(t, Target{Engine: e.name, DataDir: t.TempDir()}, map[string]Bounds{
				model.InternalLogKB: {Lo: 0.03, Hi: 2}, model.InternalCacheMiss: {Lo: 0, Hi: 1},
			}, nil)
		})
	}
}
