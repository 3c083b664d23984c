package membudget

import (
	"strings"
	"testing"

	"rumbench/internal/model"

	_ "rumbench/internal/engine/kv/bbolt"
	_ "rumbench/internal/engine/kv/pebble"
	_ "rumbench/internal/engine/sql/sqlite"
)

func TestChoose(t *testing.T) {
	cases := []struct {
		name string
		c    Choice
		want int64
		from string
	}{
		{"default", Choice{Flag: "256MB"}, model.DefaultCacheBytes, "default"},
		{"flag wins over preset and limit", Choice{Flag: "96MB", Given: true, PresetCache: 8 << 20, Limit: 1 << 30, LimitText: "1GB"}, 96 << 20, "--cache-size"},
		{"preset", Choice{PresetCache: 8 << 20, PresetName: "iobound", Limit: 1 << 30}, 8 << 20, "preset iobound"},
		// (512 MB - 24 MB) / 2 = 244 MB.
		{"limit", Choice{Limit: 512 << 20, LimitText: "512MB", ProcessBytes: ProcessBytes}, 244 << 20, "--memory-limit 512MB"},
		{"tiny limit", Choice{Limit: 16 << 20, LimitText: "16MB", ProcessBytes: ProcessBytes}, MinBytes, "--memory-limit 16MB"},
	}
	for _, tc := range cases {
		b, err := Choose(tc.c)
		if err != nil || b.Bytes != tc.want || b.From != tc.from {
			t.Errorf("%s: %v %q (%v), want %d %q", tc.name, b.Bytes, b.From, err, tc.want, tc.from)
		}
	}
	for _, bad := range []string{"", "abc", "0", "1023KB", "2TB", "-1MB"} {
		if _, err := Choose(Choice{Flag: bad, Given: true}); err == nil || !strings.Contains(err.Error(), "--cache-size") {
			t.Errorf("--cache-size %q: err %v, want a --cache-size error", bad, err)
		}
	}
}

func TestApplyEngineOpts(t *testing.T) {
	b := &Budget{Bytes: 96 << 20, From: "--cache-size"}
	opts := map[string]string{"sqlite.cache_size": "8MB", "unique_check": "true"}
	b.ApplyEngineOpts([]string{"pebble", "sqlite", "bbolt", "no-such-engine"}, opts)
	want := map[string]string{"pebble.cache_size": "100663296", "sqlite.cache_size": "8MB", "unique_check": "true"}
	if len(opts) != len(want) {
		t.Errorf("opts %v, want %v", opts, want)
	}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("opts[%s] = %q, want %q", k, opts[k], v)
		}
	}
	if b.Overrides["sqlite"] != "--engine-opt sqlite.cache_size=8MB" || len(b.Overrides) != 1 {
		t.Errorf("overrides %v", b.Overrides)
	}
	// An unscoped key given for every engine overrides each that has it.
	b = &Budget{Bytes: 96 << 20}
	opts = map[string]string{"cache_size": "1GB"}
	b.ApplyEngineOpts([]string{"pebble", "sqlite"}, opts)
	if len(opts) != 1 || b.Overrides["pebble"] != "--engine-opt cache_size=1GB" || b.Overrides["sqlite"] != "--engine-opt cache_size=1GB" {
		t.Errorf("opts %v, overrides %v", opts, b.Overrides)
	}
}

func TestJudge(t *testing.T) {
	b := &Budget{Bytes: 96 << 20, From: "--cache-size", Overrides: map[string]string{"sqlite": "--engine-opt sqlite.cache_size=8MB"}}
	m := model.Memory{CacheBytes: 128 << 20, CacheSource: "postgres pg_settings shared_buffers"}
	w := b.Judge("postgres", &m, false)
	if w != "WARNING: postgres: the server's cache is 128MB (shared_buffers), --cache-size is 96MB: results are not comparable with engines given 96MB; run it with --managed, or set the server's cache to 96MB" {
		t.Errorf("warning %q", w)
	}
	if m.BudgetBytes != 96<<20 || !strings.Contains(m.Caveat, "does not manage") {
		t.Errorf("memory %+v", m)
	}
	m = model.Memory{CacheBytes: 96 << 20}
	if w := b.Judge("postgres", &m, false); w != "" || m.Caveat != "" {
		t.Errorf("equal cache: warning %q caveat %q", w, m.Caveat)
	}
	m = model.Memory{CacheBytes: 8 << 20}
	if w := b.Judge("sqlite", &m, true); w != "" || m.Override == "" || !strings.Contains(m.Caveat, "8MB cache set by --engine-opt") {
		t.Errorf("override: warning %q %+v", w, m)
	}
	m = model.Memory{CacheBytes: 128 << 20}
	if w := b.Judge("innodb", &m, true); w != "" || m.Caveat != "innodb rounded its cache to 128MB (asked 96MB)" {
		t.Errorf("managed rounding: warning %q caveat %q", w, m.Caveat)
	}
	m = model.Memory{CacheBytes: -1, CacheSource: "bbolt has no cache of its own"}
	if w := b.Judge("bbolt", &m, true); w != "" || m.Caveat != "bbolt has no cache of its own" {
		t.Errorf("no cache: warning %q caveat %q", w, m.Caveat)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{-1: "none", 512: "512B", 1536: "1.5KB", 96 << 20: "96MB", 1 << 30: "1GB", 3 << 29: "1.5GB", 100<<20 + 1: "100MB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
