package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNoInputSilentlyDropped (issue 34): a setting given twice for one
// scope is refused, not resolved by keeping the last; Cobra's own errors
// (an unknown workload or command, a shell completion does not know, a
// number pflag cannot parse) are one line saying what to give instead.
func TestNoInputSilentlyDropped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := func(n string) string { return filepath.Join(dir, n) }
	cases := []struct {
		name  string
		wants []string
		args  []string
	}{
		{"engine opt twice", []string{"--engine-opt cache_size", "given twice", "cache_size=8MB", "cache_size=16MB"},
			[]string{"run", "--engine", "pebble", "--engine-opt", "cache_size=8MB", "--engine-opt", "cache_size=16MB", "--out", out("o1")}},
		{"scoped engine opt twice", []string{"pebble.sync", "given twice"},
			[]string{"run", "--engine", "pebble", "--engine-opt", "pebble.sync=true", "--engine-opt", "pebble.sync=false", "--out", out("o2")}},
		{"verify engine opt twice", []string{"given twice"},
			[]string{"verify", "--engine", "pebble", "--data-dir", dir, "--engine-opt", "sync=true", "--engine-opt", "sync=true"}},
		{"server opt twice", []string{"--server-opt shared_buffers", "given twice"},
			[]string{"run", "--engine", "postgres", "--managed", "--server-opt", "shared_buffers=64MB", "--server-opt", "shared_buffers=128MB", "--out", out("o3")}},
		{"server opt twice, dash and underscore", []string{"given twice", "innodb-buffer-pool-size=64M"},
			[]string{"run", "--engine", "innodb", "--managed", "--server-opt", "innodb-buffer-pool-size=64M", "--server-opt", "innodb_buffer_pool_size=128M", "--out", out("o4")}},
		{"rows not whole", []string{"--rows", "1.5", "not a whole number", "1e6"}, []string{"run", "--engine", "null", "--rows", "1.5", "--out", out("o5")}},
		{"rows words", []string{"--rows", "not a whole number"}, []string{"run", "--engine", "null", "--rows", "a million", "--out", out("o5")}},
		{"rows out of range", []string{"--rows", "out of range"}, []string{"run", "--engine", "null", "--rows", "1e30", "--out", out("o5")}},
		{"float flag", []string{"--query-seconds", "not a number"}, []string{"run", "--engine", "null", "--query-seconds", "soon", "--out", out("o5")}},
		{"unknown workload", []string{"unknown workload", "nosuch", "ibench", "hotrow", "linkbench"}, []string{"run", "nosuch"}},
		{"misspelt workload", []string{"unknown workload", "did you mean hotrow"}, []string{"run", "hotrw"}},
		{"misspelt command", []string{"unknown command", "runn", "did you mean run", "verify"}, []string{"runn"}},
		{"completion shell", []string{"tcsh", "bash", "zsh"}, []string{"completion", "tcsh"}},
		{"argument to verify", []string{"unexpected argument", "takes flags only"}, []string{"verify", "pebble"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantBadInput(t, append(c.wants, ""), c.args...)
			if _, stderr, _ := rb(t, c.args...); strings.Contains(stderr, "strconv") {
				t.Errorf("a Go parse error leaks: %s", stderr)
			}
		})
	}

	// Scopes differ: one key for two engines is no duplicate.
	if _, stderr, code := rb(t, "run", "--engine", "pebble,sqlite", "--engine-opt", "pebble.cache_size=8MB", "--engine-opt", "sqlite.cache_size=8MB",
		"--rows", "100", "--clients", "1", "--steps", "l.i0", "--out", out("ok1")); code != 0 {
		t.Fatalf("one key scoped to two engines: exit %d: %s", code, stderr)
	}
	// A power-of-ten row count is the number it names.
	if _, stderr, code := rb(t, "run", "--engine", "null", "--rows", "2e3", "--clients", "1", "--steps", "l.i0", "--out", out("ok2")); code != 0 {
		t.Fatalf("--rows 2e3: exit %d: %s", code, stderr)
	}
	var step map[string]any
	readJSON(t, filepath.Join(out("ok2"), "null", "steps", "l.i0.json"), &step)
	if step["inserted"] != 2000.0 {
		t.Errorf("--rows 2e3 inserted %v rows, want 2000", step["inserted"])
	}
	// completion alone still prints its help.
	if stdout, _, code := rb(t, "completion"); code != 0 || !strings.Contains(stdout, "bash") {
		t.Errorf("completion alone: exit %d: %s", code, stdout)
	}
}
