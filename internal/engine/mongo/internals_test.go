package mongo

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestInternalsFrom: a mongod serverStatus document's WiredTiger counters
// map to the common names with exact arithmetic, numbers of every BSON
// type the servers send; a section that is missing leaves its names out.
func TestInternalsFrom(t *testing.T) {
	status := bson.M{
		"opcounters": bson.M{"insert": int64(6000), "query": int32(12), "update": float64(3)},
		"metrics":    bson.M{"commands": bson.M{"insert": bson.M{"total": int64(60), "failed": int64(0)}, "dropIndexes": bson.M{"total": int64(1)}}},
		"wiredTiger": bson.M{
			"cache": bson.M{
				"pages read into cache":                             int64(250),
				"pages written from cache":                          int32(40),
				"bytes written from cache":                          float64(163840),
				"application thread time waiting for cache (usecs)": int64(2_500_000),
			},
			"block-manager": bson.M{"bytes written": int64(3 << 20), "bytes read": int32(1 << 20)},
			"log":           bson.M{"log bytes written": int64(512000), "log sync operations": int32(7)},
			"transaction":   bson.M{"transaction checkpoints": int32(2)},
		},
	}
	in := internalsFrom(status)
	want := map[string]float64{
		model.InternalCacheMiss: 250, model.InternalLogKB: 500, model.InternalBgWriteKB: 3072, model.InternalStallS: 2.5,
	}
	if len(in.Common) != len(want) {
		t.Errorf("common %v, want %v", in.Common, want)
	}
	for k, v := range want {
		if in.Common[k] != v {
			t.Errorf("%s = %g, want %g", k, in.Common[k], v)
		}
	}
	for k, v := range map[string]float64{"opcounters_insert": 6000, "opcounters_query": 12, "opcounters_update": 3,
		"wt_cache_pages_written": 40, "wt_log_syncs": 7, "wt_checkpoints": 2, "wt_block_bytes_read": 1 << 20, "commands_insert": 60} {
		if in.Raw[k] != v {
			t.Errorf("raw %s = %g, want %g", k, in.Raw[k], v)
		}
	}

	delete(status["wiredTiger"].(bson.M), "log")
	if _, ok := internalsFrom(status).Common[model.InternalLogKB]; ok {
		t.Error("log_kb recorded without a log section")
	}
	delete(status, "wiredTiger")
	in = internalsFrom(status)
	if _, ok := in.Raw["commands_dropIndexes"]; ok {
		t.Error("a command rumbench does not send was kept")
	}
	if v, ok := in.Raw["commands_find"]; !ok || v != 0 {
		t.Errorf("a command not listed yet: commands_find = %g, %v; want 0", v, ok)
	}
	if len(in.Common) != 0 || !strings.Contains(in.Scope, "no wiredTiger section") || in.Raw["opcounters_insert"] != 6000 {
		t.Errorf("without wiredTiger: common %v, scope %q, raw %v", in.Common, in.Scope, in.Raw)
	}
}

// TestInternalsServer: on the test server a load's insert commands are
// counted (FerretDB too: one per batch, at most one per row), and a
// WiredTiger server logs every row and counts every document inserted.
func TestInternalsServer(t *testing.T) {
	tg := target(t, "rumbench_test_mongo_internals")
	c := client(t)
	defer func() { _ = c.Database(tg.Database).Drop(context.Background()) }()
	per := map[string]enginetest.Bounds{}
	raw := map[string]enginetest.Bounds{"commands_insert": {Lo: 1e-4, Hi: 1}}
	if !isFerret(t, c) {
		per[model.InternalLogKB] = enginetest.Bounds{Lo: 0.01, Hi: 10}
		raw["opcounters_insert"] = enginetest.Bounds{Lo: 1, Hi: 1}
	}
	s := enginetest.Internals(t, tg, per, raw)
	if isFerret(t, c) && !strings.Contains(s.Metrics.InternalsScope, "no wiredTiger section") {
		t.Errorf("FerretDB: internals_scope %q does not say why the common figures are absent", s.Metrics.InternalsScope)
	}
}
