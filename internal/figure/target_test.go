package figure

import (
	"testing"

	"rumbench/internal/measure"
	"rumbench/internal/results"
)

func pct(v float64) *float64 { return &v }

func TestTargetVerdictOfAStep(t *testing.T) {
	writers := func(met bool, share *float64) results.Target {
		return results.Target{Op: "insert", Who: "writers", Unit: measure.UnitRows, Rate: 1000, Achieved: 991.4, PctOf: share, Met: met}
	}
	for _, c := range []struct {
		name                    string
		t                       results.Target
		label, word, cell, line string
		missed                  bool
	}{
		{"met", writers(true, pct(99.14)), "writers' SLA", "ok", "ok 99.1%", "ok: 99.1% of their 1000 rows/s target (ok at 95%)", false},
		{"missed", writers(false, pct(81.25)), "writers' SLA", "MISSED", "MISSED 81.2%", "MISSED: 81.2% of their 1000 rows/s target (ok at 95%)", true},
		{"missed without its share", writers(false, nil), "writers' SLA", "MISSED", "MISSED", "", true},
		{"requests", results.Target{Op: "request", Who: "requests", Unit: measure.UnitOps, Rate: 5000, Achieved: 4050, PctOf: pct(81), Met: false},
			"requests' SLA", "MISSED", "MISSED 81.0%", "MISSED: 81.0% of their 5000 requests/s target (ok at 95%)", true},
		{"queries", results.Target{Op: "query", Who: "queries", Unit: measure.UnitOps, Rate: 400, Achieved: 399, PctOf: pct(99.8), Met: true},
			"queries' SLA", "ok", "ok 99.8%", "ok: 99.8% of their 400 queries/s target (ok at 95%)", false},
		{"a worker not in the plural", results.Target{Op: "update", Who: "updater", Unit: measure.UnitOps, Rate: 10, PctOf: pct(0)},
			"updater's SLA", "MISSED", "MISSED 0.0%", "MISSED: 0.0% of their 10 updates/s target (ok at 95%)", true},
	} {
		tg := TargetOf(c.t)
		if tg.Label() != c.label || tg.Word() != c.word || tg.Cell() != c.cell || tg.Missed() != c.missed {
			t.Errorf("%s: got label %q word %q cell %q missed %v", c.name, tg.Label(), tg.Word(), tg.Cell(), tg.Missed())
		}
		if c.line != "" && tg.Line() != c.line {
			t.Errorf("%s: line %q, want %q", c.name, tg.Line(), c.line)
		}
	}
	if TargetOf(results.Target{Op: "insert"}).Rate.OK {
		t.Error("a verdict recorded without its target rate has a rate")
	}
}

// A step that paces two operations (the insert benchmark's writers and
// its queries under --query-rate) has both verdicts, in the order
// declared; a summary heads one column per kind, each once.
func TestTargetsOfAStepWithTwoPacedOperations(t *testing.T) {
	s := &results.Step{Targets: []results.Target{
		{Op: "insert", Who: "writers", Unit: measure.UnitRows, Rate: 200, Achieved: 199, Met: true},
		{Op: "query", Who: "queries", Unit: measure.UnitOps, Rate: 400, Achieved: 300, Met: false},
	}}
	ts := TargetsOf(s)
	if len(ts) != 2 || !ts.Missed() || len(ts.MissedOnes()) != 1 || ts.MissedOnes()[0].Op != "query" {
		t.Fatalf("targets %+v", ts)
	}
	if q, ok := ts.Of("query"); !ok || q.Rate != Known(400) || q.Achieved != Known(300) {
		t.Errorf("query target %+v", q)
	}
	if _, ok := ts.Of("delete"); ok {
		t.Error("an operation not paced has a target")
	}
	if got := Labels(ts, TargetsOf(&results.Step{}), ts[:1]); len(got) != 2 || got[0] != "writers' SLA" || got[1] != "queries' SLA" {
		t.Errorf("labels %q", got)
	}
	if TargetsOf(nil) != nil || TargetsOf(&results.Step{}).Missed() {
		t.Error("a step without targets has a verdict")
	}
	notes := MatrixNotes(append(ts.MissedOnes(), ts.MissedOnes()...))
	if len(notes) != 1 || notes[0] != "SLA✗: the step's paced queries reached less than 95% of their target rate (queries' SLA)." {
		t.Errorf("matrix notes %q", notes)
	}
}
