package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rumbench/internal/memcg"
	"rumbench/internal/results"
)

// needCgroups skips unless this process can create memory cgroups.
func needCgroups(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (memory cgroups)")
	}
	ctl, err := memcg.Detect()
	if err == nil {
		err = ctl.Check()
	}
	if err != nil {
		t.Skipf("no writable memory controller: %v", err)
	}
}

// The memory limit holds: pebble loads more data than the limit in a child
// process whose cgroup peaks at or under the limit, and run.json records
// the limit, the cgroup and its peak; the cgroup is gone afterwards and the
// bundle is the usual one (all rows inserted).
func TestMemoryLimitHolds(t *testing.T) {
	needCgroups(t)
	out := filepath.Join(t.TempDir(), "r")
	const limit = 48 << 20
	// The limit holds the 4MB cache, two 3MB memtables, pebble's own 20MB
	// and 16MB of room; the index build's sort gets the rest (2MB).
	so, se, code := rb(t, "run", "--engine", "pebble", "--memory-limit", "48MB", "--engine-opt", "cache_size=4MB", "--engine-opt", "memtable_size=3MB",
		"--clients", "1", "--rows", "250000", "--pad-min", "250", "--pad-max", "250", "--steps", "l.i0", "--interval", "200ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	b, err := results.Read(filepath.Join(out, "pebble"))
	if err != nil {
		t.Fatal(err)
	}
	m := b.Run.MemoryLimit
	if m == nil || m.LimitBytes != limit || m.PeakBytes == nil || m.Path == "" {
		t.Fatalf("run.json memory_limit = %+v", m)
	}
	st := b.Steps["l.i0"]
	if st == nil || st.Inserted != 250000 || !b.Run.Complete {
		t.Fatalf("l.i0 = %+v, complete %v", st, b.Run.Complete)
	}
	size := *st.Metrics.DiskBytes
	if size <= limit {
		t.Fatalf("data dir %d bytes is not larger than the limit %d: the test proves nothing", size, limit)
	}
	// The kernel lets a few forced charges (allocations that may not fail)
	// go over the limit for a moment: a page or so, never megabytes.
	if *m.PeakBytes > limit+256<<10 || *m.PeakBytes < 8<<20 {
		t.Errorf("cgroup peak %d bytes, want at most the limit %d plus a few pages (and some charge, so the engine ran in it)", *m.PeakBytes, limit)
	}
	if m.OOMKills != nil && *m.OOMKills != 0 {
		t.Errorf("%d OOM kills", *m.OOMKills)
	}
	if _, err := os.Stat(m.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s left behind (%v)", m.Path, err)
	}
	if !strings.Contains(so, "rumbench run:") || !strings.Contains(so, "l.i0") || !strings.Contains(so, "results: "+out) {
		t.Errorf("parent did not relay the child's output and report:\n%s", so)
	}
}

// Issue 48 item 8: --memory-limit covers every large buffer an engine
// has. Under 64MB pebble's memtables and index build sort (2 × 64MB and
// 64MB by default, outside the 20MB cache the limit leaves) are shrunk so
// that its cache, buffers, own memory and room fit the limit, recorded in
// run.json (config.cache_size.fitted) and read back from pebble; a limit
// that cannot hold pebble even with its buffers at their smallest is
// refused before anything starts, in one line naming the limit that would.
func TestMemoryLimitCoversBuffers(t *testing.T) {
	t.Parallel()
	needCgroups(t)
	out := filepath.Join(t.TempDir(), "r")
	so, se, code := rb(t, "run", "--engine", "pebble", "--memory-limit", "64MB", "--rows", "500000", "--steps", "l.i0,l.x", "--interval", "200ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	raw, err := os.ReadFile(filepath.Join(out, "pebble", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Config struct {
			CacheSize struct {
				Bytes  int64            `json:"bytes"`
				Fitted map[string]int64 `json:"fitted"`
			} `json:"cache_size"`
		} `json:"config"`
		Engine struct {
			Memory struct {
				CacheBytes       int64 `json:"cache_bytes"`
				WriteBufferBytes int64 `json:"write_buffer_bytes"`
			} `json:"memory"`
		} `json:"engine"`
		MemoryLimit struct {
			OOMKills *int64 `json:"oom_kills"`
		} `json:"memory_limit"`
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	fit, mem := run.Config.CacheSize.Fitted, run.Engine.Memory
	mt, ib := fit["pebble.memtable_size"], fit["pebble.index_build_memory"]
	if run.Config.CacheSize.Bytes != 20<<20 || mem.CacheBytes != 20<<20 || mt == 0 || ib == 0 {
		t.Fatalf("run.json cache_size %+v, engine.memory %+v: want the 20MB cache and fitted buffers", run.Config.CacheSize, mem)
	}
	if mem.WriteBufferBytes != 2*mt {
		t.Errorf("pebble reads back %d bytes of memtables, want 2 × the fitted %d", mem.WriteBufferBytes, mt)
	}
	// cache + memtables + index build sort + pebble's own 20MB + 16MB room
	if n := mem.CacheBytes + mem.WriteBufferBytes + ib + 20<<20 + 16<<20; n > 64<<20 {
		t.Errorf("pebble's memory %d bytes is over the 64MB limit", n)
	}
	if k := run.MemoryLimit.OOMKills; k != nil && *k != 0 {
		t.Errorf("%d OOM kills", *k)
	}

	out = filepath.Join(t.TempDir(), "r")
	wantBadInput(t, []string{"--memory-limit 40MB cannot hold pebble", "memtables 2 × 64KB (memtable_size at its smallest)", "give --memory-limit 49MB or more"},
		"run", "--engine", "pebble", "--memory-limit", "40MB", "--rows", "1000", "--steps", "l.i0", "--out", out)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run left %s (%v)", out, err)
	}
}

