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
