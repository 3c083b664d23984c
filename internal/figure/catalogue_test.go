package figure

import (
	"math"
	"strings"
	"testing"

	"rumbench/internal/measure"
	"rumbench/internal/results"
)

func TestCatalogueComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Catalogue {
		if seen[f.Key] {
			t.Errorf("%s catalogued twice", f.Key)
		}
		seen[f.Key] = true
		if f.Unit == "" || f.Desc == "" || f.Format == nil || f.get == nil {
			t.Errorf("%s lacks a unit, description, formatter or reader: %+v", f.Key, f)
		}
		if g, ok := Lookup(f.Key); !ok || g.Key != f.Key {
			t.Errorf("Lookup(%s) = %v, %v", f.Key, g, ok)
		}
	}
	keys := Keys()
	if len(keys) != len(Catalogue) || keys[0] != RateAvg || keys[len(keys)-1] != MinFltPerOp {
		t.Errorf("Keys = %v, want the catalogue in CSV order", keys)
	}
	if _, ok := Lookup("ips_pct"); ok {
		t.Error("an uncatalogued key is found")
	}
}

// Direction and additivity of the figures whose meaning is not in doubt.
func TestDirectionAndAdditivity(t *testing.T) {
	for key, want := range map[string]struct {
		better   Better
		additive bool
	}{
		RateAvg: {Higher, true}, RatePct: {Higher, false}, WriteRateAvg: {Higher, true},
		CPUPerOp: {Lower, false}, WKBPerOp: {Lower, false}, ReadsPerOp: {Lower, false},
		DiskGB: {Lower, true}, LiveGB: {Lower, true}, PSSGB: {Lower, true},
		"write_amp": {Lower, false}, "space_amp": {Lower, false},
		P99Ms: {Lower, false}, MaxMs: {Lower, false},
		"ips_avg": {Higher, true}, "ips_99": {Higher, false}, "qps_avg": {Higher, true},
		"rows_per_query": {Neither, false},
	} {
		f, ok := Lookup(key)
		if !ok {
			t.Errorf("%s is not catalogued", key)
			continue
		}
		if f.Better != want.better || f.Additive != want.additive {
			t.Errorf("%s: better %v additive %v, want %v %v", key, f.Better, f.Additive, want.better, want.additive)
		}
	}
}

func fp(v float64) *float64 { return &v }
func ip(v int64) *int64     { return &v }

var testOps = measure.Ops{
	{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite},
	{Name: "delete", Unit: measure.UnitRows, Role: measure.RoleWrite},
	{Name: "query", Unit: measure.UnitOps, Role: measure.RoleRead},
}

// A query step: reads judged, paced inserts beside them.
func queryStep() *results.Step {
	s := &results.Step{Step: "qr", EngineSize: 2_500_000_000,
		Latency: map[string]measure.Latency{"query": {Count: 10, P99: 1500, Max: 40000}},
		Ops: map[string]*results.OpSummary{
			"query":  {Count: 10, RateAvg: fp(1000), RatePct: fp(800)},
			"insert": {Count: 5, Rows: 500, RateAvg: fp(50), RatePct: fp(40)},
			"delete": {Count: 0},
		},
		Metrics: &results.Metrics{DiskBytes: ip(3_000_000_000), PerOp: map[string]*results.OpCost{
			"query": {CPUUs: fp(12.5), RKB: fp(4), Reads: fp(0.5)}, "insert": {WKB: fp(2.25)},
		}},
		QPSAvg: 1000, Queries: 10,
	}
	s.MainOp, s.TimeBoundedS = "query", 10
	return s
}

