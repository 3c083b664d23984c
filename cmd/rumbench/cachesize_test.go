package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/testdb"
)

const mb96 = 96 << 20

// runMemory reads engine.memory and the notes of an engine's run.json.
func runMemory(t *testing.T, out, engine string) (*model.Memory, []string) {
	t.Helper()
	var run struct {
		Engine struct {
			Memory *model.Memory `json:"memory"`
		} `json:"engine"`
		Notes []string `json:"notes"`
	}
	readJSON(t, filepath.Join(out, engine, "run.json"), &run)
	if run.Engine.Memory == nil {
		t.Fatalf("%s: run.json has no engine.memory", engine)
	}
	return run.Engine.Memory, run.Notes
}

// TestCacheSizeEmbedded: every embedded engine run with --cache-size 96MB
// reads back a 96 MB cache from the engine itself (bbolt: none, said so).
func TestCacheSizeEmbedded(t *testing.T) {
	t.Parallel()
	engines := []string{"pebble", "sqlite", "bbolt"}
	for _, tag := range binaryTags {
		engines = append(engines, tag) // rocksdb, wiredtiger
	}
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "--engine", strings.Join(engines, ","), "--cache-size", "96MB",
		"--steps", "l.i0", "--rows", "300", "--clients", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, e := range engines {
		m, notes := runMemory(t, out, e)
		if m.BudgetBytes != mb96 || m.BudgetFrom != "--cache-size" {
			t.Errorf("%s: budget %d from %q, want %d from --cache-size", e, m.BudgetBytes, m.BudgetFrom, mb96)
		}
		if e == "bbolt" {
			if m.CacheBytes != -1 || !strings.Contains(m.Caveat, "no cache of its own") || !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "no cache of its own") }) {
				t.Errorf("bbolt: cache %d, caveat %q, notes %q: want -1 and the caveat in both", m.CacheBytes, m.Caveat, notes)
			}
			continue
		}
		if m.CacheBytes != mb96 || m.CacheSource == "" || m.Caveat != "" {
			t.Errorf("%s: read back cache %d (%s), caveat %q; want %d and no caveat", e, m.CacheBytes, m.CacheSource, m.Caveat, mb96)
		}
	}
	if len(binaryTags) < 2 {
		t.Logf("rocksdb and wiredtiger not built into this test (tags %v): checked %v", binaryTags, engines)
	}
}

// TestCacheSizeDefaultAndOverride: without --cache-size every engine gets
// the one default; an --engine-opt for one engine's cache wins for it and
// is recorded as the override, with a caveat.
func TestCacheSizeDefaultAndOverride(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "--engine", "pebble,sqlite", "--engine-opt", "sqlite.cache_size=8MB",
		"--steps", "l.i0", "--rows", "300", "--clients", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, _ := runMemory(t, out, "pebble")
	if m.CacheBytes != model.DefaultCacheBytes || m.BudgetFrom != "default" {
		t.Errorf("pebble: cache %d from %q, want the default %d", m.CacheBytes, m.BudgetFrom, model.DefaultCacheBytes)
	}
	m, notes := runMemory(t, out, "sqlite")
	if m.CacheBytes != 8<<20 || m.Override != "--engine-opt sqlite.cache_size=8MB" || !strings.Contains(m.Caveat, "8MB cache set by --engine-opt sqlite.cache_size=8MB") || len(notes) == 0 {
		t.Errorf("sqlite: cache %d, override %q, caveat %q, notes %q", m.CacheBytes, m.Override, m.Caveat, notes)
	}
}

// TestCacheSizeBadInput: a bad --cache-size is one line and exit 2.
func TestCacheSizeBadInput(t *testing.T) {
	t.Parallel()
	// The values refused: internal/plan's TestRunBadCacheSize.
	wantBadInput(t, []string{"--cache-size", "from 1MB to 1TB"}, "run", "--engine", "pebble", "--cache-size", "abc", "--out", filepath.Join(t.TempDir(), "r"))
	wantBadInput(t, []string{"--cache-size"}, "sweep", "--engine", "pebble", "--cache-size", "abc", "--out", filepath.Join(t.TempDir(), "s"))
	wantBadInput(t, []string{"--cache-size"}, "crashtest", "--engine", "pebble", "--cache-size", "abc")
}

// TestCacheSizeManaged: managed PostgreSQL and MariaDB (InnoDB) servers
// are started with --cache-size as their cache and read it back.
func TestCacheSizeManaged(t *testing.T) {
	t.Parallel()
	needManaged(t, "postgres")
	needManaged(t, "innodb")
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "--engine", "postgres,innodb", "--managed", "--cache-size", "96MB",
		"--steps", "l.i0", "--rows", "300", "--clients", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, e := range []string{"postgres", "innodb"} {
		m, _ := runMemory(t, out, e)
		if m.CacheBytes != mb96 || m.Caveat != "" {
			t.Errorf("managed %s: read back cache %d (%s), caveat %q; want %d", e, m.CacheBytes, m.CacheSource, m.Caveat, mb96)
		}
	}
}

// TestCacheSizeUnmanagedWarns: a server rumbench does not manage is not
// changed; when its cache differs from --cache-size the run says so in one
// warning line and run.json carries the caveat.
func TestCacheSizeUnmanagedWarns(t *testing.T) {
	t.Parallel()
	database := testdb.Name(t, "rumbench_cachesize")
	freshDB(t, pgAdmin(t), database) // dropped also when the test fails
	out := filepath.Join(t.TempDir(), "r")
	size := "96MB"
	stdout, stderr, code := rb(t, "run", "--engine", "postgres", "--database", database, "--cache-size", size,
		"--steps", "l.i0", "--rows", "200", "--clients", "1", "--out", out)
	if code != 0 {
		if enginetest.RequireServers() {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		t.Skipf("local postgres unavailable (exit %d): %s", code, stderr)
	}
	m, notes := runMemory(t, out, "postgres")
	if m.CacheBytes == mb96 {
		t.Skip("the local server's shared_buffers is 96MB: nothing to warn about")
	}
	var warnings []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "WARNING: postgres: the server's cache") {
			warnings = append(warnings, l)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "(shared_buffers), --cache-size is 96MB") || !strings.Contains(warnings[0], "--managed") {
		t.Errorf("want one warning naming shared_buffers, both sizes and the fix; got %q", warnings)
	}
	if !strings.Contains(m.Caveat, "does not manage") || !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "does not manage") }) {
		t.Errorf("caveat %q, notes %q: want the unmanaged server's caveat", m.Caveat, notes)
	}
}
