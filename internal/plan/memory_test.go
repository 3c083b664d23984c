package plan

import (
	"errors"
	"io"
	"testing"

	"rumbench/internal/launch"
	"rumbench/internal/runner"

	"rumbench/internal/managed"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// A memory preset sizes the run's cache budget (each engine's own cache
// key, not one the user gave), each engine's write-buffer and index build
// memory keys and a limit per embedded engine.
func TestApplyMemoryPreset(t *testing.T) {
	mp := &workload.MemoryPreset{CacheBytes: 5 << 20, WriteBufferBytes: 8 << 20, RoomBytes: 16 << 20}
	opts := map[string]string{"pebble.cache_size": "1MB"}
	engines := []string{"sqlite", "pebble", "bbolt", "postgres"}
	p, err := PlanMemory(Memory{}, mp, "iobound", engines, opts)
	if err != nil {
		t.Fatal(err)
	}
	b := p.Budget
	if b.Bytes != 5<<20 || b.From != "preset iobound" || b.Overrides["pebble"] != "--engine-opt pebble.cache_size=1MB" {
		t.Fatalf("budget %+v: want 5MB from the preset, pebble's own kept", b)
	}
	want := map[string]string{"pebble.cache_size": "1MB", "pebble.memtable_size": "8388608", "sqlite.cache_size": "5242880",
		// the kv engines' sort memory for index builds, as large as the cache
		"pebble.index_build_memory": "5242880", "bbolt.index_build_memory": "5242880"}
	if len(opts) != len(want) {
		t.Errorf("opts %v, want %v", opts, want)
	}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("%s = %q, want %q", k, opts[k], v)
		}
	}
	// cache + own memory (+ 2 write buffers) + 16 MB room.
	lim := map[string]int64{"sqlite": 29 << 20, "bbolt": 53 << 20, "pebble": 57 << 20}
	if len(p.PerEngine) != len(lim) {
		t.Errorf("limits %v, want %v", p.PerEngine, lim)
	}
	for e, n := range lim {
		if p.PerEngine[e] != n {
			t.Errorf("%s limit %d, want %d", e, p.PerEngine[e], n)
		}
	}
	if p.Limit != "59768832" {
		t.Errorf("--memory-limit %q, want the largest engine limit", p.Limit)
	}
	if p.Preset["pebble.memory_limit"] != 57<<20 || p.Preset["sqlite.cache_size"] != 5<<20 {
		t.Errorf("recorded preset memory %v", p.Preset)
	}
	// An explicit --memory-limit wins: no per-engine limits.
	p, err = PlanMemory(Memory{Limit: "1GB", LimitGiven: true}, mp, "iobound", []string{"sqlite"}, map[string]string{})
	if err != nil || p.PerEngine != nil || p.Limit != "1GB" {
		t.Errorf("explicit limit overridden: %+v (%v)", p, err)
	}
	// No preset: nothing sized, nothing recorded.
	if p, err = PlanMemory(Memory{}, nil, "quick", []string{"sqlite"}, map[string]string{}); err != nil || p.Preset != nil || p.PerEngine != nil {
		t.Errorf("no preset: %+v (%v)", p, err)
	}
}

// A managed server gets the budget's cache in its own setting, unless a
// --server-opt gave it, which the budget records as an override.
func TestBudgetServers(t *testing.T) {
	b := &membudget.Budget{Bytes: 64 << 20, From: "default"}
	settings := map[string][]managed.Setting{"innodb": {{Key: "innodb_buffer_pool_size", Value: "1G"}}}
	BudgetServers(b, []string{"postgres", "innodb"}, settings)
	if len(settings["postgres"]) != 1 || settings["postgres"][0].Key != "shared_buffers" {
		t.Errorf("postgres settings %v: want the budget's shared_buffers", settings["postgres"])
	}
	if len(settings["innodb"]) != 1 || b.Overrides["innodb"] != "--server-opt innodb_buffer_pool_size=1G" {
		t.Errorf("innodb settings %v, overrides %v: want the given pool kept and recorded", settings["innodb"], b.Overrides)
	}
}

// --managed plans each server with the run's cache and records what
// run.json says; nothing starts until the runner calls Start.
func TestPlanServers(t *testing.T) {
	if err := managed.Check("postgres"); err != nil {
		t.Skipf("no PostgreSQL server binaries here: %v", err)
	}
	b := &membudget.Budget{Bytes: 64 << 20, From: "default"}
	s, err := PlanServers(managed.Request{Given: true, Engines: []string{managed.All}, ServerOpts: []string{"work_mem=8MB"}},
		resolveVariants(Engines("pebble", "postgres"), nil, []string{"work_mem=8MB"}, []string{"pebble", "postgres"}), "", "", b, &launch.Memory{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Manages("postgres") || s.Manages("pebble") || s.Starter() == nil {
		t.Errorf("servers %+v", s.Plan)
	}
	keys := map[string]string{}
	for _, st := range s.Plan.Settings["postgres"] {
		keys[st.Key] = st.Value
	}
	if keys["work_mem"] != "8MB" || keys["shared_buffers"] == "" {
		t.Errorf("postgres settings %v: want work_mem as given and the budget's shared_buffers", keys)
	}
	if c := s.Recorded(); c == nil || len(c.Engines) != 1 || c.Engines[0] != "postgres" || c.ServerOpts[0] != "work_mem=8MB" {
		t.Errorf("recorded %+v", c)
	}
	// Without --managed: no servers, nothing recorded, no hook.
	var none *Servers
	if none, err = PlanServers(managed.Request{}, model.BareVariants("postgres"), "", "", b, nil, io.Discard); err != nil || none.Recorded() != nil || none.Starter() != nil || none.Manages("postgres") {
		t.Errorf("without --managed: %+v, %v", none, err)
	}
	// Refusals are the user's input.
	_, err = PlanServers(managed.Request{Given: true, Engines: []string{"innodb"}}, model.BareVariants("postgres"), "", "", b, nil, io.Discard)
	var bi *runner.BadInputError
	if !errors.As(err, &bi) {
		t.Errorf("--managed innodb without it in --engine: %v, want bad input", err)
	}
}

// --memory-limit fits every embedded engine's large buffers into the limit
// (membudget.FitLimit) and records them for run.json, or refuses it; 0 is
// no limit and a limit under 16MB is refused where the limit is set up.
func TestPlanMemoryFitsLimit(t *testing.T) {
	opts := map[string]string{}
	p, err := PlanMemory(Memory{Limit: "64MB", LimitGiven: true}, nil, "quick", []string{"pebble", "postgres"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	fit := CacheConfig(p.Budget).Fitted
	if len(fit) != 2 || fit["pebble.memtable_size"] == 0 || opts["pebble.memtable_size"] == "" {
		t.Errorf("fitted %v, opts %v", fit, opts)
	}
	if _, err := PlanMemory(Memory{Limit: "40MB", LimitGiven: true}, nil, "quick", []string{"pebble"}, map[string]string{}); err == nil {
		t.Error("40MB: pebble does not fit, want a refusal")
	}
	for _, l := range []string{"0", "1MB"} {
		opts := map[string]string{}
		if p, err := PlanMemory(Memory{Limit: l, LimitGiven: true}, nil, "quick", []string{"pebble"}, opts); err != nil || p.Budget.Fitted != nil {
			t.Errorf("--memory-limit %s: %v, fitted %v", l, err, p.Budget.Fitted)
		}
	}
}
