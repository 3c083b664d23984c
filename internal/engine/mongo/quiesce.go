package mongo

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"rumbench/internal/model"
)

var _ model.Quiescer = (*DB)(nil)

// What the quiesce reads and waits for: the rule of the embedded
// wiredtiger engine, read from serverStatus instead of the connection's
// statistics.
const (
	quiesceWhat  = "wiredtiger checkpoint and dirty cache (serverStatus)"
	quiesceUntil = "no checkpoint running, dirty bytes at most 1% of the cache"
)

// Quiesce implements model.Quiescer: it waits until WiredTiger runs no
// checkpoint and its cache holds at most 1% dirty bytes, read from
// serverStatus().wiredTiger every 50 ms, so eviction has nothing left to
// write when the next step starts. A server whose serverStatus has no
// wiredTiger section (FerretDB, another storage engine) reports nothing to
// wait for: the wait is recorded as such, reached at once. A server that
// refuses serverStatus (a user without clusterMonitor) gets the wait
// recorded as skipped, not an error.
func (d *DB) Quiesce(ctx context.Context) ([]model.QuiesceWait, error) {
	if d.closed {
		return nil, errors.New("mongodb: engine is closed")
	}
	var refused string
	w, err := model.WaitIdle(ctx, quiesceWhat, quiesceUntil, func(ctx context.Context) (bool, string, error) {
		status, err := d.serverStatus(ctx)
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			refused = fmt.Sprintf("skipped: the server refused serverStatus (%s; it needs the clusterMonitor role)", ce.Message)
			return true, refused, nil
		}
		if err != nil {
			return false, "", fmt.Errorf("mongodb: serverStatus: %w", err)
		}
		idle, reading := checkpointIdle(status)
		return idle, reading, nil
	})
	if refused != "" {
		w.Reached = false
	}
	return []model.QuiesceWait{w}, err
}

// nothingToWaitFor is the reading of a server without WiredTiger.
const nothingToWaitFor = "nothing to wait for: serverStatus has no wiredTiger section (not a WiredTiger server, e.g. FerretDB)"

// checkpointIdle judges one serverStatus reply: idle when no checkpoint
// runs and the dirty bytes are at most 1% of the cache, with the reading
// to record. A reply without a wiredTiger section is idle: the server
// reports no background work to wait for.
func checkpointIdle(status bson.M) (bool, string) {
	wt, ok := status["wiredTiger"].(bson.M)
	if !ok {
		return true, nothingToWaitFor
	}
	read := func(section, name string) (int64, bool) {
		sec, ok := wt[section].(bson.M)
		if !ok {
			return 0, false
		}
		return asInt64(sec[name])
	}
	running, ok1 := read("transaction", "transaction checkpoint currently running")
	dirty, ok2 := read("cache", "tracked dirty bytes in the cache")
	max, ok3 := read("cache", "maximum bytes configured")
	if !ok1 || !ok2 || !ok3 {
		return true, "nothing to wait for: serverStatus' wiredTiger section lacks the checkpoint or cache counters"
	}
	return running == 0 && dirty*100 <= max, fmt.Sprintf("checkpoint running %d, %d dirty bytes of a %d-byte cache", running, dirty, max)
}
