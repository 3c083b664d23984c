package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	_ "rumbench/internal/engine/all"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
	_ "rumbench/internal/workload/all"
)

// request is a run of workload name with its own flags args parsed as the
// command parses them; common settings at the command's defaults.
func request(t *testing.T, name string, args ...string) *Run {
	t.Helper()
	d, err := workload.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	configure := d.Flags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &Run{
		Workload: d, Configure: configure, Given: func(n string) bool { return fs.Changed(n) },
		Preset: "quick", Engines: Engines("pebble", "sqlite"), Seed: 1, RatePercentile: runner.DefaultRatePercentile,
		OpTimeout: runner.DefaultOpTimeout, Repeat: 1, Database: "rumbench",
	}
}

// given marks settings as given explicitly.
func given(r *Run, names ...string) {
	prev := r.Given
	r.Given = func(n string) bool {
		for _, g := range names {
			if g == n {
				return true
			}
		}
		return prev(n)
	}
}

// The plan of the stored ibench bundle's run writes its config byte for
// byte.
func TestRunConfigAsStored(t *testing.T) {
	r := request(t, "ibench", "--clients", "2", "--rows", "20000", "--churn-rows", "2000", "--indexes", "3", "--query-seconds", "1")
	p, err := PlanRun(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(p.Config(nil, nil), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../results/testdata/config/ibench-pebble.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("config differs from the stored bundle's:\n%s\nwant\n%s", got, want)
	}
}

// Without --interval a run takes its preset's; with it, the given one.
func TestRunInterval(t *testing.T) {
	r := request(t, "ibench")
	p, err := PlanRun(r)
	if err != nil || p.Interval != 200*time.Millisecond {
		t.Fatalf("quick preset: interval %v (%v), want 200ms", p.Interval, err)
	}
	r = request(t, "ibench")
	r.Preset = "small"
	if p, err = PlanRun(r); err != nil || p.Interval != time.Second {
		t.Fatalf("small preset: interval %v (%v), want 1s", p.Interval, err)
	}
	r = request(t, "ibench")
	r.Interval = 3 * time.Second
	given(r, "interval")
	if p, err = PlanRun(r); err != nil || p.Interval != 3*time.Second {
		t.Fatalf("--interval 3s: interval %v (%v)", p.Interval, err)
	}
}

// Every bad setting is refused as the user's input, with a line naming it.
func TestRunBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(r *Run)
		want string
	}{
		{"interval", func(r *Run) { given(r, "interval") }, "--interval must be positive, got 0s"},
		{"rate", func(r *Run) { r.RatePercentile = 0 }, "--rate-percentile must be above 0 and at most 100, got 0"},
		{"repeat", func(r *Run) { r.Repeat = MaxRepeat + 1 }, "--repeat must be between 1 and 100, got 101"},
		{"cooldown", func(r *Run) { r.Cooldown = -time.Second }, "--cooldown must be 0 or more, got -1s"},
		{"warmup", func(r *Run) { r.Warmup = -time.Second }, "--warmup must be 0 or more, got -1s"},
		{"steady metric", func(r *Run) { r.Steady = "iops:dev=10%,window=10s,max=1m" }, `unknown metric "iops"`},
		{"steady window", func(r *Run) { r.Steady = "rate:dev=10%,window=300ms,max=1m" }, "the window must hold at least two intervals of 200ms"},
		{"op timeout", func(r *Run) { r.OpTimeout = -time.Second }, "--op-timeout must be 0 (no limit) or more, got -1s"},
		{"engine opt", func(r *Run) { r.EngineOpts = []string{"cache_size"} }, `--engine-opt "cache_size" is not key=value`},
		{"engine opt twice", func(r *Run) { r.EngineOpts = []string{"a=1", "a=2"} }, "--engine-opt a is given twice (a=1 and a=2): give it once"},
		{"cache size", func(r *Run) { r.Memory = Memory{CacheSize: "1KB", CacheSizeGiven: true} }, "--cache-size"},
	} {
		r := request(t, "ibench")
		c.set(r)
		_, err := PlanRun(r)
		var bi *runner.BadInputError
		if err == nil || !errors.As(err, &bi) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want bad input %q", c.name, err, c.want)
		}
	}
	// The workload's own checks are bad input too.
	r := request(t, "ibench", "--tables", "0")
	if _, err := PlanRun(r); err == nil || !strings.Contains(err.Error(), "--tables must be at least 1") {
		t.Errorf("--tables 0: %v", err)
	}
}

