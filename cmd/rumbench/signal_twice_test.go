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

// TestManagedTwoSignals (issue 48 item 3): two signals in quick succession
// during a managed postgres run — as `timeout` sends, to the process and
// then to its group — end it as one does: exit 130 with the "interrupted"
// line, no server process and no data dir left, and a bundle that
// `rumbench report` reads.
func TestManagedTwoSignals(t *testing.T) {
	t.Parallel()
	needManaged(t, "postgres")
	for _, sigs := range [][]syscall.Signal{{syscall.SIGTERM, syscall.SIGTERM}, {syscall.SIGINT, syscall.SIGTERM}} {
		t.Run(sigs[0].String()+"+"+sigs[1].String(), func(t *testing.T) { twoSignals(t, sigs) })
	}
}

func twoSignals(t *testing.T, sigs []syscall.Signal) {
	// The run's temporary directories (data dir, server) go to a TMPDIR of
	// its own, which must be empty at the end; the server's user reaches
	// it.
	tmp, err := os.MkdirTemp("", "rumbench-signals-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	os.Chmod(tmp, 0o755)
	out := filepath.Join(t.TempDir(), "r")
	cmd := exec.Command(binary, "run", "--engine", "postgres", "--managed", "--out", out, "--steps", "l.i0",
		"--rows", "100000000", "--interval", "200ms")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
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
			cmd.Wait()
			t.Fatalf("run wrote no interval within 60s: %s", se.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(sigs[0])
	// The second arrives while the first is being handled.
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Signal(sigs[1])
	err = cmd.Wait()
	var run struct {
		Engine struct {
			Settings map[string]string `json:"settings"`
		} `json:"engine"`
	}
	readJSON(t, filepath.Join(out, "postgres", "run.json"), &run)
	st := run.Engine.Settings
	defer cleanLeftServer(st)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit after %v, %v: %v, want code 130 (stderr %q)", sigs[0], sigs[1], err, se.String())
	}
	if !strings.Contains(se.String(), "rumbench: interrupted; results gathered so far are saved") {
		t.Errorf("stderr lacks the \"interrupted\" line: %q", se.String())
	}
	checkServerGone(t, st)
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("temporary directories left in TMPDIR: %v", names)
	}
	if stdout, stderr, code := rb(t, "report", out); code != 0 {
		t.Errorf("report of the interrupted bundle: exit %d: %s %s", code, stdout, stderr)
	}
}

// cleanLeftServer kills a server a failed run left (so a failing test
// leaves nothing running).
func cleanLeftServer(st map[string]string) {
	if pid, err := strconv.Atoi(st["managed_pid"]); err == nil && pid > 0 {
		for _, p := range managed.GroupMembers(pid) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	if d := st["managed_dir"]; d != "" {
		os.RemoveAll(d)
	}
}
