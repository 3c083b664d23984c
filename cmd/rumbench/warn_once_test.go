package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The warning that --out shares the data dir's device is said once per run,
// not once per engine and sweep cell (issue 34: once per engine).
func TestSameDeviceWarningOncePerRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	_, stderr, code := rb(t, "sweep", "--engine", "null,sqlite", "--indexes", "0,1", "--rows", "1000", "--out", out)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	n := strings.Count(stderr, "are on the same device")
	if n == 0 {
		t.Skip("the temporary directory has no block device here: nothing to warn about")
	}
	if n != 1 {
		t.Errorf("the same-device warning was printed %d times in a sweep of 2 engines x 2 cells, want once:\n%s", n, stderr)
	}
}

// Engines in child processes (--memory-limit) each sample their own
// metrics; the parent says the warning once for all of them.
func TestSameDeviceWarningOnceWithChildren(t *testing.T) {
	needCgroups(t)
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := rb(t, "run", "--engine", "pebble,sqlite", "--memory-limit", "256MB", "--clients", "1", "--rows", "2000", "--steps", "l.i0", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	n := strings.Count(stderr, "are on the same device")
	if n == 0 {
		t.Skip("the temporary directory has no block device here: nothing to warn about")
	}
	if n != 1 {
		t.Errorf("the same-device warning was printed %d times for 2 engines in child processes, want once:\n%s", n, stderr)
	}
}