// Refusals are one line and exit 2: a cgroup root without a memory
// controller, a non-root user (the real controller is not writable for
// it), --drop-caches as non-root, a size too small.
func TestMemoryLimitRefusals(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	base := []string{"run", "--engine", "pebble", "--rows", "1000", "--steps", "l.i0", "--out", out}
	wantBadInput(t, []string{"--memory-limit", "at least 16MB"}, append(base, "--memory-limit", "1MB")...)
	wantBadInput(t, []string{"--memory-limit", "server rumbench did not start", "--managed=postgres"}, "run", "--engine", "pebble,postgres", "--memory-limit", "64MB", "--out", out)
	wantBadInput(t, []string{"--child-cgroup", "internal"}, append(base, "--child-cgroup", "/x")...)

	cmd := exec.Command(binary, append(base, "--memory-limit", "64MB")...)
	cmd.Env = append(os.Environ(), memcg.RootEnv+"="+t.TempDir())
	var se bytes.Buffer
	cmd.Stderr = &se
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || strings.Count(strings.TrimSpace(se.String()), "\n") != 0 || !strings.Contains(se.String(), "not a cgroup directory with a memory controller") {
		t.Errorf("no controller: %v, stderr %q", err, se.String())
	}

	if os.Geteuid() != 0 {
		wantBadInput(t, []string{"--memory-limit", "cannot create a cgroup"}, append(base, "--memory-limit", "64MB")...)
		wantBadInput(t, []string{"--drop-caches", "only root"}, append(base, "--drop-caches")...)
		return
	}
	// As root: the same binary run as nobody.
	bin := filepath.Dir(binary)
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	os.Chmod(tmp, 0o777)
	for _, c := range []struct {
		flag  string
		wants []string
	}{
		{"--memory-limit=64MB", []string{"--memory-limit: cannot create a cgroup", "run as root"}},
		{"--drop-caches", []string{"--drop-caches", "only root"}},
	} {
		cmd := exec.Command(binary, "run", "--engine", "pebble", "--rows", "1000", "--steps", "l.i0", "--out", filepath.Join(tmp, "r"), c.flag)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Env = []string{"HOME=" + tmp, "TMPDIR=" + tmp, "PATH=/usr/bin:/bin"}
		var se bytes.Buffer
		cmd.Stderr = &se
		err := cmd.Run()
		lines := strings.Split(strings.TrimSpace(se.String()), "\n")
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || len(lines) != 1 {
			t.Errorf("%s as nobody: %v, stderr %q", c.flag, err, se.String())
			continue
		}
		for _, w := range c.wants {
			if !strings.Contains(se.String(), w) {
				t.Errorf("%s as nobody: stderr %q lacks %q", c.flag, se.String(), w)
			}
		}
	}
}

