package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"rumbench/internal/model"
)

var (
	_ model.InternalsReporter         = (*DB)(nil)
	_ model.IntervalInternalsReporter = (*DB)(nil)
)

// IntervalInternals implements model.IntervalInternalsReporter: Internals
// is one serverStatus.
func (d *DB) IntervalInternals(ctx context.Context) (model.Internals, error) {
	return d.Internals(ctx)
}

// wtInternals are the serverStatus().wiredTiger counters kept as raw
// internals (cumulative since the server started), under rumbench's key.
// The mapping to the common names is that of the embedded wiredtiger
// engine: pages read into the cache are its misses, the log's bytes are
// the journal, the block manager writes what checkpoints and eviction
// write back (the journal is written apart from it), and application
// threads waiting for cache room are its stalls.
var wtInternals = []struct{ section, name, key string }{
	{"cache", "pages read into cache", "wt_cache_pages_read"},
	{"cache", "pages written from cache", "wt_cache_pages_written"},
	{"cache", "bytes read into cache", "wt_cache_bytes_read"},
	{"cache", "bytes written from cache", "wt_cache_bytes_written"},
	{"cache", "application thread time waiting for cache (usecs)", "wt_cache_app_wait_usecs"},
	{"block-manager", "bytes read", "wt_block_bytes_read"},
	{"block-manager", "bytes written", "wt_block_bytes_written"},
	{"log", "log bytes written", "wt_log_bytes_written"},
	{"log", "log sync operations", "wt_log_syncs"},
	{"transaction", "transaction checkpoints", "wt_checkpoints"},
}

// commandNames are the metrics.commands counters kept: the commands
// rumbench's operations send.
var commandNames = []string{"insert", "find", "getMore", "update", "delete", "findAndModify", "aggregate", "count"}

// Internals implements model.InternalsReporter with serverStatus, one
// command per read: its wiredTiger section mapped to the common names
// (internalsFrom) and its opcounters kept raw. The counters are the whole
// server's.
func (d *DB) Internals(ctx context.Context) (model.Internals, error) {
	status, err := d.serverStatus(ctx)
	if err != nil {
		return model.Internals{}, fmt.Errorf("mongodb: serverStatus: %w", err)
	}
	return internalsFrom(status), nil
}

// internalsFrom maps a serverStatus document to internals. A server
// without a wiredTiger section (FerretDB, or mongod on another storage
// engine) has none of the common figures: the scope says so, and only its
// opcounters are kept.
func internalsFrom(status bson.M) model.Internals {
	raw := map[string]float64{}
	if ops, ok := status["opcounters"].(bson.M); ok {
		for k, v := range ops {
			if n, ok := asInt64(v); ok {
				raw["opcounters_"+k] = float64(n)
			}
		}
	}
	// metrics.commands counts commands (an insertMany of a batch is one),
	// which FerretDB reports too, but only for commands it has served: a
	// command not listed yet has run 0 times.
	if m, ok := status["metrics"].(bson.M); ok {
		if cmds, ok := m["commands"].(bson.M); ok {
			for _, name := range commandNames {
				raw["commands_"+name] = 0
				if c, ok := cmds[name].(bson.M); ok {
					if n, ok := asInt64(c["total"]); ok {
						raw["commands_"+name] = float64(n)
					}
				}
			}
		}
	}
	wt, ok := status["wiredTiger"].(bson.M)
	if !ok {
		return model.Internals{Raw: raw, Common: map[string]float64{},
			Scope: "server: serverStatus has no wiredTiger section (not a WiredTiger server, e.g. FerretDB, whose storage is the SQL database behind it), so cache_miss, log_kb, bg_write_kb and stall_s are absent; command counters only"}
	}
	for _, s := range wtInternals {
		if sec, ok := wt[s.section].(bson.M); ok {
			if v, ok := asInt64(sec[s.name]); ok {
				raw[s.key] = float64(v)
			}
		}
	}
	common := map[string]float64{}
	set := func(name, key string, scale float64) {
		if v, ok := raw[key]; ok {
			common[name] = v * scale
		}
	}
	set(model.InternalCacheMiss, "wt_cache_pages_read", 1)
	set(model.InternalLogKB, "wt_log_bytes_written", 1.0/1024)
	set(model.InternalBgWriteKB, "wt_block_bytes_written", 1.0/1024)
	set(model.InternalStallS, "wt_cache_app_wait_usecs", 1e-6)
	return model.Internals{Raw: raw, Common: common, Scope: "server: serverStatus counts every database of the server"}
}
