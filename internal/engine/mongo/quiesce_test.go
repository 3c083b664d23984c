package mongo

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// The quiesce's rule on serverStatus replies as mongod sends them (int32
// or int64 counters): a running checkpoint or more than 1% of the cache
// dirty is not idle; a reply without WiredTiger (FerretDB) has nothing to
// wait for.
func TestCheckpointIdle(t *testing.T) {
	reply := func(running int32, dirty, max int64) bson.M {
		return bson.M{"wiredTiger": bson.M{
			"transaction": bson.M{"transaction checkpoint currently running": running},
			"cache":       bson.M{"tracked dirty bytes in the cache": dirty, "maximum bytes configured": max},
		}}
	}
	for _, c := range []struct {
		name   string
		status bson.M
		idle   bool
		want   string
	}{
		{"at rest", reply(0, 10<<20, 1<<30), true, "checkpoint running 0, 10485760 dirty bytes of a 1073741824-byte cache"},
		{"checkpoint running", reply(1, 0, 1<<30), false, "checkpoint running 1"},
		{"dirty cache", reply(0, 20<<20, 1<<30), false, "20971520 dirty bytes"},
		{"ferretdb", bson.M{"ok": 1.0}, true, nothingToWaitFor},
		{"counters missing", bson.M{"wiredTiger": bson.M{"cache": bson.M{}}}, true, "lacks the checkpoint or cache counters"},
	} {
		idle, reading := checkpointIdle(c.status)
		if idle != c.idle || !strings.Contains(reading, c.want) {
			t.Errorf("%s: idle %v, %q; want %v, %q", c.name, idle, reading, c.idle, c.want)
		}
	}
}

// On the test server the quiesce reads serverStatus: on FerretDB, which has
// no WiredTiger section, it records that there is nothing to wait for and
// does not fail; on a mongod it waits for the checkpoint and dirty cache.
func TestQuiesce(t *testing.T) {
	c := client(t)
	tg := target(t, "rumbench_test_mongo_quiesce")
	db := enginetest.OpenServer(t, tg)
	defer enginetest.DropDatabase(t, tg)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	waits, err := db.(model.Quiescer).Quiesce(ctx)
	if err != nil || len(waits) != 1 {
		t.Fatalf("Quiesce = %+v, %v", waits, err)
	}
	w := waits[0]
	if w.What != quiesceWhat || w.Until != quiesceUntil || !w.Reached {
		t.Fatalf("wait %+v, want the WiredTiger wait, reached", w)
	}
	if isFerret(t, c) {
		if w.Before != nothingToWaitFor || w.After != nothingToWaitFor || w.Seconds > 5 {
			t.Fatalf("FerretDB: wait %+v, want %q at once", w, nothingToWaitFor)
		}
	} else if !strings.HasPrefix(w.After, "checkpoint running 0,") {
		t.Fatalf("mongod: wait %+v, want a reading with no checkpoint running", w)
	}
}
