//go:build linux

package sysmetrics

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// selfReader measures this test process and the device under dir.
func selfReader(t *testing.T, dir string) (*reader, *Device) {
	t.Helper()
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	r := &reader{fs: fs, root: os.Getpid()}
	dev, err := ResolveDevice(dir)
	if err != nil {
		t.Logf("device level skipped: %v", err)
		return r, nil
	}
	bfs, err := blockdevice.NewFS(procRoot, sysRoot)
	if err != nil {
		t.Logf("device level skipped: %v", err)
		return r, nil
	}
	r.dev, r.bfs = dev, &bfs
	return r, dev
}

// window returns the deltas of the counters across fn.
func window(r *reader, fn func()) Deltas {
	tr := newTracker()
	tr.observe(r.read(true, false, 0))
	fn()
	return tr.observe(r.read(true, false, 0))
}

const calibBytes = 64 << 20

func writeAndSync(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	// Random data so no layer below can compress it away.
	rand.Read(buf)
	for n := 0; n < calibBytes; n += len(buf) {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func within(got, want, tol float64) bool { return got >= want*(1-tol) && got <= want*(1+tol) }

// TestCalibrationWrite writes and fsyncs 64 MiB in a measured window: the
// process's write_bytes and the device's sectors written must both be within
// 10% of the truth. The device is shared with the rest of the machine, so
// each attempt also measures an idle window of the same length just before
// and, when the raw device reading is off, judges it with that background
// subtracted; up to five attempts are made.
func TestCalibrationWrite(t *testing.T) {
	dir := t.TempDir()
	r, dev := selfReader(t, dir)
	var procOK, devOK bool
	for attempt := 1; attempt <= 5 && !(procOK && (devOK || dev == nil)); attempt++ {
		path := filepath.Join(dir, fmt.Sprintf("calib%d", attempt))
		start := time.Now()
		d := window(r, func() { writeAndSync(t, path) })
		took := time.Since(start)
		os.Remove(path)
		if !d.OK[fProcWrite] {
			t.Fatalf("process write_bytes unavailable: %v", r.read(true, false, 0).errs[fProcWrite])
		}
		pw := float64(d.V[fProcWrite])
		procOK = procOK || within(pw, calibBytes, 0.10)
		t.Logf("attempt %d: truth %d bytes; process write_bytes %.0f (%.3f×)", attempt, calibBytes, pw, pw/calibBytes)
		if dev == nil {
			continue
		}
		if !d.OK[fDevWriteSect] {
			t.Fatalf("device %s: sectors written unavailable", dev)
		}
		idle := window(r, func() { time.Sleep(took) })
		dw := float64(d.V[fDevWriteSect] * 512)
		bg := float64(idle.V[fDevWriteSect] * 512)
		devOK = devOK || within(dw, calibBytes, 0.10) || within(dw-bg, calibBytes, 0.10)
		t.Logf("attempt %d: device %s wrote %.0f bytes (%.3f×) in %d writes in %v; background in an idle window as long: %.0f bytes, so %.3f× net; discards %d sectors (kept apart)",
			attempt, dev, dw, dw/calibBytes, d.V[fDevWrites], took.Round(time.Millisecond), bg, (dw-bg)/calibBytes, d.V[fDevDiscardSect])
	}
	if !procOK {
		t.Error("process write_bytes not within 10% of the bytes written in any attempt")
	}
	if dev == nil {
		t.Skip("device level skipped: no block device resolves for the temp dir (see log)")
	}
	if !devOK {
		t.Error("device bytes written not within 10% of the bytes written in any attempt, even net of background")
	}
}

// testThreadCPU is the calling OS thread's user+sys CPU, µs.
func testThreadCPU(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Utime.Nano()/1000 + ru.Stime.Nano()/1000
}

var sink uint64

// TestCalibrationCPU burns 300 ms of CPU in one goroutine locked to its
// thread; the process CPU measured from /proc must be within 10% of the
// thread's own rusage (the truth, counted in CPU time so a busy machine
// cannot stretch it).
func TestCalibrationCPU(t *testing.T) {
	r, _ := selfReader(t, t.TempDir())
	const burn = 300_000 // µs
	var truth int64
	d := window(r, func() {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := testThreadCPU(t)
			x := uint64(1)
			for testThreadCPU(t)-start < burn {
				for i := 0; i < 10000; i++ {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			sink = x
			truth = testThreadCPU(t) - start
			close(done)
		}()
		<-done
	})
	if !d.OK[fCPU] {
		t.Fatal("process CPU unavailable")
	}
	got := float64(d.V[fCPU])
	t.Logf("burn: thread rusage %d µs; process CPU from /proc/PID/stat %.0f µs (%.3f×)", truth, got, got/float64(truth))
	if !within(got, float64(truth), 0.10) {
		t.Errorf("measured CPU %.0f µs not within 10%% of %d µs", got, truth)
	}
	if !d.OK[fCS] {
		t.Error("context switches unavailable")
	}
}

// TestResolveTempDir resolves the device of the test's temp dir and checks
// it against the directory's own st_dev and /proc/diskstats.
func TestResolveTempDir(t *testing.T) {
	dir := t.TempDir()
	dev, err := ResolveDevice(dir)
	if err != nil {
		t.Skipf("no block device for %s: %v", dir, err)
	}
	t.Logf("%s is on %s: %+v", dir, dev, *dev)
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	major := uint32((st.Dev>>8)&0xfff) | uint32((st.Dev>>32)&^0xfff)
	minor := uint32(st.Dev&0xff) | uint32((st.Dev>>12)&^0xff)
	if major != 0 && (major != dev.Major || minor != dev.Minor) {
		t.Errorf("resolved %d:%d, but st_dev of %s is %d:%d", dev.Major, dev.Minor, dir, major, minor)
	}
	if dev.Kind == "partition" && dev.Disk == dev.Name {
		t.Errorf("partition %s has no parent disk", dev.Name)
	}
	bfs, err := blockdevice.NewFS(procRoot, sysRoot)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		if s.DeviceName == dev.Name && s.MajorNumber == dev.Major && s.MinorNumber == dev.Minor {
			return
		}
	}
	t.Errorf("%s (%d:%d) is not in /proc/diskstats", dev.Name, dev.Major, dev.Minor)
}

func TestResolveMissingDirUsesAncestor(t *testing.T) {
	dir := t.TempDir()
	a, err := ResolveDevice(dir)
	if err != nil {
		t.Skipf("no block device: %v", err)
	}
	b, err := ResolveDevice(filepath.Join(dir, "not", "yet"))
	if err != nil || b.Name != a.Name {
		t.Fatalf("missing subdir resolved to %v, %v; want %s", b, err, a.Name)
	}
}

func TestAllocatedBytes(t *testing.T) {
	dir := t.TempDir()
	// A sparse file: 8 MiB apparent, one 4 KiB block written.
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 4096), 8<<20-4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, "dense"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Link(filepath.Join(dir, "dense"), filepath.Join(dir, "dense.link"))
	n, err := AllocatedBytes(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 1 MiB dense (once, despite the hard link) + a few KiB: not 9 MiB.
	if n < 1<<20 || n > 1<<20+256<<10 {
		t.Fatalf("allocated %d bytes, want about 1 MiB", n)
	}
}

func TestPSSAndThreads(t *testing.T) {
	r, _ := selfReader(t, t.TempDir())
	rd := r.read(true, true, 0)
	if rd.pss == nil {
		t.Skipf("PSS unavailable: %v", rd.pssErr)
	}
	if *rd.pss < 1<<20 || rd.rssLargest == nil || *rd.rssLargest < 1<<20 {
		t.Fatalf("pss %d rss %v: want at least 1 MiB each", *rd.pss, rd.rssLargest)
	}
	// rumbench's own process: one value from getrusage, exited threads
	// included.
	if len(rd.vals[fCS]) != 1 {
		t.Fatalf("context switches of the process: %d values, want 1 from getrusage", len(rd.vals[fCS]))
	}
}
