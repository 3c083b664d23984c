package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"rumbench/internal/measure"
)

func rate(v float64) *float64 { return &v }

// A paced operation's target is judged on its average rate in the summary:
// met at 95% of the target or more (exactly at the boundary), its share
// rounded half up to 0.1 (so a rate a hair under 95% reads 95.0% and is
// missed), 0 when the operation never ran.
func TestJudgeTargetsArithmetic(t *testing.T) {
	for _, c := range []struct {
		name     string
		achieved *float64 // nil: the operation never ran
		pct      float64
		met      bool
	}{
		{"all of it", rate(200), 100, true},
		{"exactly 95%", rate(190), 95, true},
		{"a hair under 95%", rate(189.99), 95, false},
		{"93%", rate(186), 93, false},
		{"above it", rate(212.345), 106.2, true},
		{"never ran", nil, 0, false},
	} {
		s := &Step{Step: "qr100", Ops: map[string]*OpSummary{}}
		want := 0.0
		if c.achieved != nil {
			s.Ops["insert"] = &OpSummary{Unit: measure.UnitRows, RateAvg: c.achieved}
			want = *c.achieved
		}
		s.JudgeTargets([]Target{PacedOp("insert", "writers", 200)}, summaryOps)
		if len(s.Targets) != 1 {
			t.Fatalf("%s: targets %+v", c.name, s.Targets)
		}
		got := s.Targets[0]
		if got.Op != "insert" || got.Who != "writers" || got.Unit != measure.UnitRows || got.Rate != 200 || got.Achieved != want ||
			got.PctOf == nil || *got.PctOf != c.pct || got.MetAtPct != 95 || got.Met != c.met {
			t.Errorf("%s: %+v (pct %v), want achieved %v, %v%%, met %v", c.name, got, got.PctOf, want, c.pct, c.met)
		}
		// The writers' target also fills the version 1 fields.
		if s.IPSTarget == nil || *s.IPSTarget != 200 || s.TargetMet == nil || *s.TargetMet != c.met {
			t.Errorf("%s: ips_target %v, target_met %v", c.name, s.IPSTarget, s.TargetMet)
		}
		d := s.Details
		if d["ips_target"] != 200.0 || d["target_met"] != c.met || d["target_met_pct"] != 95.0 || d["ips_pct_of_target"] != c.pct {
			t.Errorf("%s: details %v", c.name, d)
		}
	}
}

// A step may pace several operations: each is judged on its own rate, in
// the order declared; a later declaration for the same operation replaces
// the earlier, a rate of 0 is no target, and only the writers' target
// (insert) has version 1 fields.
func TestJudgeTargetsOfSeveralOperations(t *testing.T) {
	s := &Step{Step: "qp100", Ops: map[string]*OpSummary{
		"insert": {Unit: measure.UnitRows, RateAvg: rate(600)},
		"query":  {Unit: measure.UnitOps, RateAvg: rate(700)},
	}}
	s.JudgeTargets([]Target{
		PacedOp("insert", "writers", 500),
		PacedOp("query", "queries", 1000),
		PacedOp("insert", "writers", 600),
		PacedOp("delete", "deleters", 0),
	}, summaryOps)
	if len(s.Targets) != 2 || s.Targets[0].Op != "insert" || s.Targets[1].Op != "query" {
		t.Fatalf("targets %+v", s.Targets)
	}
	if w := s.Targets[0]; w.Rate != 600 || !w.Met || *w.PctOf != 100 {
		t.Errorf("writers %+v", w)
	}
	if q := s.Targets[1]; q.Unit != measure.UnitOps || q.Rate != 1000 || q.Achieved != 700 || q.Met || *q.PctOf != 70 {
		t.Errorf("queries %+v", q)
	}
	if *s.IPSTarget != 600 || !*s.TargetMet {
		t.Errorf("version 1 fields from the query target: %v %v", *s.IPSTarget, *s.TargetMet)
	}

	r := &Step{Step: "request", Ops: map[string]*OpSummary{"request": {Unit: measure.UnitOps, RateAvg: rate(4050)}}}
	r.JudgeTargets([]Target{PacedOp("request", "requests", 5000)}, nil)
	if len(r.Targets) != 1 || r.Targets[0].Met || *r.Targets[0].PctOf != 81 {
		t.Errorf("requests %+v", r.Targets)
	}
	if r.IPSTarget != nil || r.TargetMet != nil || r.Details != nil {
		t.Errorf("a request target wrote version 1 fields: %v %v %v", r.IPSTarget, r.TargetMet, r.Details)
	}
}

