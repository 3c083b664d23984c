package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify of a labelled run: each variant's data is in <data-dir>/<label>,
// checked as its engine's; a variant given to --engine is refused with the
// command that works.
func TestVerifyVariants(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if _, stderr, code := rb(t, "run", "--engine", "none=pebble,zstd=pebble", "--engine-opt", "none.compression=none", "--engine-opt", "zstd.compression=zstd",
		"--data-dir", data, "--out", filepath.Join(dir, "out"), "--rows", "500", "--clients", "1", "--churn-rows", "100", "--steps", "l.i0,l.x,l.i1"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	for _, l := range []string{"none", "zstd"} {
		stdout, stderr, code := rb(t, "verify", "--engine", "pebble", "--data-dir", filepath.Join(data, l))
		if code != 0 || !strings.Contains(stdout, "OK: 1 tables") {
			t.Errorf("verify of %s: exit %d: %s%s", l, code, stdout, stderr)
		}
	}
	wantBadInput(t, []string{"verify takes the engine, not a variant: give --engine pebble --data-dir <data-dir>/zstd"},
		"verify", "--engine", "zstd=pebble", "--data-dir", filepath.Join(data, "zstd"))
	wantBadInput(t, []string{"--install", "with --managed"}, "verify", "--engine", "postgres", "--install", dir)
}

// verify --managed --install starts a kept server of a variant from the
// installation it ran from (one variant: its data is --data-dir itself).
func TestVerifyManagedInstall(t *testing.T) {
	t.Parallel()
	const bin = "/usr/lib/postgresql/15/bin"
	needManaged(t, "postgres")
	dir, err := os.MkdirTemp("", "rumbench-verify-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755) // the server's user must reach the data dir
	data := filepath.Join(dir, "data")
	if _, stderr, code := rb(t, "run", "--engine", "pg=postgres", "--managed", "--install", "pg="+bin, "--keep-data", "--data-dir", data,
		"--out", filepath.Join(dir, "out"), "--rows", "500", "--clients", "1", "--churn-rows", "100", "--steps", "l.i0,l.x,l.i1"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := rb(t, "verify", "--engine", "postgres", "--managed", "--install", bin, "--data-dir", data)
	if code != 0 || !strings.Contains(stdout, "OK: 1 tables") {
		t.Errorf("verify --managed --install: exit %d: %s%s", code, stdout, stderr)
	}
	wantBadInput(t, []string{"--install " + dir}, "verify", "--engine", "postgres", "--managed", "--install", dir, "--data-dir", data)
}
