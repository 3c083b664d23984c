package runner

import "testing"

// TestReadBackSameAs: two variants are one when engine, version,
// installation and every read-back setting agree, values compared for
// what they mean; any one of them apart tells them apart.
func TestReadBackSameAs(t *testing.T) {
	base := readBack{label: "a", engine: "pebble", version: "v2", settings: map[string]string{"cache_size": "64MB"}}
	with := func(f func(*readBack)) readBack {
		r := base
		r.label = "b"
		r.settings = map[string]string{"cache_size": "67108864"}
		f(&r)
		return r
	}
	if !base.sameAs(with(func(*readBack) {})) {
		t.Errorf("64MB and 67108864 read back are not the same setting")
	}
	for name, other := range map[string]readBack{
		"engine":  with(func(r *readBack) { r.engine = "rocksdb" }),
		"version": with(func(r *readBack) { r.version = "v1" }),
		"install": with(func(r *readBack) { r.install = "/opt/other" }),
		"value":   with(func(r *readBack) { r.settings["cache_size"] = "32MB" }),
		"key":     with(func(r *readBack) { r.settings["sync"] = "true" }),
		"missing": with(func(r *readBack) { delete(r.settings, "cache_size") }),
	} {
		if base.sameAs(other) || other.sameAs(base) {
			t.Errorf("%s apart: read as the same variant", name)
		}
	}
	if got := (readBack{}).describe(); got != "defaults" {
		t.Errorf("no settings described as %q", got)
	}
}