func TestSourceAndValues(t *testing.T) {
	s := queryStep()
	if !QueryStep(s, testOps) {
		t.Fatal("a time-bounded step judged by reads is not a query step")
	}
	src := SourceOf(s, testOps, map[string]any{"rows_per_query": 3.5})
	if src.MainOp != "query" || src.RateOp != "query" || src.WriteOp != "insert" {
		t.Fatalf("source ops %q %q %q, want query query insert (delete never ran)", src.MainOp, src.RateOp, src.WriteOp)
	}
	for key, want := range map[string]float64{
		RateAvg: 1000, RatePct: 800, WriteRateAvg: 50, WriteRatePct: 40, WKBPerWrite: 2.25,
		CPUPerOp: 12.5, RKBPerOp: 4, ReadsPerOp: 0.5, "rows_per_query": 3.5,
		DiskGB: 3, LiveGB: 2.5, P99Ms: 1.5, MaxMs: 40, "qps_avg": 1000,
	} {
		v := Get(key, src)
		if !v.OK || math.Abs(v.V-want) > 1e-12 {
			t.Errorf("%s = %+v, want %g", key, v, want)
		}
	}
	// Unmeasured figures are unavailable, never 0.
	for _, key := range []string{WKBPerOp, PSSGB, "write_amp", "space_amp", "ips_avg", "dps_avg"} {
		if v := Get(key, src); v.OK {
			t.Errorf("%s = %g, want unavailable", key, v.V)
		}
	}
	got := map[string]bool{}
	for _, m := range All(src) {
		got[m.Key] = true
	}
	if len(got) != 15 || got[PSSGB] {
		t.Errorf("All gives %d figures %v, want the 15 measured", len(got), got)
	}
	// One operation's figures: the writers' rate and cost as the headline.
	ins := OfOp(s, "insert")
	if v := Get(RateAvg, ins); !v.OK || v.V != 50 {
		t.Errorf("insert rate %+v, want 50", v)
	}
	if v := Get(WKBPerOp, ins); !v.OK || v.V != 2.25 {
		t.Errorf("insert wKB %+v, want 2.25", v)
	}
	if v := Get(P99Ms, ins); v.OK {
		t.Errorf("insert p99 %+v: its latency was not recorded", v)
	}
	// Without a step nothing is measured; an unknown engine size neither.
	if v := Get(RateAvg, Source{}); v.OK {
		t.Error("a figure of no step")
	}
	s.EngineSize = -1
	if v := Get(LiveGB, src); v.OK {
		t.Error("live size -1 reads as a figure")
	}
	// A count-bounded step is a write step: no writers' figures.
	s.TimeBoundedS = 0
	if QueryStep(s, testOps) || SourceOf(s, testOps, nil).WriteOp != "" {
		t.Error("a count-bounded step has writers beside its reads")
	}
}

func TestGetUnknownKeyPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "ips_pct") {
			t.Errorf("recovered %v, want a panic naming the key", r)
		}
	}()
	Get("ips_pct", Source{})
}

func TestValue(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if Known(v).OK {
			t.Errorf("Known(%g) is available", v)
		}
	}
	if r := Ratio(Known(3), Known(2)); !r.OK || r.V != 1.5 {
		t.Errorf("Ratio = %+v", r)
	}
	if Ratio(Known(3), Known(0)).OK || Ratio(Value{}, Known(2)).OK || Ratio(Known(1), Value{}).OK {
		t.Error("a ratio over 0 or an unavailable value")
	}
	f := func(v float64) string { return "x" }
	if (Value{}).Text(f) != "n/a" || (Value{}).TextOr("—", f) != "—" || Known(1).Text(f) != "x" {
		t.Error("Text")
	}
	m := map[string]any{"a": 2.0, "b": map[string]any{"value": 3.0, "why": "x"}, "c": "no", "d": nil}
	if v := Num(m, "a"); !v.OK || v.V != 2 {
		t.Errorf("Num a = %+v", v)
	}
	if v := Num(m, "b"); !v.OK || v.V != 3 {
		t.Errorf("Num of a metric with its reason = %+v", v)
	}
	for _, k := range []string{"c", "d", "missing"} {
		if Num(m, k).OK {
			t.Errorf("Num %s is available", k)
		}
	}
	if Ptr(nil).OK || !Ptr(fp(1)).OK {
		t.Error("Ptr")
	}
}

// TestNewFigures: a search step's headline rate is its sustained rate, and
// it has no rate percentile (its intervals ran at the probes' targets); the
// engine's own counters per operation are read from internals_per_op, the
// stall time in µs; a step without them has none.
func TestNewFigures(t *testing.T) {
	s := &results.Step{StepDesc: results.StepDesc{MainOp: "insert"},
		Ops:     map[string]*results.OpSummary{"insert": {Role: measure.RoleWrite, RateAvg: ptr(1234), RatePct: ptr(485)}},
		Details: map[string]any{"sustained_rate": 7500.0},
		Metrics: &results.Metrics{InternalsPerOp: map[string]float64{"log_kb": 0.5, "stall_s": 2e-6, "cache_miss": 0.25},
			PerOp: map[string]*results.OpCost{"insert": {MajFlt: ptr(0.01)}}}}
	src := Source{Step: s, RateOp: "insert", MainOp: "insert"}
	for key, want := range map[string]float64{RateAvg: 7500, Sustained: 7500, LogKBPerOp: 0.5, StallUsPerOp: 2, CacheMissPerOp: 0.25, MajFltPerOp: 0.01} {
		if v := Get(key, src); !v.OK || math.Abs(v.V-want) > 1e-9 {
			t.Errorf("%s = %+v, want %g", key, v, want)
		}
	}
	for _, key := range []string{RatePct, FPIPerOp, BgWriteKBPerOp, MinFltPerOp} {
		if v := Get(key, src); v.OK {
			t.Errorf("%s = %v, want unavailable", key, v.V)
		}
	}
	delete(s.Details, "sustained_rate")
	if v := Get(RateAvg, src); v.V != 1234 {
		t.Errorf("rate_avg without a search = %v, want the operation's 1234", v.V)
	}
	if v := Get(RatePct, src); v.V != 485 {
		t.Errorf("rate_pct without a search = %v, want the operation's 485", v.V)
	}
}

func ptr(v float64) *float64 { return &v }
