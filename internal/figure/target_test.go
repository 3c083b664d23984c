package figure

import (
	"testing"

	"rumbench/internal/results"
)

func TestTargetVerdictOfAStep(t *testing.T) {
	met, missed := true, false
	target := 1000.0
	for _, c := range []struct {
		name              string
		s                 *results.Step
		word, cell, line  string
		set, missedMarked bool
	}{
		{"no target", &results.Step{}, "", "", "", false, false},
		{"met", &results.Step{TargetMet: &met, IPSTarget: &target, Details: map[string]any{"ips_pct_of_target": 99.14}},
			"ok", "ok 99.1%", "ok: 99.1% of their 1000 rows/s target (ok at 95%)", true, false},
		{"missed", &results.Step{TargetMet: &missed, IPSTarget: &target, Details: map[string]any{"ips_pct_of_target": 81.25}},
			"MISSED", "MISSED 81.2%", "MISSED: 81.2% of their 1000 rows/s target (ok at 95%)", true, true},
		{"missed without its share", &results.Step{TargetMet: &missed}, "MISSED", "MISSED", "", true, true},
	} {
		tg := TargetOf(c.s)
		if tg.Set != c.set || tg.Word() != c.word || tg.Cell() != c.cell || tg.Missed() != c.missedMarked {
			t.Errorf("%s: got set %v word %q cell %q missed %v", c.name, tg.Set, tg.Word(), tg.Cell(), tg.Missed())
		}
		if c.line != "" && tg.Line() != c.line {
			t.Errorf("%s: line %q, want %q", c.name, tg.Line(), c.line)
		}
	}
}

func TestTargetOfAStoredStepReadsTheSameVerdict(t *testing.T) {
	raw := map[string]any{"target_met": false, "ips_target": 1000.0, "ips_pct_of_target": 81.25}
	tg := TargetFrom(raw)
	if !tg.Missed() || tg.Rate != Known(1000) || tg.Cell() != "MISSED 81.2%" {
		t.Errorf("got %+v", tg)
	}
	if TargetFrom(map[string]any{}).Set {
		t.Error("a step without target_met has no verdict")
	}
}
