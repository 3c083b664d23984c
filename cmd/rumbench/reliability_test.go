package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rumbench/internal/managed"
	"rumbench/internal/results"
)

// waitIntervals waits until path holds at least n lines.
func waitIntervals(t *testing.T, cmd *exec.Cmd, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && bytes.Count(b, []byte("\n")) >= n {
			return
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s did not get %d intervals within 60 s", path, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClientKilledBundleReadable: a SIGKILL of rumbench mid-step leaves a
// bundle that report reads, with every interval logged before the kill and
// the step shown incomplete (its figures rebuilt from those intervals).
func TestClientKilledBundleReadable(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(binary, "run", "--engine", "pebble", "--out", out, "--steps", "l.i0",
		"--rows", "2000000000", "--clients", "2", "--interval", "200ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(out, "pebble", results.IntervalsFile)
	waitIntervals(t, cmd, log, 4)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	// What was on disk when it died: every whole line of the log.
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	var logged int
	var rows int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var rec results.IntervalRecord
		if jsonErr := json.Unmarshal(sc.Bytes(), &rec); jsonErr != nil {
			break // a torn last line
		}
		logged++
		rows += rec.Ops["insert"].Rows
	}
	f.Close()

	b, err := results.Read(filepath.Join(out, "pebble"))
	if err != nil {
		t.Fatalf("read the bundle of a killed run: %v", err)
	}
	if len(b.Intervals) != logged || logged < 4 {
		t.Fatalf("bundle has %d intervals, the log %d whole lines", len(b.Intervals), logged)
	}
	st := b.Steps["l.i0"]
	if st == nil || st.Complete || !st.Unfinished {
		t.Fatalf("l.i0 of a killed run: %+v, want an unfinished, incomplete step", st)
	}
	if st.Inserted != rows || rows == 0 {
		t.Errorf("l.i0 inserted %d, the logged intervals %d", st.Inserted, rows)
	}
	if b.Run.Complete {
		t.Error("run.json of a killed run says complete")
	}
	stdout, stderr, code := rb(t, "report", out)
	if code != 0 {
		t.Fatalf("report of a killed run: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "incomplete") || !strings.Contains(stdout, "unfinished") {
		t.Errorf("report does not show l.i0 incomplete and unfinished:\n%s", stdout)
	}
}

// smallFS mounts a filesystem of size bytes for the test: ext4 on a loop
// device (a real block device), else a size-limited tmpfs; it skips,
// saying why, where mounting is not permitted.
func smallFS(t *testing.T, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small filesystem needs root (CI runs as root)")
	}
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	img := filepath.Join(dir, "fs.img")
	mounted := false
	if _, err := exec.LookPath("mkfs.ext4"); err == nil && size >= 1<<20 {
		if err := os.WriteFile(img, nil, 0o644); err == nil && os.Truncate(img, size) == nil {
			if out, err := exec.Command("mkfs.ext4", "-q", "-m", "0", img).CombinedOutput(); err != nil {
				t.Logf("mkfs.ext4: %v: %s", err, out)
			} else if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
				t.Logf("loop mount: %v: %s (trying tmpfs)", err, out)
			} else {
				mounted = true
			}
		}
	}
	if !mounted {
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), "tmpfs", mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a small filesystem here (no loop device, tmpfs not permitted): %v: %s", err, out)
		}
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	return mnt
}

// errLines are stderr's lines other than the system metrics' notes about
// the device (a tmpfs has no block device to measure).
func errLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l != "" && !strings.HasPrefix(l, "rumbench: metrics:") {
			out = append(out, l)
		}
	}
	return out
}

