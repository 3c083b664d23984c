package engineopt

import (
	"reflect"
	"testing"
)

// keys of two engines, as drivers list them.
var keys = map[string][]string{
	"pebble": {"cache_size", "sync", "compression"},
	"sqlite": {"cache_size", "synchronous"},
}

func knows(scope string) func(string) bool {
	return func(k string) bool {
		for _, x := range keys[scope] {
			if x == k {
				return true
			}
		}
		return false
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in, scope, key string
		scoped         bool
	}{
		{"cache_size", "", "cache_size", false},
		{"pebble.cache_size", "pebble", "cache_size", true},
		{"ib8.innodb.x", "ib8", "innodb.x", true}, // only the first dot scopes
	} {
		scope, key, scoped := Split(tc.in)
		if scoped != tc.scoped || (scoped && (scope != tc.scope || key != tc.key)) || (!scoped && scope != tc.key) {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tc.in, scope, key, scoped, tc.scope, tc.key, tc.scoped)
		}
		if scoped && Join(scope, key) != tc.in {
			t.Errorf("Join(%q, %q) = %q, want %q", scope, key, Join(scope, key), tc.in)
		}
	}
}

func TestFor(t *testing.T) {
	s := Scoped{
		"cache_size":         "8MB",  // plain, both know it
		"sync":               "true", // plain, only pebble knows it
		"sqlite.synchronous": "full",
		"pebble.compression": "zstd",
		"mongo.w":            "1", // another engine's scope
	}
	if got, want := s.For("pebble", knows("pebble")), map[string]string{"cache_size": "8MB", "sync": "true", "compression": "zstd"}; !reflect.DeepEqual(got, want) {
		t.Errorf("For(pebble) = %v, want %v", got, want)
	}
	if got, want := s.For("sqlite", knows("sqlite")), map[string]string{"cache_size": "8MB", "synchronous": "full"}; !reflect.DeepEqual(got, want) {
		t.Errorf("For(sqlite) = %v, want %v", got, want)
	}
	// An unknown scope gets nothing but plain keys it knows: none.
	if got := s.For("nosuch", knows("nosuch")); len(got) != 0 {
		t.Errorf("For(nosuch) = %v, want nothing", got)
	}
}

// TestScopedWins: a key given plain and scoped takes the scoped value,
// every time (map order must not decide).
func TestScopedWins(t *testing.T) {
	s := Scoped{"cache_size": "8MB", "pebble.cache_size": "1GB"}
	for i := 0; i < 50; i++ {
		if got := s.For("pebble", knows("pebble"))["cache_size"]; got != "1GB" {
			t.Fatalf("cache_size = %q, want the scoped 1GB", got)
		}
	}
	if w, ok := s.Given("pebble", "cache_size"); !ok || w != "pebble.cache_size=1GB" {
		t.Errorf("Given(pebble, cache_size) = %q, %v; want pebble.cache_size=1GB", w, ok)
	}
	if w, ok := s.Given("sqlite", "cache_size"); !ok || w != "cache_size=8MB" {
		t.Errorf("Given(sqlite, cache_size) = %q, %v; want cache_size=8MB", w, ok)
	}
	if w, ok := s.Given("sqlite", "synchronous"); ok {
		t.Errorf("Given(sqlite, synchronous) = %q, want not given", w)
	}
}

func TestCheck(t *testing.T) {
	keysOf := func(scope string) []string { return keys[scope] }
	for _, tc := range []struct {
		s      Scoped
		scopes []string
		want   string
	}{
		{Scoped{"cache_size": "1", "pebble.sync": "true"}, []string{"pebble", "sqlite"}, ""},
		{Scoped{"synchronous": "full"}, []string{"pebble", "sqlite"}, ""},
		{Scoped{"rocksdb.sync": "true"}, []string{"pebble"}, `--engine-opt rocksdb.sync=...: "rocksdb" is neither a label nor an engine in --engine: scope it to one of pebble`},
		{Scoped{"nosuch": "1"}, []string{"pebble", "sqlite"}, `unknown --engine-opt "nosuch": the selected engines take pebble.cache_size, pebble.sync, pebble.compression, sqlite.cache_size, sqlite.synchronous`},
		{Scoped{"nosuch": "1"}, []string{"null"}, `unknown --engine-opt "nosuch": the selected engines take no settings`},
		// the first bad key in sorted order is named
		{Scoped{"zzz": "1", "aaa": "1"}, []string{"null"}, `unknown --engine-opt "aaa": the selected engines take no settings`},
	} {
		err := tc.s.Check(tc.scopes, keysOf)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Check(%v, %v) = %q, want %q", tc.s, tc.scopes, got, tc.want)
		}
	}
}

func TestForVariant(t *testing.T) {
	given := Scoped{
		"compression": "snappy", "pebble.compression": "none", "zstd.compression": "zstd",
		"zstd.sync": "true", "big.cache_size": "1GB",
	}
	labels := []string{"pebble", "zstd", "big"}
	for _, tc := range []struct {
		label string
		want  map[string]string
	}{
		// label over engine over plain
		{"zstd", map[string]string{"compression": "zstd", "sync": "true"}},
		{"big", map[string]string{"compression": "none", "cache_size": "1GB"}},
		// the bare variant sees no label's settings
		{"pebble", map[string]string{"compression": "none"}},
	} {
		got := given.ForVariant(tc.label, "pebble", labels).For("pebble", knows("pebble"))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("variant %s: %v, want %v", tc.label, got, tc.want)
		}
	}
	if w, ok := given.ForVariant("zstd", "pebble", labels).Given("pebble", "sync"); !ok || w != "pebble.sync=true" {
		t.Errorf("Given after ForVariant: %q %v", w, ok)
	}
}
