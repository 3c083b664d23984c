package plan

import (
	"strings"
	"testing"
	"time"
)

func shardRequest(given ...string) Shard {
	return Shard{
		Given: func(n string) bool {
			for _, g := range given {
				if g == n {
					return true
				}
			}
			return false
		},
		Spec: "1/3", Timeout: time.Minute, Getenv: func(string) string { return "2" },
		DefaultRunID: func(count int) string { return "hash-of-" + strings.Repeat("x", count) },
	}
}

func TestPlanShard(t *testing.T) {
	if o, err := PlanShard(shardRequest()); o != nil || err != nil {
		t.Errorf("no --shard: %+v, %v", o, err)
	}
	o, err := PlanShard(shardRequest("shard"))
	if err != nil || o.Spec.Index != 1 || o.Spec.Count != 3 || o.RunID != "hash-of-xxx" || o.Timeout != time.Minute {
		t.Errorf("--shard 1/3: %+v, %v", o, err)
	}
	r := shardRequest("shard", "shard-run")
	r.Spec, r.RunID = "/3", "nightly"
	if o, err = PlanShard(r); err != nil || o.Spec.Index != 2 || o.RunID != "nightly" {
		t.Errorf("--shard /3 with the index from the environment: %+v, %v", o, err)
	}
	for _, c := range []struct {
		r    Shard
		want string
	}{
		{shardRequest("shard-timeout"), "--shard-timeout applies to sharded runs only"},
		{shardRequest("shard-run"), "--shard-run applies to sharded runs only"},
		{func() Shard { r := shardRequest("shard"); r.Timeout = 0; return r }(), "--shard-timeout must be positive, got 0s"},
		{shardRequest("shard", "managed"), "--shard cannot be combined with --managed"},
		{shardRequest("shard", "repeat"), "--shard cannot be combined with --repeat"},
		{shardRequest("shard", "memory-limit"), "--shard cannot be combined with --memory-limit"},
		{func() Shard {
			r := shardRequest("shard")
			r.EngineOpts = []string{"postgres.drop_database=true"}
			return r
		}(),
			"--shard cannot be combined with --engine-opt postgres.drop_database=true"},
	} {
		if _, err := PlanShard(c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if err := CheckShardable(func(string) bool { return false }, []string{"drop_database=false"}); err != nil {
		t.Errorf("drop_database=false: %v", err)
	}
}

// Shards share one server: an embedded engine cannot be split.
func TestCheckShardedEngines(t *testing.T) {
	if err := CheckShardedEngines([]string{"postgres", "innodb"}); err != nil {
		t.Errorf("server engines: %v", err)
	}
	if err := CheckShardedEngines([]string{"postgres", "pebble"}); err == nil || !strings.HasPrefix(err.Error(), "--shards: ") || !strings.Contains(err.Error(), "pebble") {
		t.Errorf("pebble: %v", err)
	}
	if err := CheckShardedEngines([]string{"nosuch"}); err == nil || !strings.Contains(err.Error(), `unknown engine "nosuch"`) {
		t.Errorf("unknown engine: %v", err)
	}
}
