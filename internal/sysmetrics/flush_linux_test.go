//go:build linux

package sysmetrics

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/null"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// writeUnsynced writes n bytes of random data to path and leaves them in
// the page cache, dirty.
func writeUnsynced(t *testing.T, path string, n int) *os.File {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	rand.Read(buf)
	for w := 0; w < n; w += len(buf) {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// devWrittenBy is what the device under dir wrote while fn ran, bytes.
func devWrittenBy(t *testing.T, dir string, fn func()) float64 {
	t.Helper()
	r, dev := selfReader(t, dir)
	if dev == nil {
		t.Skip("no block device under the test's temp dir")
	}
	return float64(window(r, fn).V[fDevWriteSect] * 512)
}

// The end-of-step flush writes the engine's files only: another file on
// the same filesystem, dirty at the step's end, is still dirty after it
// (57caf54's syncfs wrote it and charged it to the step: issue 44 row 7).
// The engine's own dirty data is written by the flush and recorded apart
// (end_flush_wkb).
func TestEndFlushWritesOnlyTheEnginesFiles(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dataDir := filepath.Join(base, "data")
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolveDevice(dataDir); err != nil {
		t.Skipf("no block device under %s: %v", dataDir, err)
	}
	if memoryFS(dataDir) != "" {
		t.Skipf("%s is on a memory filesystem", dataDir)
	}
	db, err := engine.Open(ctx, "null", model.Config{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A data dir of many clean files (a server's): fsyncing each would
	// send the device a flush per file, charged to the step's fl/i.
	const clean = 300
	for i := 0; i < clean; i++ {
		if err := os.WriteFile(filepath.Join(dataDir, fmt.Sprintf("clean-%d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := SyncFilesystem(dataDir); err != nil {
		t.Fatal(err)
	}
	s := New(ctx, db, dataDir, NewOnceLog(nil))
	const own, other = 8 << 20, 64 << 20
	s.StepStart("s", results.StepDesc{MainOp: "insert"})
	engineFile := writeUnsynced(t, filepath.Join(dataDir, "table"), own)
	defer engineFile.Close()
	otherFile := writeUnsynced(t, filepath.Join(base, "not-the-engines"), other)
	defer otherFile.Close()
	s.StepStop(nil, 0)
	sum := stepWith(1, -1)
	s.StepEnd(sum, nil)
	m := sum.Metrics
	if m.EndFlushScope != flushEngineFiles {
		t.Errorf("end_flush_scope %q, want %q", m.EndFlushScope, flushEngineFiles)
	}
	if m.DevFlushes == nil || *m.DevFlushes >= clean/2 {
		t.Errorf("dev_flushes %v in a step whose flush wrote back %d clean files, want far fewer than one per file", m.DevFlushes, clean)
	}
	if m.EndFlushWKB == nil || *m.EndFlushWKB*1024 < own {
		t.Errorf("end_flush_wkb %v, want at least the engine's %d KB", m.EndFlushWKB, own/1024)
	}
	// The other file was left dirty: syncing it now writes it.
	later := devWrittenBy(t, base, func() {
		if err := otherFile.Sync(); err != nil {
			t.Fatal(err)
		}
	})
	if later < other*0.9 {
		t.Errorf("syncing the other file after the step wrote %.0f bytes, want its %d: the step's flush wrote it", later, other)
	}
}

// What the engine writes after its last step (closing it) is the run's
// tail: measured, not dropped.
func TestTailRecordsWritesAfterTheLastStep(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	if _, err := ResolveDevice(dataDir); err != nil || memoryFS(dataDir) != "" {
		t.Skipf("no block device under %s", dataDir)
	}
	db, err := engine.Open(ctx, "null", model.Config{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(ctx, db, dataDir, NewOnceLog(nil))
	s.TailStart()
	f := writeUnsynced(t, filepath.Join(dataDir, "final-flush"), 4<<20)
	f.Close()
	tail := s.TailEnd()
	if tail.DevWKB == nil || *tail.DevWKB < 4096 {
		t.Errorf("tail dev_wkb %v, want at least the 4096 KB written at close (null reasons %v)", tail.DevWKB, tail.NullReasons)
	}
	if tail.DevFlushes == nil {
		t.Errorf("tail dev_flushes null (%v), want measured", tail.NullReasons["dev_flushes"])
	}
	if tail.Seconds <= 0 {
		t.Errorf("tail seconds %v", tail.Seconds)
	}
}
