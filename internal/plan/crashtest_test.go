package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rumbench/internal/crashtest"
)

func crashRequest(engines ...string) *Crashtest {
	return &Crashtest{Engines: Engines(engines...), KillAfter: time.Second, Durable: true, Shape: crashtest.DefaultShape}
}

// Each engine's spec has its durability settings, the user's on top, and
// the run's cache.
func TestPlanCrashtest(t *testing.T) {
	r := crashRequest("pebble", "sqlite")
	r.EngineOpts = []string{"sqlite.busy_timeout=100"}
	r.CacheSize, r.CacheSizeGiven = "32MB", true
	specs, err := PlanCrashtest(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Engine != "pebble" || specs[1].Engine != "sqlite" {
		t.Fatalf("specs %+v", specs)
	}
	for k, v := range map[string]string{"sync": "true"} {
		if specs[0].Options[k] != v {
			t.Errorf("pebble %s = %q, want the durable %q", k, specs[0].Options[k], v)
		}
	}
	if specs[1].Options["busy_timeout"] != "100" || specs[0].Options["busy_timeout"] != "" {
		t.Errorf("scoped setting: pebble %v, sqlite %v", specs[0].Options, specs[1].Options)
	}
	if specs[0].Options["cache_size"] != "33554432" {
		t.Errorf("pebble cache %q, want the 32MB budget", specs[0].Options["cache_size"])
	}
	r = crashRequest("pebble")
	r.Durable = false
	if specs, err = PlanCrashtest(r); err != nil || specs[0].Durable {
		t.Fatalf("non-durable: %+v, %v", specs, err)
	}
	for k, v := range map[string]string{"sync": "false"} {
		if specs[0].Options[k] != v {
			t.Errorf("non-durable pebble %s = %q, want %q", k, specs[0].Options[k], v)
		}
	}
}

func TestPlanCrashtestBadInput(t *testing.T) {
	for _, c := range []struct {
		set  func(r *Crashtest)
		want string
	}{
		{func(r *Crashtest) { r.KillAfter = 0 }, "--kill-after must be positive, got 0s"},
		{func(r *Crashtest) { r.Shape.Clients = 65 }, "--clients must be between 1 and 64, got 65"},
		{func(r *Crashtest) { r.Shape.Indexes = 4 }, "--indexes must be between 0 and 3, got 4"},
		{func(r *Crashtest) { r.Shape.RowsPerCommit = 0 }, "--rows-per-commit must be between 1 and 100000, got 0"},
		{func(r *Crashtest) { r.EngineOpts = []string{"x"} }, `--engine-opt "x" is not key=value`},
		{func(r *Crashtest) { r.CacheSize, r.CacheSizeGiven = "1KB", true }, "--cache-size"},
		{func(r *Crashtest) { r.Engines = Engines("null") }, "engine null has no crash test (it keeps no data, or has no managed server to kill): choose from bbolt, innodb, myrocks, pebble, postgres"},
		{func(r *Crashtest) { r.Engines, r.Durable = Engines("innodb"), false }, "engine innodb has no crash test"},
		{func(r *Crashtest) { r.Engines = nil }, "no engine given: use --engine"},
	} {
		r := crashRequest("pebble")
		c.set(r)
		if _, err := PlanCrashtest(r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// A crash test's data dir: a temporary one removed afterwards, or one under
// --data-dir that must be empty.
func TestCrashDir(t *testing.T) {
	dir, cleanup, err := CrashDir("", "pebble", false)
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary dir %s left behind", dir)
	}
	base := t.TempDir()
	if dir, _, err = CrashDir(base, "pebble", true); err != nil || dir != filepath.Join(base, "pebble") {
		t.Errorf("several engines: %s, %v", dir, err)
	}
	os.WriteFile(filepath.Join(base, "x"), nil, 0o644)
	if _, _, err = CrashDir(base, "pebble", false); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("non-empty dir: %v", err)
	}
}

// Variants of one engine crash under their labels, each with its own
// settings over the durable ones; server settings scoped to a label go to
// that variant's server only.
func TestPlanCrashtestVariants(t *testing.T) {
	r := crashRequest()
	r.Engines = []Engine{{"pebble", "pebble"}, {"zstd", "pebble"}, {"ib8", "innodb"}, {"ib16", "innodb"}}
	r.EngineOpts = []string{"zstd.compression=zstd", "pebble.memtable_size=8MB"}
	r.ServerOpts = []string{"ib8.innodb_page_size=8k", "innodb_lock_wait_timeout=5", "ib16.innodb_page_size=16k"}
	specs, err := PlanCrashtest(r)
	if err != nil {
		if strings.Contains(err.Error(), "needs a managed server") {
			t.Skipf("no managed innodb here: %v", err)
		}
		t.Fatal(err)
	}
	if len(specs) != 4 || specs[0].Label != "" || specs[1].Label != "zstd" || specs[1].Engine != "pebble" || specs[2].Label != "ib8" {
		t.Fatalf("specs %+v", specs)
	}
	if specs[1].Options["compression"] != "zstd" || specs[0].Options["compression"] != "" ||
		specs[1].Options["memtable_size"] != "8MB" || specs[1].Options["sync"] != "true" {
		t.Errorf("pebble options %v, zstd options %v", specs[0].Options, specs[1].Options)
	}
	server := func(s crashtest.Spec) string {
		var kv []string
		for _, st := range s.ServerSettings {
			kv = append(kv, fmt.Sprint(st))
		}
		return strings.Join(kv, " ")
	}
	if s8, s16 := server(specs[2]), server(specs[3]); !strings.Contains(s8, "8k") || strings.Contains(s8, "16k") ||
		!strings.Contains(s16, "16k") || !strings.Contains(s8, "innodb_lock_wait_timeout") || !strings.Contains(s16, "innodb_lock_wait_timeout") {
		t.Errorf("server settings: ib8 %s; ib16 %s", s8, s16)
	}
	r = crashRequest()
	r.Engines = []Engine{{"a", "pebble"}, {"b", "pebble"}}
	if _, err := PlanCrashtest(r); err == nil || !strings.Contains(err.Error(), "a and b have the same settings") {
		t.Errorf("identical variants: %v", err)
	}
}
