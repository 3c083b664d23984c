package engine

import (
	"strconv"
	"strings"

	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// OptionDiff is an embedded engine's model.ConfigDiff: the options it was
// opened with (effective, as the engine recorded or read them back, keyed
// like its option table) that differ from its option table's defaults.
// Values are compared for what they mean, not how they are spelled: sizes
// in bytes (64MB = 67108864), booleans (on = true), numbers, and words
// case-insensitively. Options without an effective value (ones the engine
// does not use in this configuration) are left out.
func OptionDiff(effective map[string]string, defs []model.Option, source string) *model.ConfigDiff {
	d := &model.ConfigDiff{Source: source, Settings: []model.SettingDiff{}}
	for _, o := range defs {
		v, ok := effective[o.Key]
		if !ok || SameValue(v, o.Default) {
			continue
		}
		d.Settings = append(d.Settings, model.SettingDiff{Key: o.Key, Value: v, Default: o.Default})
	}
	d.SortSettings()
	return d
}

// WithDefault returns defs with key's default replaced by def: a default
// that depends on another setting, resolved against the value in effect
// (RocksDB's bottommost_compression "same", WiredTiger's leaf_page_max
// "auto").
func WithDefault(defs []model.Option, key, def string) []model.Option {
	out := append([]model.Option(nil), defs...)
	for i := range out {
		if out[i].Key == key {
			out[i].Default = def
		}
	}
	return out
}

// SameValue reports whether two spellings of a setting mean the same value.
func SameValue(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == b {
		return true
	}
	// Each reading applies when both spellings have it: numbers first (so
	// 0.9 is not a size of 0 bytes), then booleans (on = true = 1), then
	// sizes (64MB = 67108864).
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		if y, err := strconv.ParseFloat(b, 64); err == nil {
			return x == y
		}
	}
	if x, err := engineopt.ParseBool("", a); err == nil {
		if y, err := engineopt.ParseBool("", b); err == nil {
			return x == y
		}
	}
	if x, err := engineopt.ParseSize("", a); err == nil {
		if y, err := engineopt.ParseSize("", b); err == nil {
			return x == y
		}
	}
	return false
}
