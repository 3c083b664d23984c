package runner

import (
	"testing"

	"rumbench/internal/results"
)

func TestPromoteDetails(t *testing.T) {
	s := &results.Step{Details: map[string]any{"ips_target": 2000.0, "target_met": false, "rows_per_query": int64(9)}}
	promoteDetails(s)
	if s.IPSTarget == nil || *s.IPSTarget != 2000 || s.TargetMet == nil || *s.TargetMet || s.RowsPerQuery == nil || *s.RowsPerQuery != 9 {
		t.Fatalf("promoted fields: target=%v met=%v rows/query=%v", s.IPSTarget, s.TargetMet, s.RowsPerQuery)
	}
	w := &results.Step{Details: map[string]any{"rows_per_commit": 50}}
	promoteDetails(w)
	if w.IPSTarget != nil || w.TargetMet != nil || w.RowsPerQuery != nil {
		t.Fatal("a write step gained rate-limit fields")
	}
}