// Shards' targets add up by operation; the sum is judged on the merged
// rates.
func TestMergeTargets(t *testing.T) {
	a := &Step{Targets: []Target{{Op: "insert", Who: "writers", Unit: measure.UnitRows, Rate: 300, Achieved: 300, Met: true}}}
	b := &Step{Targets: []Target{{Op: "insert", Who: "writers", Unit: measure.UnitRows, Rate: 300, Achieved: 200, Met: false},
		{Op: "query", Who: "queries", Unit: measure.UnitOps, Rate: 100}}}
	got := MergeTargets([]*Step{a, b, {}})
	want := []Target{{Op: "insert", Who: "writers", Unit: measure.UnitRows, Rate: 600}, {Op: "query", Who: "queries", Unit: measure.UnitOps, Rate: 100}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged %+v, want %+v", got, want)
	}
	m := &Step{Ops: map[string]*OpSummary{"insert": {Unit: measure.UnitRows, RateAvg: rate(500)}}}
	m.JudgeTargets(got, summaryOps)
	if m.Targets[0].Met || *m.Targets[0].PctOf != 83.3 || m.Targets[1].Achieved != 0 || m.Targets[1].Met {
		t.Errorf("merged verdicts %+v %+v", m.Targets[0], m.Targets[1])
	}
}

// A bundle written before Targets reads back with its writers' target from
// the version 1 fields, as recorded (not judged again); a bundle written
// with them reads back the same, once.
func TestReadTargetsOfOldAndNewBundles(t *testing.T) {
	dir := t.TempDir()
	write := bundleFileWriter(t, dir)
	write(RunFile, map[string]any{"schema_version": SchemaVersion, "steps": []string{"qr100", "qp100", "l.i0"}})
	// Version 2 before Targets: ips_avg 187.2 of 200 recorded as met
	// (a workload of its day); the reader keeps the verdict.
	write(filepath.Join(StepsDir, "qr100.json"), map[string]any{"step": "qr100", "ips_avg": 187.2, "ips_target": 200, "target_met": true,
		"details": map[string]any{"ips_target": 200, "target_met": true, "target_met_pct": 95, "ips_pct_of_target": 93.6}})
	// An early step with the verdict only at the top level.
	write(filepath.Join(StepsDir, "qp100.json"), map[string]any{"step": "qp100", "ips_avg": 150, "ips_target": 200, "target_met": false})
	write(filepath.Join(StepsDir, "l.i0.json"), map[string]any{"step": "l.i0", "ips_avg": 5000})
	b, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Target{Op: "insert", Who: "writers", Unit: measure.UnitRows, Rate: 200, Achieved: 187.2, PctOf: rate(93.6), MetAtPct: 95, Met: true}
	if got := b.Steps["qr100"].Targets; len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("qr100 targets %+v, want %+v", got, want)
	}
	want = Target{Op: "insert", Who: "writers", Unit: measure.UnitRows, Rate: 200, Achieved: 150, MetAtPct: 95}
	if got := b.Steps["qp100"].Targets; len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("qp100 targets %+v, want %+v", got, want)
	}
	if got := b.Steps["l.i0"].Targets; got != nil {
		t.Errorf("l.i0 has targets %+v", got)
	}

	// Written with Targets: read back as written, once.
	out := t.TempDir()
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRun(&Run{SchemaVersion: SchemaVersion, Ops: summaryOps, Steps: []string{"qp100"}}); err != nil {
		t.Fatal(err)
	}
	s := &Step{Step: "qp100", Ops: map[string]*OpSummary{"insert": {Unit: measure.UnitRows, RateAvg: rate(150)}, "query": {Unit: measure.UnitOps, RateAvg: rate(390)}}}
	s.SetLegacyRates()
	s.JudgeTargets([]Target{PacedOp("insert", "writers", 200), PacedOp("query", "queries", 400)}, summaryOps)
	if err := w.WriteStep(s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	nb, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := nb.Steps["qp100"].Targets; !reflect.DeepEqual(got, s.Targets) {
		t.Errorf("read back %+v, want %+v", got, s.Targets)
	}
	raw, err := os.ReadFile(filepath.Join(out, StepsDir, "qp100.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["ips_target"] != 200.0 || m["target_met"] != false {
		t.Errorf("the step's JSON lacks its version 1 fields: ips_target %v, target_met %v", m["ips_target"], m["target_met"])
	}
}
