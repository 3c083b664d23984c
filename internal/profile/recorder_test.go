package profile_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "rumbench/internal/engine/all"
	"rumbench/internal/model"
	"rumbench/internal/profile"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sysmetrics"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

// TestProfileEmbedded: a pebble load with profiling writes each step's
// client profile (Go's) and perf's stacks of this process in pprof's
// format, which `go tool pprof -top` reads and which name pebble's own
// functions; perf's CPU is recorded apart.
func TestProfileEmbedded(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed")
	}
	c := ibench.Config{Clients: 2, Rows: 300000, Indexes: 1, PadMin: 10, PadMax: 20, PadRandomPct: 50, Seed: 7, Steps: []string{ibench.StepLoad}}
	res, err := runner.Run(context.Background(), runner.Options{
		Variants: []model.Variant{runner.BareVariant("pebble", nil)}, Out: t.TempDir(), DataDir: t.TempDir(),
		Interval: 200 * time.Millisecond, Seed: 7, Config: c,
		NewWorkload: func() (workload.Workload, error) { return ibench.New(c) },
		Observers:   []runner.ObserverFactory{profile.Factory(os.Stderr), sysmetrics.Factory(nil)},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Read(res[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	s := b.Steps[ibench.StepLoad]
	p := s.Profiles
	if p == nil {
		t.Fatal("no profiles recorded")
	}
	t.Logf("profiles: %+v perf cpu %v µs", *p, p.PerfCPUUs)
	if p.Client != filepath.Join("profiles", "l.i0.client.pb.gz") || p.Server != filepath.Join("profiles", "l.i0.server.pb.gz") {
		t.Fatalf("profiles %+v, want profiles/l.i0.{client,server}.pb.gz", *p)
	}
	if p.ServerSamples == 0 || p.PerfCPUUs == nil {
		t.Errorf("server samples %d, perf cpu %v: want samples and perf's CPU", p.ServerSamples, p.PerfCPUUs)
	}
	for _, f := range []string{p.Client, p.Server} {
		out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount", "40", filepath.Join(res[0].Dir, f)).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -top %s: %v\n%s", f, err, out)
		}
		// perf does not name the functions of a `go test` binary (it
		// does a built rumbench's: the cmd test checks them), so the
		// server profile may hold the test binary's frames by name.
		if !strings.Contains(string(out), "pebble") && !strings.Contains(string(out), "rumbench/internal") && !strings.Contains(string(out), "profile.test]") {
			t.Errorf("%s: neither pebble, rumbench nor this test binary in its top 40:\n%s", f, out)
		}
	}
}
