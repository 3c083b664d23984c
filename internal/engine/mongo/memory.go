package mongo

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"rumbench/internal/model"
)

var _ model.MemoryReporter = (*DB)(nil)

// Memory implements model.MemoryReporter: the WiredTiger cache the server
// runs with (serverStatus wiredTiger.cache "maximum bytes configured"). A
// server without WiredTiger statistics (FerretDB, in-memory engines)
// reports no cache of its own.
func (d *DB) Memory(ctx context.Context) (model.Memory, error) {
	status, err := d.serverStatus(ctx)
	if err != nil {
		return model.Memory{}, fmt.Errorf("mongodb: serverStatus: %w", err)
	}
	if wt, ok := status["wiredTiger"].(bson.M); ok {
		if cache, ok := wt["cache"].(bson.M); ok {
			if v, ok := asInt64(cache["maximum bytes configured"]); ok {
				return model.Memory{CacheBytes: v, CacheSource: `mongodb serverStatus wiredTiger.cache "maximum bytes configured"`}, nil
			}
		}
	}
	src := "mongodb serverStatus has no wiredTiger.cache section: the server's storage engine is not WiredTiger"
	if d.ferret {
		src = "FerretDB has no cache of its own: its backend (SQLite or PostgreSQL) caches"
	}
	return model.Memory{CacheBytes: -1, CacheSource: src}, nil
}