// --drop-caches (root) drops before every step and says so in run.json and
// in each step.
func TestDropCaches(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	out := filepath.Join(t.TempDir(), "r")
	so, se, code := rb(t, "run", "--engine", "sqlite", "--drop-caches", "--clients", "1", "--rows", "2000", "--indexes", "1", "--steps", "l.i0,l.x", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "sqlite", "run.json"))
	var run map[string]any
	json.Unmarshal(raw, &run)
	if run["drop_caches"] != true {
		t.Errorf("run.json drop_caches = %v", run["drop_caches"])
	}
	b, err := results.Read(filepath.Join(out, "sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"l.i0", "l.x"} {
		if st := b.Steps[s]; st == nil || !st.CachesDropped {
			t.Errorf("step %s: caches_dropped not recorded", s)
		}
	}
}

// Managed servers run in a memory cgroup of their own with --memory-limit:
// postgres (an unprivileged user, joined through cgroup-exec on v1) and
// innodb, here a labelled variant (its cgroup named by the label, its limit
// its engine's); run.json records the cgroup, whose peak is under the
// limit, and the cgroup is removed with the server.
func TestManagedServersInMemoryCgroup(t *testing.T) {
	t.Parallel()
	needCgroups(t)
	needManaged(t, "postgres")
	needManaged(t, "innodb")
	// The server's user execs this binary (cgroup-exec).
	if err := os.Chmod(filepath.Dir(binary), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r")
	const limit = 600 << 20
	so, se, code := rb(t, "run", "--engine", "postgres,ib=innodb", "--managed", "--memory-limit", "600MB",
		"--steps", "l.i0", "--rows", "2000", "--clients", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	for _, e := range []string{"postgres", "ib"} {
		b, err := results.Read(filepath.Join(out, e))
		if err != nil {
			t.Fatal(err)
		}
		m := b.Run.MemoryLimit
		if m == nil || m.LimitBytes != limit || m.PeakBytes == nil || *m.PeakBytes < 1<<20 || *m.PeakBytes > limit+256<<10 || !strings.Contains(m.Path, e) {
			t.Errorf("%s: memory_limit %+v", e, m)
			continue
		}
		if _, err := os.Stat(m.Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: cgroup %s left behind", e, m.Path)
		}
		if st := b.Steps["l.i0"]; st == nil || st.Inserted != 2000 {
			t.Errorf("%s: l.i0 %+v", e, st)
		}
	}
}

// Ctrl-C on the parent reaches the engine's child once: the child ends its
// step cleanly and saves it, the parent exits 130, and the cgroup (which
// cannot be removed while a process is in it) is gone.
func TestMemoryLimitInterrupt(t *testing.T) {
	needCgroups(t)
	out := filepath.Join(t.TempDir(), "r")
	cmd := exec.Command(binary, "run", "--engine", "pebble", "--memory-limit", "128MB", "--engine-opt", "cache_size=8MB",
		"--clients", "1", "--rows", "50000000", "--steps", "l.i0", "--out", out)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	step := filepath.Join(out, "pebble", "intervals.jsonl")
	for i := 0; i < 300; i++ {
		if st, err := os.Stat(step); err == nil && st.Size() > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130\n%s\n%s", err, so.String(), se.String())
	}
	if n := strings.Count(se.String(), "interrupted"); n != 1 {
		t.Errorf("stderr says interrupted %d times: %q", n, se.String())
	}
	b, err := results.Read(filepath.Join(out, "pebble"))
	if err != nil {
		t.Fatal(err)
	}
	st := b.Steps["l.i0"]
	if st == nil || st.Complete || st.Inserted == 0 || b.Run.Complete {
		t.Fatalf("interrupted step %+v", st)
	}
	if m := b.Run.MemoryLimit; m == nil {
		t.Error("no memory_limit in run.json")
	} else if _, err := os.Stat(m.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s left behind", m.Path)
	}
}

// An engine that outgrows the limit is OOM-killed: the run fails with one
// line naming the OOM killer and the peak, and the temporary data dir (the
// parent's) and the cgroup are removed all the same. The limit holds
// pebble's cache and buffers (a limit that does not is refused before the
// run: TestMemoryLimitCoversBuffers); what outgrows it are the rows, 1MB
// each, 100 to a batch.
func TestMemoryLimitOOM(t *testing.T) {
	needCgroups(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "r")
	cmd := exec.Command(binary, "run", "--engine", "pebble", "--memory-limit", "64MB",
		"--clients", "1", "--rows", "2000", "--pad-min", "1000000", "--pad-max", "1000000", "--steps", "l.i0", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(se.String(), "killed by the OOM killer") || !strings.Contains(se.String(), "--memory-limit 64MB") {
		t.Fatalf("exit %v, stderr %q", err, se.String())
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "rumbench-pebble-*"))
	if len(left) != 0 {
		t.Errorf("temporary data dirs left behind: %v", left)
	}
	b, err := results.Read(filepath.Join(out, "pebble"))
	if err != nil {
		t.Fatal(err)
	}
	if m := b.Run.MemoryLimit; m == nil || m.OOMKills == nil || *m.OOMKills < 1 {
		t.Errorf("run.json memory_limit %+v: no OOM kill recorded", m)
	} else if _, err := os.Stat(m.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s left behind", m.Path)
	}
}

// --memory-limit runs labelled variants: each in its own child and cgroup,
// under its label with its own settings, in run and in sweep.
func TestMemoryLimitVariants(t *testing.T) {
	needCgroups(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r")
	so, se, code := rb(t, "run", "--engine", "none=pebble,zstd=pebble", "--engine-opt", "none.compression=none", "--engine-opt", "zstd.compression=zstd",
		"--memory-limit", "64MB", "--engine-opt", "cache_size=4MB", "--clients", "1", "--rows", "2000", "--steps", "l.i0", "--interval", "200ms", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, so, se)
	}
	for _, l := range []string{"none", "zstd"} {
		b, err := results.Read(filepath.Join(out, l))
		if err != nil {
			t.Fatal(err)
		}
		if m := b.Run.MemoryLimit; m == nil || m.LimitBytes != 64<<20 || m.PeakBytes == nil || !strings.Contains(m.Path, l) {
			t.Errorf("%s: memory_limit %+v", l, m)
		}
		if b.Run.Label != l || b.Run.Engine.Settings["compression"] != l {
			t.Errorf("%s: label %q, compression %q", l, b.Run.Label, b.Run.Engine.Settings["compression"])
		}
	}
	sw := filepath.Join(dir, "s")
	so, se, code = rb(t, "sweep", "--engine", "pebble", "--vary", "pebble.compression=none,zstd", "--memory-limit", "64MB", "--engine-opt", "cache_size=4MB",
		"--indexes", "0", "--rows", "1000", "--interval", "200ms", "--out", sw)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, so, se)
	}
	for _, l := range []string{"pebble-compression-none", "pebble-compression-zstd"} {
		b, err := results.Read(filepath.Join(sw, "x0-pad20-c1", l))
		if err != nil {
			t.Fatal(err)
		}
		if m := b.Run.MemoryLimit; m == nil || m.PeakBytes == nil || b.Run.Label != l {
			t.Errorf("sweep %s: label %q, memory_limit %+v", l, b.Run.Label, m)
		}
	}
}
