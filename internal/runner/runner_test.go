package runner

import (
	"testing"

	"rumbench/internal/results"
)

func TestPromoteDetails(t *testing.T) {
	s := &results.Step{Details: map[string]any{"ips_target": 2000.0, "target_met": false, "rows_per_query": int64(9)}}
	PromoteDetails(s)
	if s.IPSTarget == nil || *s.IPSTarget != 2000 || s.TargetMet == nil || *s.TargetMet || s.RowsPerQuery == nil || *s.RowsPerQuery != 9 {
		t.Fatalf("promoted fields: target=%v met=%v rows/query=%v", s.IPSTarget, s.TargetMet, s.RowsPerQuery)
	}
	w := &results.Step{Details: map[string]any{"rows_per_commit": 50}}
	PromoteDetails(w)
	if w.IPSTarget != nil || w.TargetMet != nil || w.RowsPerQuery != nil {
		t.Fatal("a write step gained rate-limit fields")
	}
}

// target_met is judged on the summary's ips_avg when the workload says by
// how much (target_met_pct), whatever the workload's own earlier figure.
func TestPromoteDetailsJudgesTargetOnIPSAvg(t *testing.T) {
	for _, c := range []struct {
		ipsAvg float64
		want   bool
	}{{186, false}, {190, true}, {200, true}} {
		s := &results.Step{IPSAvg: c.ipsAvg, Details: map[string]any{"ips_target": 200.0, "target_met_pct": 95, "target_met": !c.want}}
		PromoteDetails(s)
		if s.TargetMet == nil || *s.TargetMet != c.want || s.Details["target_met"] != c.want {
			t.Errorf("ips_avg %g of 200 at 95%%: target_met %v / %v, want %v", c.ipsAvg, s.TargetMet, s.Details["target_met"], c.want)
		}
		if got := s.Details["ips_pct_of_target"]; got != c.ipsAvg/2 {
			t.Errorf("ips_avg %g: ips_pct_of_target %v", c.ipsAvg, got)
		}
	}
}
