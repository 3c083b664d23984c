package merge

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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

// TestMergeStartSpreadWarns: shards that started a step further apart than
// the barrier's lead (a barrier that let one through early) get a warning
// and a caveat in the merged bundle; shards started together get none.
func TestMergeStartSpreadWarns(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	bundle := func(i int, offsets map[string]time.Duration) *results.Bundle {
		b := shardBundle(i)
		b.Dir = fmt.Sprintf("shard%d", i)
		b.Run.Workload, b.Run.SchemaVersion = "ibench", results.SchemaVersion
		b.Run.Steps = []string{"together", "apart"}
		b.Steps = map[string]*results.Step{}
		for _, name := range b.Run.Steps {
			start := t0.Add(offsets[name])
			b.Steps[name] = &results.Step{Step: name, Complete: true, Interval: 1, Started: start}
			b.Intervals = append(b.Intervals, results.IntervalRecord{Step: name, Index: 0, StartMs: start.UnixMilli(), Seconds: 1})
		}
		return b
	}
	shards := []*results.Bundle{
		bundle(0, map[string]time.Duration{"together": 0, "apart": 10 * time.Second}),
		bundle(1, map[string]time.Duration{"together": 20 * time.Millisecond, "apart": 13 * time.Second}),
	}
	dir := filepath.Join(t.TempDir(), "merged")
	warnings, err := Write(dir, shards)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "step apart: the shards started 3000 ms apart, more than the barrier's 500 ms lead") {
		t.Fatalf("warnings %q, want one for step apart (3000 ms)", warnings)
	}
	got, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := got.Steps["apart"].Details[DetailStartCaveat].(string); !strings.Contains(c, "3000 ms apart") {
		t.Errorf("step apart: caveat %q", c)
	}
	if c, ok := got.Steps["together"].Details[DetailStartCaveat]; ok {
		t.Errorf("step together (20 ms apart) has a caveat: %v", c)
	}
	notes := strings.Join(got.Run.Notes, "\n")
	if !strings.Contains(notes, "step apart: the shards started 3000 ms apart") || strings.Contains(notes, "step together:") {
		t.Errorf("run notes:\n%s", notes)
	}
}

// Shards of a run of two variants of one engine: Find keys them by label,
// so each variant merges on its own and keeps its label; a bundle without
// a label is keyed by its engine's name.
func TestFindByLabel(t *testing.T) {
	dir := t.TempDir()
	var outs []string
	for i := 0; i < 2; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		outs = append(outs, out)
		for _, label := range []string{"none", "zstd", ""} {
			b := shardBundle(i)
			b.Run.SchemaVersion, b.Run.Workload, b.Run.Label = results.SchemaVersion, "ibench", label
			b.Run.Engine.Name = "pebble"
			if label == "" {
				b.Run.Engine.Name = "sqlite"
			}
			w, err := results.Create(filepath.Join(out, b.Run.VariantLabel()))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRun(&b.Run); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
	}
	found, err := Find(outs)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 3 || len(found["none"]) != 2 || len(found["zstd"]) != 2 || len(found["sqlite"]) != 2 {
		t.Fatalf("found %v, want none, zstd and sqlite with 2 shards each", found)
	}
	shards, err := Check(found["zstd"])
	if err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged", "zstd")
	if _, err := Write(merged, shards); err != nil {
		t.Fatal(err)
	}
	got, err := results.Read(merged)
	if err != nil || got.Run.Label != "zstd" || got.Run.Engine.Name != "pebble" || got.Run.MergedFrom == nil {
		t.Fatalf("merged bundle: %+v, %v", got, err)
	}
}

// TestMergedIntervalInternals: a merged interval takes the engine's
// counters of the shard the step's server metrics come from (never a sum:
// each shard read the same server's counters).
func TestMergedIntervalInternals(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	server := serverProcessSet + " (postgres)"
	bundle := func(i int, secs, logKB float64) *results.Bundle {
		b := shardBundle(i)
		b.Run.Steps = []string{"l.i0"}
		b.Steps = map[string]*results.Step{"l.i0": {Step: "l.i0", Complete: true, Interval: 1, Started: t0, Seconds: secs,
			Metrics: &results.Metrics{ProcessSet: server}}}
		b.Intervals = []results.IntervalRecord{{Step: "l.i0", Index: 0, StartMs: t0.UnixMilli(), Seconds: 1,
			Internals: map[string]float64{"log_kb": logKB}, InternalsSeconds: 1.01}}
		return b
	}
	_, recs, err := mergeStep(&results.Run{}, []*results.Bundle{bundle(0, 1.0, 10), bundle(1, 1.2, 12)}, "l.i0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || recs[0].Internals["log_kb"] != 12 || recs[0].InternalsSeconds != 1.01 {
		t.Fatalf("merged interval 0: %+v, want shard 1's log_kb 12 over 1.01 s", recs)
	}
}
