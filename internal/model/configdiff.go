package model

import (
	"context"
	"sort"
)

// ConfigDiff is an engine's configuration as a diff from the engine's
// defaults: the effective values, read back from the engine or server, of
// the settings that differ. It is what tells two variants of one engine
// apart (InnoDB with 8k pages, MyRocks with zstd) and what makes a result
// reproducible. Settings every run sets for its own plumbing (port, data
// directory, socket, pid file, log paths, locale and formatting) are left
// out: they differ from the defaults in every run and say nothing about
// performance.
type ConfigDiff struct {
	// Source says where the values were read: a server's catalog
	// (pg_settings, information_schema.SYSTEM_VARIABLES) or, for an
	// embedded engine, the options it was opened with compared with its
	// option table's defaults.
	Source string `json:"source"`
	// Settings are sorted by key; empty means the engine runs with its
	// defaults.
	Settings []SettingDiff `json:"settings"`
}

// SettingDiff is one setting that differs from its default.
type SettingDiff struct {
	Key string `json:"key"`
	// Value is the effective value; Default the engine's own default
	// ("" when the engine does not report one).
	Value   string `json:"value"`
	Default string `json:"default"`
	// Origin is where the server says the value came from (pg_settings
	// source, GLOBAL_VALUE_ORIGIN: "configuration file", "command line",
	// "CONFIG", ...); empty for embedded engines.
	Origin string `json:"origin,omitempty"`
}

// ConfigDiffer is implemented by engines that can report their
// configuration as a diff from their defaults (ConfigDiff), read from the
// engine itself, not echoed from the options given.
type ConfigDiffer interface {
	ConfigDiff(ctx context.Context) (*ConfigDiff, error)
}

// Get returns the diff's value of key and whether key differs from its
// default.
func (c *ConfigDiff) Get(key string) (string, bool) {
	if c == nil {
		return "", false
	}
	for _, s := range c.Settings {
		if s.Key == key {
			return s.Value, true
		}
	}
	return "", false
}

// SortSettings orders the settings by key.
func (c *ConfigDiff) SortSettings() {
	sort.Slice(c.Settings, func(i, j int) bool { return c.Settings[i].Key < c.Settings[j].Key })
}

// ServerOptPrefix marks a managed server's setting as given: --server-opt
// key=value is recorded in the engine's settings as ServerOptPrefix+key,
// and key alone holds the value the running server reports.
const ServerOptPrefix = "server_opt."