// TestFullDataDir: an engine whose data dir fills up ends its step with one
// line naming the filesystem and that it is full, exit 1; the bundle on
// another filesystem is intact and shows the step incomplete.
func TestFullDataDir(t *testing.T) {
	mnt := smallFS(t, 8<<20)
	for _, eng := range []string{"pebble", "sqlite"} {
		t.Run(eng, func(t *testing.T) {
			data := filepath.Join(mnt, eng)
			out := t.TempDir()
			_, stderr, code := rb(t, "run", "--engine", eng, "--data-dir", data, "--out", out, "--steps", "l.i0",
				"--rows", "10000000", "--clients", "2", "--interval", "200ms")
			defer os.RemoveAll(data)
			if eng == "pebble" && code == 2 && strings.Contains(stderr, "fatal error") && strings.Contains(stderr, "rotateWAL") {
				// Pebble v2.1.7 aborts the process (a runtime fatal error,
				// which no recover can catch) when the disk fills while it
				// switches WAL files; a failed WAL write itself is turned
				// into one line. What must hold then: the bundle, on
				// another filesystem, is readable and shows the step
				// unfinished (docs/reliability.md).
				b, err := results.Read(filepath.Join(out, eng))
				if err != nil {
					t.Fatalf("bundle after Pebble's abort: %v", err)
				}
				// The abort can come before the first interval ends (8 MB
				// fill in ~0.1 s), so the bundle may hold no interval yet;
				// the step must still be there, marked unfinished.
				if st := b.Steps["l.i0"]; st == nil || st.Complete || !st.Unfinished {
					t.Fatalf("after Pebble's abort: l.i0 %+v, want unfinished", st)
				}
				t.Logf("Pebble aborted in rotateWAL (upstream); the bundle shows l.i0 unfinished with %d intervals", len(b.Intervals))
				return
			}
			if code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, stderr)
			}
			lines := errLines(stderr)
			if len(lines) != 1 || !strings.Contains(lines[0], "disk full") || !strings.Contains(lines[0], mnt) || strings.Contains(stderr, "panic") {
				t.Fatalf("want one line saying the disk of %s is full, got:\n%s", mnt, stderr)
			}
			b, err := results.Read(filepath.Join(out, eng))
			if err != nil {
				t.Fatalf("bundle: %v", err)
			}
			st := b.Steps["l.i0"]
			if st == nil || st.Complete || st.Unfinished || !strings.Contains(st.Error, "disk full") || st.Inserted <= 0 {
				t.Fatalf("l.i0 summary: %+v, want incomplete with the disk-full error and the rows inserted", st)
			}
			if len(b.Intervals) == 0 {
				t.Error("no intervals in the bundle")
			}
		})
	}
}

// TestFullOut: when --out fills up, the run stops with one line naming its
// filesystem, exit 1; every step file left is whole JSON (the placeholder
// of the step that was running), with no temporary file beside it.
func TestFullOut(t *testing.T) {
	t.Parallel()
	mnt := smallFS(t, 64<<10)
	out := filepath.Join(mnt, "r")
	_, stderr, code := rb(t, "run", "--engine", "null", "--out", out, "--steps", "l.i0",
		"--rows", "2000000000", "--interval", "20ms")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	lines := errLines(stderr)
	if len(lines) != 1 || !strings.Contains(lines[0], "disk full") || !strings.Contains(lines[0], "--out") || !strings.Contains(lines[0], mnt) {
		t.Fatalf("want one line saying --out's disk is full, got:\n%s", stderr)
	}
	t.Log(lines[0])
	entries, err := os.ReadDir(filepath.Join(out, "null", results.StepsDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left in steps/", e.Name())
		}
	}
	b, err := results.Read(filepath.Join(out, "null"))
	if err != nil {
		t.Fatalf("bundle on the full filesystem: %v", err)
	}
	if st := b.Steps["l.i0"]; st == nil || st.Complete {
		t.Fatalf("l.i0: %+v, want an incomplete step", st)
	}
}

// TestStoppedServerEndsStep: a managed server that stops answering
// (SIGSTOP) ends the step after --op-timeout with one line saying so; the
// server is stopped and removed afterwards.
func TestStoppedServerEndsStep(t *testing.T) {
	t.Parallel()
	needManaged(t, "postgres")
	out := t.TempDir()
	cmd := exec.Command(binary, "run", "--engine", "postgres", "--managed", "--out", out, "--steps", "l.i0",
		"--rows", "100000000", "--clients", "2", "--interval", "200ms", "--op-timeout", "2s")
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitIntervals(t, cmd, filepath.Join(out, "postgres", results.IntervalsFile), 2)
	var run struct {
		Engine struct {
			Settings map[string]string `json:"settings"`
		} `json:"engine"`
	}
	readJSON(t, filepath.Join(out, "postgres", "run.json"), &run)
	pid, err := strconv.Atoi(run.Engine.Settings["managed_pid"])
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("managed_pid: %v", err)
	}
	// The whole server (postmaster and backends, which leave its process
	// group) stops answering.
	managed.SignalTree(pid, syscall.SIGSTOP)
	stopped := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(90 * time.Second):
		managed.SignalTree(pid, syscall.SIGCONT)
		cmd.Process.Kill()
		t.Fatal("the run hung on a stopped server")
	}
	t.Logf("run ended %.1fs after the server stopped", time.Since(stopped).Seconds())
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want 1 (stderr %q)", werr, se.String())
	}
	lines := errLines(se.String())
	if len(lines) != 1 || !strings.Contains(lines[0], "--op-timeout") || !strings.Contains(lines[0], "stopped answering") {
		t.Fatalf("want one line naming --op-timeout, got:\n%s", se.String())
	}
	var step results.Step
	readJSON(t, filepath.Join(out, "postgres", "steps", "l.i0.json"), &step)
	if step.Complete || !strings.Contains(step.Error, "--op-timeout") || step.Inserted <= 0 {
		t.Fatalf("l.i0: complete=%v error=%q inserted=%d", step.Complete, step.Error, step.Inserted)
	}
	checkServerGone(t, run.Engine.Settings)
}
