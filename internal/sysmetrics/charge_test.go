package sysmetrics

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/null"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// offlineSampler is a sampler whose counters are set by the test, not read.
func offlineSampler(t *testing.T, client clientMode) *Sampler {
	t.Helper()
	return &Sampler{log: NewOnceLog(nil), tr: newTracker(), rd: &reader{unavailable: errors.New("test")},
		dataDir: t.TempDir(), client: client}
}

func stepWith(live int64, engineSize int64) *results.Step {
	return &results.Step{
		StepDesc:   results.StepDesc{MainOp: "insert"},
		Ops:        map[string]*results.OpSummary{},
		EngineSize: engineSize,
		Details:    map[string]any{results.DetailLogicalLiveBytes: live, results.DetailLogicalBytesInserted: int64(0)},
	}
}

// The results bundle's own writes are left out of the measured process's
// KB written when that process is rumbench (embedded engines), and kept
// when the measured processes are a server's.
func TestBundleBytesLeftOutOfProcessWrites(t *testing.T) {
	for _, c := range []struct {
		client clientMode
		want   float64
	}{{clientShared, 100}, {clientIsProcess, 100}, {clientSeparate, 150}} {
		s := offlineSampler(t, c.client)
		s.totals[fProcWrite], s.have[fProcWrite] = 150*1024, true
		s.bundleBytes = 50 * 1024
		m := s.metrics(stepWith(1000, -1))
		if m.ProcWKB == nil || *m.ProcWKB != c.want {
			t.Errorf("client mode %v: proc_wkb %v, want %g", c.client, m.ProcWKB, c.want)
		}
	}
}

// Space amplification is the engine's live size / logical live bytes for
// every engine, embedded or server: not the data dir's allocation, which
// for an embedded LSM right after a load is mostly preallocated WAL (issue
// 34: pebble 0.517 GB on disk, 9 MB live, space_amp 41). Unknown is null
// with a reason.
func TestSpaceAmpIsLiveSizeForEveryEngine(t *testing.T) {
	for _, c := range []clientMode{clientShared, clientSeparate, clientIsProcess} {
		s := offlineSampler(t, c)
		// The data dir holds 1 MB of allocated bytes: a data-dir rule
		// would give space_amp 2097 or more.
		if err := os.WriteFile(s.dataDir+"/wal", make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		s.diskDir, s.diskSource = s.dataDir, results.DiskDataDir
		m := s.metrics(stepWith(500, 1000))
		if m.SpaceAmp == nil || *m.SpaceAmp != 2 || m.SpaceAmpSource != results.SpaceAmpLive {
			t.Errorf("client mode %v: space_amp %v (%s), want 2 from the live size", c, m.SpaceAmp, m.SpaceAmpSource)
		}
		if m.DiskBytes == nil || *m.DiskBytes < 1<<20 || m.DiskSource != results.DiskDataDir {
			t.Errorf("client mode %v: disk_bytes %v (%s), want the data dir's >= 1 MB", c, m.DiskBytes, m.DiskSource)
		}
		m = s.metrics(stepWith(500, -1))
		if m.SpaceAmp != nil || m.SpaceAmpSource != "" || m.NullReasons["space_amp"] == "" {
			t.Errorf("client mode %v: space_amp %v (%s) with unknown live size, want null with a reason", c, m.SpaceAmp, m.SpaceAmpSource)
		}
	}
}

// An unmanaged server's data dir is shared with its other databases: the
// footprint is its database's own dir when the engine names one, else
// null with the reason; a managed server's is its private data dir.
func TestServerDiskFootprintSource(t *testing.T) {
	run := t.TempDir()
	ctx := context.Background()
	if dir, src, _ := serverDisk(ctx, nil, run+"/data", run); dir != run+"/data" || src != results.DiskServerDataDir {
		t.Errorf("managed: %q %q, want the private data dir", dir, src)
	}
	if dir, src, why := serverDisk(ctx, nil, "/var/lib/postgresql/15/main", run); dir != "" || src != "" || !strings.Contains(why, "not this run's alone") {
		t.Errorf("unmanaged without a database dir: %q %q %q, want unknown with the reason", dir, src, why)
	}
	dbDir := t.TempDir()
	if dir, src, _ := serverDisk(ctx, dbDirOwner{dbDir}, "/var/lib/postgresql/15/main", run); dir != dbDir || src != results.DiskDatabaseDir {
		t.Errorf("unmanaged with a database dir: %q %q, want %s", dir, src, dbDir)
	}
}

// dbDirOwner is a test double naming a database dir; only DatabaseDir is
// called.
type dbDirOwner struct{ dir string }

func (d dbDirOwner) DatabaseDir(context.Context) (string, error) { return d.dir, nil }

// On tmpfs nothing reaches storage: write_amp is null with the reason, not
// ~0 from the process counters.
func TestTmpfsDataDirHasNoWriteAmp(t *testing.T) {
	if memoryFS("/dev/shm") != "tmpfs" {
		t.Skip("/dev/shm is not tmpfs here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "rumbench-test-")
	if err != nil {
		t.Skipf("cannot write /dev/shm: %v", err)
	}
	defer os.RemoveAll(dir)
	if memoryFS(t.TempDir()) == "tmpfs" {
		t.Log("note: the test temp dir is tmpfs too")
	}
	ctx := context.Background()
	db, err := engine.Open(ctx, "null", model.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(ctx, db, dir, NewOnceLog(nil))
	if s.memFS != "tmpfs" {
		t.Fatalf("sampler on %s: memFS %q, want tmpfs", dir, s.memFS)
	}
	s.StepStart("s", results.StepDesc{MainOp: "insert"})
	s.StepStop(nil, 0)
	sum := stepWith(1000, -1)
	sum.Details[results.DetailLogicalBytesInserted] = int64(1000)
	m := s.metrics(sum)
	if m.WriteAmp != nil || m.NullReasons["write_amp"] == "" {
		t.Errorf("write_amp %v on tmpfs, want null with a reason (%q)", m.WriteAmp, m.NullReasons["write_amp"])
	}
}

// --out on the data dir's device is warned about at start.
func TestWarnsWhenBundleSharesTheDataDevice(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	if _, err := ResolveDevice(dataDir); err != nil {
		t.Skipf("no block device under %s: %v", dataDir, err)
	}
	db, err := engine.Open(ctx, "null", model.Config{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var log strings.Builder
	s := New(ctx, db, dataDir, NewOnceLog(&log))
	s.checkBundleDevice(t.TempDir())
	if log.Len() != 0 {
		t.Errorf("warned before any step started: %q", log.String())
	}
	s.StepStart("s", results.StepDesc{MainOp: "insert"})
	if !strings.Contains(log.String(), "same device") {
		t.Errorf("no warning for --out on the data dir's device; log: %q", log.String())
	}
}
