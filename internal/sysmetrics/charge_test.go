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

// A server's space amplification uses the engine's own size of rumbench's
// database, not the whole server data dir; unknown is null with a reason.
func TestServerSpaceAmpUsesEngineSize(t *testing.T) {
	s := offlineSampler(t, clientSeparate)
	m := s.metrics(stepWith(500, 1000))
	if m.SpaceAmp == nil || *m.SpaceAmp != 2 || m.SpaceAmpSource != "engine" {
		t.Errorf("space_amp %v (%s), want 2 from the engine's size", m.SpaceAmp, m.SpaceAmpSource)
	}
	m = s.metrics(stepWith(500, -1))
	if m.SpaceAmp != nil || m.NullReasons["space_amp"] == "" {
		t.Errorf("space_amp %v with unknown engine size, want null with a reason", m.SpaceAmp)
	}
	emb := offlineSampler(t, clientShared)
	if m := emb.metrics(stepWith(500, -1)); m.SpaceAmpSource != "data_dir" && m.SpaceAmp != nil {
		t.Errorf("embedded space_amp source %q", m.SpaceAmpSource)
	}
}

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
