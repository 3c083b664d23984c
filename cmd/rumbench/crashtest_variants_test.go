package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crashtest of two variants of pebble: each is crashed under its label,
// with its own settings, into <data-dir>/<label>.
func TestCrashtestVariants(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"crashtest", "--engine", "pebble,z=pebble", "--engine-opt", "z.compression=zstd", "--kill-after", "300ms", "--data-dir", dir}
	so, se, code := rb(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	var lines []string
	for _, l := range strings.Split(so, "\n") {
		if strings.Contains(l, "acknowledged ") && strings.Contains(l, "/ lost") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "pebble ") || strings.Contains(lines[0], "compression=zstd") ||
		!strings.HasPrefix(lines[1], "z (pebble) ") || !strings.Contains(lines[1], "compression=zstd") {
		t.Errorf("result lines:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range []string{"pebble", "z"} {
		if entries, err := os.ReadDir(filepath.Join(dir, l)); err != nil || len(entries) == 0 {
			t.Errorf("no data of %s in %s: %v", l, filepath.Join(dir, l), err)
		}
	}
	wantBadInput(t, []string{"give each a label"}, "crashtest", "--engine", "pebble,pebble")
	wantBadInput(t, []string{"a and b have the same settings"}, "crashtest", "--engine", "a=pebble,b=pebble")
}
