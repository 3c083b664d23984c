package engine

import (
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
		if !ok || engineopt.SameValue(v, o.Default) {
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
