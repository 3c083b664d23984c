package mongo

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestFlattenOpts: getCmdLineOpts' parsed options become dotted keys,
// nested documents in either form, and the plumbing is recognised.
func TestFlattenOpts(t *testing.T) {
	parsed := bson.M{
		"config": "/etc/mongod.conf",
		"net":    bson.D{{Key: "port", Value: int32(27017)}, {Key: "bindIp", Value: "127.0.0.1"}},
		"storage": bson.M{
			"dbPath":     "/var/lib/mongodb",
			"engine":     "wiredTiger",
			"wiredTiger": bson.D{{Key: "engineConfig", Value: bson.D{{Key: "cacheSizeGB", Value: 0.25}}}},
		},
		"systemLog": bson.M{"path": "/var/log/mongodb/mongod.log"},
	}
	got := flattenOpts("", parsed)
	want := map[string]string{
		"config": "/etc/mongod.conf", "net.port": "27017", "net.bindIp": "127.0.0.1",
		"storage.dbPath": "/var/lib/mongodb", "storage.engine": "wiredTiger",
		"storage.wiredTiger.engineConfig.cacheSizeGB": "0.25", "systemLog.path": "/var/log/mongodb/mongod.log",
	}
	if len(got) != len(want) {
		t.Errorf("flattened %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	var kept []string
	for k := range got {
		if !mongoPlumbing(k) {
			kept = append(kept, k)
		}
	}
	if len(kept) != 2 {
		t.Errorf("options kept in the diff: %v, want storage.engine and the cache size", kept)
	}
}
