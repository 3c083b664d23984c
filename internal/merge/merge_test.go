package merge

import (
	"reflect"
	"testing"

	"rumbench/internal/results"
)

func shardBundle(i int) *results.Bundle {
	return &results.Bundle{Run: results.Run{Shard: &results.Shard{Index: i, Count: 2, RunID: "r"}}}
}

// TestMergeDescAndDetails: planned work adds, paced periods combine as
// rates (1/period adds), additive details sum, equal ones stay, others are
// kept per shard.
func TestMergeDescAndDetails(t *testing.T) {
	a := &results.Step{StepDesc: results.StepDesc{MainOp: "insert", Work: 3000, OpPeriodS: map[string]float64{"insert": 0.25}},
		Details: map[string]any{"target_rows": 300.0, "rows_per_commit": 50.0, "rows_per_query": 9.5, results.DetailLogicalBytesInserted: 1000.0}}
	b := &results.Step{StepDesc: results.StepDesc{MainOp: "insert", Work: 1000, OpPeriodS: map[string]float64{"insert": 0.5}},
		Details: map[string]any{"target_rows": 100.0, "rows_per_commit": 50.0, "rows_per_query": 10.0, results.DetailLogicalBytesInserted: 500.0}}
	d := mergeDesc([]*results.Step{a, b})
	if d.Work != 4000 {
		t.Errorf("work %d, want 4000", d.Work)
	}
	// 4 + 2 batches per second: one every 1/6 s.
	if p := d.OpPeriodS["insert"]; p < 1.0/6-1e-12 || p > 1.0/6+1e-12 {
		t.Errorf("insert period %g, want 1/6", p)
	}
	got := mergeDetails([]*results.Step{a, b}, []*results.Bundle{shardBundle(0), shardBundle(1)}, []string{"target_rows"})
	want := map[string]any{
		"target_rows":                      int64(400),
		"rows_per_commit":                  50.0,
		results.DetailLogicalBytesInserted: int64(1500),
		DetailShardValues:                  map[string]map[string]any{"rows_per_query": {"0": 9.5, "1": 10.0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("details\n got %#v\nwant %#v", got, want)
	}
}

// The server's metrics come from the shard on its host whose step lasted
// longest: its window covers every shard's work.
func TestServerShardEndedLast(t *testing.T) {
	bundle := func(idx int, set string, secs float64) *results.Bundle {
		return &results.Bundle{
			Run:   results.Run{Shard: &results.Shard{Index: idx}},
			Steps: map[string]*results.Step{"l.i0": {Step: "l.i0", Seconds: secs, Metrics: &results.Metrics{ProcessSet: set}}},
		}
	}
	server := serverProcessSet + " (postgres)"
	have := []*results.Bundle{bundle(0, server, 0.042), bundle(1, "rumbench process", 0.090), bundle(2, server, 0.050)}
	if got := serverShard(have, "l.i0"); got != have[2] {
		t.Errorf("server shard %d, want 2 (the server-host shard that ended last)", got.Run.Shard.Index)
	}
	if got := serverShard(have[1:2], "l.i0"); got != nil {
		t.Errorf("no shard on the server's host: got shard %d", got.Run.Shard.Index)
	}
}
