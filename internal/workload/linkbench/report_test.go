package linkbench

import (
	"strings"
	"testing"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// The table prints the catalogue's figures with the published decimals,
// and a dash for what a run did not measure or did not reach.
func TestTableCells(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	full := &results.Bundle{Run: results.Run{Engine: model.Info{Name: "pebble"}}, Steps: map[string]*results.Step{
		StepLoad: {Complete: true, EngineSize: 1_000_000_000, Ops: map[string]*results.OpSummary{OpInsert: {RateAvg: f(394401.4)}},
			Metrics: &results.Metrics{DiskBytes: i(295_499_999)}},
		StepRequest: {Complete: true, EngineSize: 1_020_500_000,
			Ops: map[string]*results.OpSummary{OpRequest: {Unit: measure.UnitOps, Count: 1000, RateAvg: f(38630.5), RatePct: f(23697.49)}},
			Metrics: &results.Metrics{DiskBytes: i(443_000_000), ProcWKB: f(50),
				PerOp: map[string]*results.OpCost{OpRequest: {CPUUs: f(21.2), WKB: f(0.845), RKB: f(0.094), Reads: f(0.0014)}}}},
	}}
	loadOnly := &results.Bundle{Run: results.Run{Engine: model.Info{Name: "sqlite"}}, Steps: map[string]*results.Step{
		StepLoad: {Complete: true, EngineSize: -1, Ops: map[string]*results.OpSummary{OpInsert: {}}},
	}}
	var b strings.Builder
	if err := Table(&b, nil, []*results.Bundle{full, loadOnly}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| pebble | 394401 | 38630 | 23697 | 21 | 0.84 | 0.09 | 0.001 | 0.05 | 0.295 | 0.443 | 1.000 | 1.020 | 0.021 |",
		"| sqlite | — | — | — | — | — | — | — | — | — | — | — | — | — |",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("no row\n%s\nin\n%s", want, b.String())
		}
	}
}

// Without labels from the report (the end of `rumbench run linkbench`), a
// row is its variant's label: two variants of one engine are told apart.
func TestTableRowsByVariantLabel(t *testing.T) {
	var bs []*results.Bundle
	for _, label := range []string{"ib4u", "ib4c"} {
		bs = append(bs, &results.Bundle{Run: results.Run{Label: label, Engine: model.Info{Name: "innodb"}}, Steps: map[string]*results.Step{}})
	}
	var b strings.Builder
	if err := Table(&b, nil, bs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| ib4u |", "| ib4c |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no row %s in\n%s", want, b.String())
		}
	}
}
