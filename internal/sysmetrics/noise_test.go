package sysmetrics

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// TestNoiseCountsOtherProcesses: a process outside the measured set that
// burns CPU during a step shows in the step's other_cpu_us, at least as
// much as it used by its own /proc/PID/stat; steal time is read too.
func TestNoiseCountsOtherProcesses(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(ctx, "null", model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(ctx, db, t.TempDir(), nil)
	burner := exec.Command("sh", "-c", "while :; do :; done")
	if err := burner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { burner.Process.Kill(); burner.Wait() }()
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	cpuOf := func() float64 {
		p, err := fs.Proc(burner.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		st, err := p.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return st.CPUTime()
	}
	before := cpuOf()
	s.StepStart("noise", results.StepDesc{})
	time.Sleep(400 * time.Millisecond)
	s.StepStop(nil, 0)
	burned := cpuOf() - before
	sum := &results.Step{Step: "noise", Seconds: 0.4}
	s.StepEnd(sum, nil)
	m := sum.Metrics
	if m.OtherCPUUs == nil || m.OtherCPUCores == nil || m.NoiseSpanS == nil {
		t.Fatalf("other_cpu_us %v cores %v span %v: want measured (null reasons %v)", m.OtherCPUUs, m.OtherCPUCores, m.NoiseSpanS, m.NullReasons)
	}
	// Both sides tick in 10 ms: allow two ticks.
	if got := float64(*m.OtherCPUUs) / 1e6; got < burned-0.02 {
		t.Errorf("other_cpu_us %.3fs, want at least the burner's %.3fs", got, burned)
	}
	if *m.NoiseSpanS < 0.4 {
		t.Errorf("noise span %.3fs, want the step's 0.4 s or more", *m.NoiseSpanS)
	}
	if m.StealUs == nil || m.StealCores == nil {
		t.Errorf("steal %v: want read from /proc/stat (null reasons %v)", m.StealUs, m.NullReasons)
	}
}