// A child process runs its one engine in the parent's data dir, while
// run.json records the request's.
func TestRunChild(t *testing.T) {
	r := request(t, "ibench")
	r.Child = &Child{Engine: "sqlite", DataDir: "/tmp/parent-made"}
	p, err := PlanRun(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Engines, ",") != "sqlite" || p.DataDir != "/tmp/parent-made" {
		t.Errorf("child plan: engines %v, data dir %q", p.Engines, p.DataDir)
	}
	if c := p.Config(nil, nil); c.Local.DataDir != "" || strings.Join(c.Engines, ",") != "sqlite" {
		t.Errorf("child config: data dir %q, engines %v", c.Local.DataDir, c.Engines)
	}
}

// Shards: the insert benchmark splits its clients; more shards than
// tables are refused.
func TestRunCheckShards(t *testing.T) {
	p, err := PlanRun(request(t, "ibench", "--clients", "4"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckShards(2); err != nil {
		t.Errorf("4 clients over 2 shards: %v", err)
	}
	if err := p.CheckShards(8); err == nil || !strings.HasPrefix(err.Error(), "--shards: ") {
		t.Errorf("4 clients over 8 shards: %v", err)
	}
	p, err = PlanRun(request(t, "hotrow"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckShards(2); err == nil || !strings.Contains(err.Error(), "cannot split its clients") {
		t.Errorf("hotrow over 2 shards: %v", err)
	}
}

func TestRepeatDirs(t *testing.T) {
	if d := RepeatDirs("o", 1); len(d) != 1 || d[0] != "o" {
		t.Errorf("one run: %v", d)
	}
	if d := RepeatDirs("o", 3); len(d) != 3 || d[2] != "o/rep-3" {
		t.Errorf("three: %v", d)
	}
}

// --steady-state rules that cannot be judged are refused before a run (the
// command's TestSteadyStateBadInput checks the same end to end).
func TestRunSteadyBadInput(t *testing.T) {
	for _, c := range []struct{ rule, want string }{
		{"rate:dev=10%,window=60s", "no max"},
		{"iops:dev=10%,window=60s,max=1h", `unknown metric "iops"`},
		{"rate:dev=10%,window=1s,max=1h", "at least two intervals"},
	} {
		r := request(t, "linkbench")
		r.Steady, r.Interval = c.rule, time.Second
		given(r, "interval")
		_, err := PlanRun(r)
		var bi *runner.BadInputError
		if err == nil || !errors.As(err, &bi) || !strings.Contains(err.Error(), "--steady-state") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want bad input %q", c.rule, err, c.want)
		}
	}
	r := request(t, "linkbench")
	r.Steady = "rate:dev=10%,window=60s,max=1h"
	p, err := PlanRun(r)
	if err != nil || p.Steady == nil || p.Steady.Window != time.Minute {
		t.Errorf("a good rule: %+v, %v", p, err)
	}
	if c := p.Config(nil, nil); c.SteadyState != r.Steady {
		t.Errorf("run.json records %q, want the rule as given", c.SteadyState)
	}
}

// --cache-size takes a size from 1MB to 1TB.
func TestRunBadCacheSize(t *testing.T) {
	for _, v := range []string{"abc", "0", "512KB", "2TB", "-5MB"} {
		r := request(t, "ibench")
		r.Memory = Memory{CacheSize: v, CacheSizeGiven: true}
		if _, err := PlanRun(r); err == nil || !strings.Contains(err.Error(), "--cache-size") || !strings.Contains(err.Error(), "from 1MB to 1TB") {
			t.Errorf("--cache-size %s: %v", v, err)
		}
	}
	r := request(t, "ibench")
	r.Memory = Memory{CacheSize: "64MB", CacheSizeGiven: true}
	p, err := PlanRun(r)
	if err != nil || p.Budget().Bytes != 64<<20 || p.EngineOpts["pebble.cache_size"] != "67108864" {
		t.Errorf("--cache-size 64MB: %+v, %v", p, err)
	}
}

// A labelled variant's child process (--memory-limit) runs with the cache
// the budget gives its engine, as a bare engine's child does: the variant
// is resolved after the memory plan added its settings.
func TestLabelledChildGetsTheBudget(t *testing.T) {
	for _, engines := range [][]Engine{Engines("pebble", "sqlite"), {{Label: "a", Name: "pebble"}, {Label: "b", Name: "pebble"}}} {
		r := request(t, "ibench")
		r.Engines = engines
		r.Memory = Memory{CacheSize: "32MB", CacheSizeGiven: true}
		if len(engines) == 2 && engines[0].Label == "a" {
			r.EngineOpts = []string{"b.compression=zstd"}
		}
		r.Child = &Child{Engine: engines[0].label()}
		p, err := PlanRun(r)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Variants) != 1 || p.Variants[0].Options["cache_size"] != "33554432" && p.Variants[0].Options["cache_size"] != "32MB" {
			t.Errorf("child of %s: variants %+v, want cache_size from the budget (32MB)", engines[0].label(), p.Variants)
		}
	}
}
