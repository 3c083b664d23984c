//go:build linux

package sysmetrics

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"rumbench/internal/engine"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// startTree starts a shell with two children, one of which has a child of
// its own, and returns the shell's pid once all four processes exist.
func startTree(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 60 & sh -c 'sleep 60 & wait' & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The shell's descendants go with its process group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	r := &reader{fs: fs, root: cmd.Process.Pid, tree: true}
	for i := 0; i < 200; i++ {
		if pids, _ := r.scanTree(); len(pids) == 4 {
			return cmd.Process.Pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the process tree did not reach 4 processes")
	return 0
}

func setPids(r *reader) []int {
	var pids []int
	for _, m := range r.set {
		pids = append(pids, m.pid)
	}
	slices.Sort(pids)
	return pids
}

// The tree found from the children files is the one a scan of every
// process finds, and the scan is what a kernel without them gets.
func TestTreeFromChildrenFilesMatchesScan(t *testing.T) {
	root := startTree(t)
	fs, _ := procfs.NewFS(procRoot)
	r := &reader{fs: fs, root: root, tree: true}
	r.refresh()
	if r.setErr != nil {
		t.Fatal(r.setErr)
	}
	if r.scanAll {
		t.Skip("this kernel has no /proc/PID/task/TID/children: only the scan is used")
	}
	scanned, err := r.scanTree()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(scanned)
	if got := setPids(r); !slices.Equal(got, scanned) || len(got) != 4 {
		t.Fatalf("children files found %v, the scan %v; want the same 4 processes", got, scanned)
	}
	scan := &reader{fs: fs, root: root, tree: true, scanAll: true}
	scan.refresh()
	if got := setPids(scan); !slices.Equal(got, scanned) {
		t.Fatalf("scan fallback found %v, want %v", got, scanned)
	}
}

// The sampler's own reads are counted as sampler_cpu_us and kept out of
// the client's CPU: between two samples with nothing but sampling going
// on, the client's CPU is a small fraction of the sampler's.
func TestSamplerCPUNotChargedToClient(t *testing.T) {
	root := startTree(t)
	fs, _ := procfs.NewFS(procRoot)
	r := &reader{fs: fs, root: root, tree: true, client: os.Getpid()}
	tr := newTracker()
	tr.observe(r.read(true, false, 0))
	for i := 0; i < 300; i++ {
		r.read(true, true, 0)
	}
	d := tr.observe(r.read(true, false, 0))
	if !d.OK[fSamplerCPU] || !d.OK[fClientCPU] {
		t.Fatalf("sampler CPU ok %v, client CPU ok %v: want both measured", d.OK[fSamplerCPU], d.OK[fClientCPU])
	}
	samp, client := d.V[fSamplerCPU], d.V[fClientCPU]
	t.Logf("300 full reads: sampler %d µs, client %d µs", samp, client)
	if samp == 0 {
		t.Fatal("sampler_cpu_us is 0 after 300 reads")
	}
	if client*4 > samp {
		t.Errorf("client CPU %d µs is more than a quarter of the sampler's %d µs: the sampler is charged to the client", client, samp)
	}
}

// Per-thread context switches are read at the step's boundaries and every
// refreshEvery, not every interval: intervals between refreshes leave cs
// out (not null), and the step's total still has it.
func TestContextSwitchesReadOnRefresh(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(ctx, "null", model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(ctx, db, t.TempDir(), nil)
	// Measure a process tree as a server engine's sampler does.
	s.rd.root, s.rd.tree, s.rd.client, s.client = startTree(t), true, os.Getpid(), clientSeparate
	s.StepStart("cs", results.StepDesc{})
	iv := s.Interval(&measure.Interval{})
	if _, ok := iv["cs"]; ok {
		t.Errorf("interval right after the step's full baseline has cs %v: want it left for the next refresh", iv["cs"])
	}
	if _, ok := iv["sampler_cpu_us"]; !ok {
		t.Error("interval has no sampler_cpu_us")
	}
	if _, ok := iv["cpu_us"]; !ok {
		t.Error("interval has no cpu_us")
	}
	s.StepStop(nil, 0)
	sum := &results.Step{Step: "cs", Seconds: 0.1}
	s.StepEnd(sum, nil)
	m := sum.Metrics
	if m.ContextSwitches == nil {
		t.Errorf("step cs is null (%v): want read at the step's end", m.NullReasons["cs"])
	}
	if m.SamplerCPUUs == nil || *m.SamplerCPUUs <= 0 {
		t.Errorf("sampler_cpu_us %v: want > 0", m.SamplerCPUUs)
	}
	if m.ClientCPUUs == nil {
		t.Errorf("client_cpu_us null: %v", m.NullReasons["client_cpu_us"])
	}
}

// BenchmarkSamplerRead is one interval's reading of a 4-process tree, and
// of a refresh (every refreshEvery): the sampler's cost.
func BenchmarkSamplerRead(b *testing.B) {
	root := startTree(b)
	fs, _ := procfs.NewFS(procRoot)
	for _, full := range []bool{false, true} {
		name := "interval"
		if full {
			name = "refresh"
		}
		b.Run(name, func(b *testing.B) {
			r := &reader{fs: fs, root: root, tree: true, client: os.Getpid()}
			r.read(true, true, 0)
			s0 := r.sampler.total()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.read(full, false, 0)
			}
			b.ReportMetric(float64(r.sampler.total()-s0)/float64(b.N), "cpu-µs/read")
		})
	}
}

// burnThreadCPU spins on the calling thread until it has used d of CPU.
func burnThreadCPU(t *testing.T, d time.Duration) {
	t.Helper()
	t0, err := threadCPUus()
	if err != nil {
		t.Fatal(err)
	}
	x := uint64(1)
	for {
		for i := 0; i < 10000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now, _ := threadCPUus()
		if now-t0 >= uint64(d.Microseconds()) {
			break
		}
	}
	if x == 0 {
		t.Log(x)
	}
}

// The clock's thread CPU between two reads of the same clock loop (its
// merging, encoding and logging) counts as sampler_cpu_us; between reads
// of different loops, or outside a loop, it does not.
func TestClockLoopWorkCountsAsSampler(t *testing.T) {
	r := &reader{client: os.Getpid()}
	done := make(chan struct{})
	var counted, uncounted, otherLoop uint64
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r.read(false, false, 7)
		before := r.sampler.total()
		burnThreadCPU(t, 50*time.Millisecond)
		r.read(false, false, 7)
		counted = r.sampler.total() - before

		before = r.sampler.total()
		burnThreadCPU(t, 50*time.Millisecond)
		r.read(false, false, 8) // another loop: its baseline starts here
		otherLoop = r.sampler.total() - before

		r.read(false, false, 0)
		before = r.sampler.total()
		burnThreadCPU(t, 50*time.Millisecond)
		r.read(false, false, 0)
		uncounted = r.sampler.total() - before
	}()
	<-done
	t.Logf("50 ms of work between reads: same loop %d µs, other loop %d µs, no loop %d µs", counted, otherLoop, uncounted)
	if counted < 45_000 {
		t.Errorf("same loop: %d µs counted as sampler CPU, want the 50 ms of work", counted)
	}
	if otherLoop > 20_000 || uncounted > 20_000 {
		t.Errorf("work outside one loop's reads counted: other loop %d µs, no loop %d µs", otherLoop, uncounted)
	}
}
