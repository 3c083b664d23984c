package kv

import (
	"runtime/debug"
	"strconv"

	"rumbench/internal/engineopt"
)

// ModuleVersion returns the version of the named module from the binary's
// build information, or fallback.
func ModuleVersion(path, fallback string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fallback
	}
	for _, m := range bi.Deps {
		if m.Path != path {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		if m.Version != "" {
			return m.Version
		}
	}
	return fallback
}

// Config is the kv layer's own settings, the same engine options on every kv
// engine (Options).
type Config struct {
	// UniqueCheck makes Insert read each primary key before writing it and
	// fail with model.ErrDuplicateKey when it exists (or is twice in the
	// batch), as a database enforces its primary key. Off, inserts write
	// blindly and a duplicate overwrites the row (leaving its old index
	// entries behind).
	UniqueCheck bool
	// IndexBuild is how CreateIndexes fills new indexes: "bulk" sorts
	// their entries and loads them through the store's bulk path
	// (BulkLoader), with writes blocked meanwhile; "online" copies rows in
	// chunks while writers run (also the fallback of stores without one).
	IndexBuild string
	// IndexBuildMemory bounds the bulk build's sort buffer: entries beyond
	// it are sorted in runs spilled to files under the data dir and merged.
	IndexBuildMemory int64
	// RowLockedTx is set by an engine whose store's transactions may run
	// at once (each a private batch, committed atomically; reads see the
	// latest commits and the transaction's own writes) but isolate
	// nothing (Pebble): a Tx then holds the transaction lock shared and
	// locks each row it writes until it ends, as RocksDB's TransactionDB
	// does; otherwise it holds the transaction lock exclusively. Not an
	// option of every kv engine: the engine's own.
	RowLockedTx bool
}

// OptionTable is the engine options every kv engine lists after its own,
// parsed into c.
func OptionTable(c *Config) engineopt.Table {
	return engineopt.Table{
		engineopt.Bool(&c.UniqueCheck, "unique_check", "true", "read the primary key before each insert and fail on a duplicate, as SQL engines do (for an LSM the one read an insert cannot avoid); false writes blindly, like MyRocks with unique_checks=0"),
		emptyIsDefault(engineopt.Choice(&c.IndexBuild, "index_build", "bulk", "how l.x (CreateIndexes) fills new indexes: bulk sorts the entries (in runs spilled under the data dir when they exceed index_build_memory) and loads them through the engine's bulk path (Pebble and RocksDB ingest SSTs, WiredTiger a bulk cursor, bbolt sequential full pages), blocking writes meanwhile like CREATE INDEX; online copies rows in chunks of 4096 entries while writers run (CREATE INDEX CONCURRENTLY)", "bulk", "online")),
		emptyIsDefault(engineopt.SizeIn(&c.IndexBuildMemory, "index_build_memory", "64MB", "memory for the bulk index build's sort (keys plus 16 bytes each); more entries are sorted in runs spilled to files and merged (at least 64KB)", minBuildMemory, maxBuildMemory, "a size from 64KB to 3GB")),
	}
}

// emptyIsDefault makes an empty value mean o's default, as these two
// options have always read it.
func emptyIsDefault(o engineopt.Option) engineopt.Option {
	return engineopt.Func(o.Key, o.Default, o.Help, func(raw string) error {
		if raw == "" {
			raw = o.Default
		}
		return o.Set(raw)
	})
}

// Record adds the settings to an engine's Info.Settings (run.json).
func (c Config) Record(settings map[string]string) {
	settings["unique_check"] = strconv.FormatBool(c.UniqueCheck)
	settings["index_build"] = c.IndexBuild
	settings["index_build_memory"] = strconv.FormatInt(c.IndexBuildMemory, 10)
}
