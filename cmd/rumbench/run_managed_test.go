package main

import (
	"bytes"
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
)

func TestManagedBadInput(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r")
	base := []string{"run", "--out", out, "--steps", "l.i0"}
	cases := []struct {
		args  []string
		wants []string
	}{
		{[]string{"--engine", "postgres", "--server-opt", "shared_buffers=1GB"}, []string{"--server-opt", "add --managed"}},
		{[]string{"--engine", "pebble", "--managed"}, []string{"--managed", "no server engine"}},
		{[]string{"--engine", "pebble,postgres", "--managed=pebble"}, []string{"--managed pebble", "only postgres, innodb, myrocks"}},
		{[]string{"--engine", "postgres", "--managed=innodb"}, []string{"innodb is not in --engine"}},
		{[]string{"--engine", "postgres", "--managed", "postgres"}, []string{"--managed=postgres"}},
		{[]string{"--engine", "postgres", "--managed", "--keep-data"}, []string{"--keep-data needs --data-dir"}},
		{[]string{"--engine", "postgres", "--managed", "--dsn", "postgres://x@127.0.0.1:5432/"}, []string{"--dsn", "--managed"}},
	}
	for _, c := range cases {
		wantBadInput(t, c.wants, append(append([]string{}, base...), c.args...)...)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run created --out %s", out)
	}
}

func needManaged(t *testing.T, eng string) {
	t.Helper()
	if err := managed.Check(eng); err != nil {
		t.Skipf("managed %s: binaries not installed here: %v", eng, err)
	}
}

// TestManagedRun: a run on a managed postgres records the server's
// settings (given and effective) in run.json and leaves no process or
// directory; a value the server refuses is one line and exit 2.
func TestManagedRun(t *testing.T) {
	t.Parallel()
	needManaged(t, "postgres")
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "--engine", "postgres", "--managed", "--server-opt", "shared_buffers=32MB",
		"--steps", "l.i0", "--rows", "500", "--clients", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run struct {
		Engine struct {
			Settings map[string]string `json:"settings"`
		} `json:"engine"`
	}
	readJSON(t, filepath.Join(out, "postgres", "run.json"), &run)
	st := run.Engine.Settings
	if st["managed"] != "true" || st["shared_buffers"] != "32MB" || st["server_opt.shared_buffers"] != "32MB" {
		t.Errorf("run.json settings: managed=%q shared_buffers=%q server_opt.shared_buffers=%q", st["managed"], st["shared_buffers"], st["server_opt.shared_buffers"])
	}
	checkServerGone(t, st)

	wantBadInput(t, []string{`invalid value for parameter "shared_buffers": "abc"`},
		"run", "--engine", "postgres", "--managed", "--server-opt", "shared_buffers=abc", "--steps", "l.i0", "--out", filepath.Join(t.TempDir(), "r2"))
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	wantBadInput(t, []string{"bad --data-dir", "not empty"},
		"run", "--engine", "postgres", "--managed", "--data-dir", full, "--steps", "l.i0", "--out", filepath.Join(t.TempDir(), "r4"))
	wantBadInput(t, []string{`unknown --server-opt "no_such_setting"`},
		"run", "--engine", "postgres", "--managed", "--server-opt", "no_such_setting=1", "--steps", "l.i0", "--out", filepath.Join(t.TempDir(), "r3"))
}

func checkServerGone(t *testing.T, st map[string]string) {
	t.Helper()
	pid, err := strconv.Atoi(st["managed_pid"])
	if err != nil || pid <= 0 {
		t.Fatalf("run.json has no managed_pid (%q)", st["managed_pid"])
	}
	if m := managed.GroupMembers(pid); len(m) > 0 {
		t.Errorf("server processes left: %v", m)
	}
	if _, err := os.Stat(st["managed_dir"]); st["managed_dir"] == "" || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("server data dir %q left (err %v)", st["managed_dir"], err)
	}
}

// TestManagedInterrupt: Ctrl-C during a step stops the managed server and
// removes its directory.
func TestManagedInterrupt(t *testing.T) {
	t.Parallel()
	needManaged(t, "postgres")
	out := t.TempDir()
	cmd := exec.Command(binary, "run", "--engine", "postgres", "--managed", "--out", out, "--steps", "l.i0",
		"--rows", "100000000", "--interval", "200ms")
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if fi, err := os.Stat(filepath.Join(out, "postgres", "intervals.jsonl")); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("run wrote no interval within 60s: %s", se.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit after Ctrl-C: %v, want code 130 (stderr %q)", err, se.String())
	}
	var run struct {
		Engine struct {
			Settings map[string]string `json:"settings"`
		} `json:"engine"`
	}
	readJSON(t, filepath.Join(out, "postgres", "run.json"), &run)
	checkServerGone(t, run.Engine.Settings)
}

// TestManagedKeepVerifyContinue: a kept managed InnoDB server with 8 KB
// pages is verified by verify --managed and continued by a second run,
// both starting it with the page size it was created with, and each leaves
// no process behind.
func TestManagedKeepVerifyContinue(t *testing.T) {
	t.Parallel()
	needManaged(t, "innodb")
	base, err := os.MkdirTemp("", "rumbench-keep-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755) // the servers' user must reach the data dir
	data := filepath.Join(base, "d")
	small := []string{"--rows", "2000", "--clients", "1", "--indexes", "1", "--churn-rows", "500"}
	args := append([]string{"run", "--engine", "innodb", "--managed", "--server-opt", "innodb_page_size=8k",
		"--data-dir", data, "--keep-data", "--steps", "l.i0,l.x", "--out", filepath.Join(base, "r1")}, small...)
	if _, stderr, code := rb(t, args...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "server", "data", "ibdata1")); err != nil {
		t.Fatalf("--keep-data did not keep the server: %v", err)
	}
	stdout, stderr, code := rb(t, "verify", "--engine", "innodb", "--managed", "--data-dir", data)
	if code != 0 || !strings.Contains(stdout, "OK: 1 tables") {
		t.Fatalf("verify --managed: exit %d: %s %s", code, stdout, stderr)
	}
	args = append([]string{"run", "--engine", "innodb", "--managed", "--data-dir", data, "--steps", "l.i1",
		"--out", filepath.Join(base, "r2")}, small...)
	if _, stderr, code := rb(t, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	var run struct {
		Engine struct {
			Settings map[string]string `json:"settings"`
		} `json:"engine"`
	}
	readJSON(t, filepath.Join(base, "r2", "innodb", "run.json"), &run)
	if st := run.Engine.Settings; st["innodb_page_size"] != "8192" || st["managed_init_s"] != "0.00" {
		t.Errorf("second run: innodb_page_size=%q managed_init_s=%q, want 8192 and 0.00 (the kept server)", st["innodb_page_size"], st["managed_init_s"])
	}
	checkServerGone(t, run.Engine.Settings)
	if p := processesUsing(base); len(p) > 0 {
		t.Errorf("processes left: %v", p)
	}
}

// processesUsing lists processes whose command line mentions path.
func processesUsing(path string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), path) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
