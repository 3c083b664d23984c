package sysmetrics

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	_ "rumbench/internal/engine/null"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

func TestMountOf(t *testing.T) {
	mounts := []*procfs.MountInfo{
		{MountPoint: "/", MajorMinorVer: "254:0"},
		{MountPoint: "/data", MajorMinorVer: "8:1"},
		{MountPoint: "/data", MajorMinorVer: "8:2"}, // mounted over the first
		{MountPoint: "/data/db", MajorMinorVer: "8:3"},
	}
	for path, want := range map[string]string{
		"/data/x": "8:2", "/data": "8:2", "/database": "254:0", "/data/db/t": "8:3", "/data/dbx": "8:2", "/": "254:0",
	} {
		if got := mountOf(mounts, path); got == nil || got.MajorMinorVer != want {
			t.Errorf("mountOf(%s) = %v, want %s", path, got, want)
		}
	}
}

// TestNullRunHasMetrics runs ibench on the null engine through the runner
// and checks the step summaries and interval records carry the metrics: for
// the null engine the process is the client, so the client's CPU per row is
// the CPU per row.
func TestNullRunHasMetrics(t *testing.T) {
	out := t.TempDir()
	cfg := ibench.Config{Clients: 2, Rows: 200_000, ChurnRows: 50_000, Indexes: 1, PadMin: 10, PadMax: 20,
		PadRandomPct: 50, Seed: 1, Steps: []string{ibench.StepLoad, ibench.StepIndex, ibench.StepChurnBig}}
	var log bytes.Buffer
	_, err := runner.Run(context.Background(), runner.Options{
		Variants:    model.BareVariants("null"),
		Out:         out,
		Interval:    50 * time.Millisecond,
		NewWorkload: func() (workload.Workload, error) { return ibench.New(cfg) },
		Observers:   []runner.ObserverFactory{Factory(&log)},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Read(filepath.Join(out, "null"))
	if err != nil {
		t.Fatal(err)
	}
	load := b.Steps[ibench.StepLoad]
	m := load.Metrics
	if m == nil {
		t.Fatal("l.i0 has no metrics")
	}
	if m.CPUUsPerInsert == nil || m.CPUUs == nil || *m.CPUUs <= 0 {
		t.Fatalf("cpu_us_per_insert %v cpu_us %v: want measured CPU (null reasons %v)", m.CPUUsPerInsert, m.CPUUs, m.NullReasons)
	}
	if m.ClientCPUUsPerOp == nil || *m.ClientCPUUsPerOp != *m.CPUUsPerInsert {
		t.Errorf("null engine: client_cpu_us_per_op %v, want cpu_us_per_insert %v", m.ClientCPUUsPerOp, *m.CPUUsPerInsert)
	}
	if m.CPUUsPerQuery != nil || m.NullReasons["cpu_us_per_query"] == "" {
		t.Errorf("write step: cpu_us_per_query %v should be null with a reason", m.CPUUsPerQuery)
	}
	wantLogical := int64(0)
	for c := 0; c < cfg.Clients; c++ {
		g := ibench.NewRowGen(cfg.Seed, c, cfg.PadMin, cfg.PadMax, cfg.PadRandomPct)
		batch := ibench.NewBatch(1, cfg.PadMax)
		for pk := int64(1); pk <= cfg.Rows; pk++ {
			wantLogical += ibench.LogicalRowBytes(g.Fill(batch, pk, 1, 0)[0])
		}
	}
	if m.LogicalBytesInserted == nil || *m.LogicalBytesInserted != wantLogical {
		t.Errorf("logical_bytes_inserted %v, want %d", m.LogicalBytesInserted, wantLogical)
	}
	if m.LogicalLiveBytes == nil || m.DiskBytes == nil || m.DiskSource != results.DiskDataDir || m.SpaceAmp == nil {
		t.Errorf("live bytes %v disk %v (%s) space_amp %v: want all set, disk from the data dir", m.LogicalLiveBytes, m.DiskBytes, m.DiskSource, m.SpaceAmp)
	}
	if m.PSSBytes == nil || m.MemorySource == "" {
		t.Errorf("pss_bytes %v (%s): want a memory reading", m.PSSBytes, m.MemorySource)
	}
	if load.Stalls == nil || load.Stalls["insert"] == nil || load.Stalls["query"] != nil {
		t.Errorf("stalls %+v: want an insert entry only", load.Stalls)
	}
	if lx := b.Steps[ibench.StepIndex].Metrics; lx == nil || lx.WriteAmp != nil || lx.CPUUsPerInsert != nil {
		t.Errorf("l.x inserts nothing: want null per-insert figures and write_amp, got %+v", lx)
	}
	seen := 0
	for _, iv := range b.Intervals {
		if iv.System == nil {
			t.Fatalf("interval %s/%d has no system deltas", iv.Step, iv.Index)
		}
		if _, ok := iv.System["cpu_us"]; ok {
			seen++
		}
		if _, ok := iv.System["client_cpu_us"]; ok {
			t.Errorf("null engine interval reports a separate client_cpu_us")
		}
	}
	if seen == 0 {
		t.Error("no interval carries cpu_us")
	}
	if strings.Count(log.String(), "\n") > 10 {
		t.Errorf("the once-log repeats itself:\n%s", log.String())
	}
}
