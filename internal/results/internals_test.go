package results

import (
	"testing"

	"rumbench/internal/measure"
	"rumbench/internal/model"
)

// TestSetInternals: the step's internals are end − start of the counters
// read both times, a counter that went down is left out, and the per-op
// figures divide by the main operation's count.
func TestSetInternals(t *testing.T) {
	sum := &Step{StepDesc: StepDesc{MainOp: "insert"}, Ops: map[string]*OpSummary{"insert": {Role: measure.RoleWrite, Unit: measure.UnitOps, Count: 400}}}
	start := model.Internals{Raw: map[string]float64{"a": 10, "b": 5, "gone": 1}, Common: map[string]float64{model.InternalLogKB: 100, model.InternalCacheMiss: 50}}
	end := model.Internals{Raw: map[string]float64{"a": 30, "b": 2, "new": 9}, Common: map[string]float64{model.InternalLogKB: 300, model.InternalCacheMiss: 50}, Scope: "server"}
	m := &Metrics{}
	m.SetInternals(sum, start, end)
	if len(m.EngineCounters) != 1 || m.EngineCounters["a"] != 20 {
		t.Errorf("engine_counters = %v, want only a: 20 (b went down, gone and new were read once)", m.EngineCounters)
	}
	if m.Internals[model.InternalLogKB] != 200 || m.Internals[model.InternalCacheMiss] != 0 || m.InternalsScope != "server" {
		t.Errorf("internals = %v (%q), want log_kb 200, cache_miss 0, scope server", m.Internals, m.InternalsScope)
	}
	if m.InternalsPerOp[model.InternalLogKB] != 0.5 || m.InternalsPerOp[model.InternalCacheMiss] != 0 {
		t.Errorf("internals_per_op = %v, want log_kb 200/400 = 0.5, cache_miss 0", m.InternalsPerOp)
	}
	sum.Ops["insert"].Count = 0
	m.SetInternals(sum, start, end)
	if m.InternalsPerOp != nil {
		t.Errorf("no inserts done: internals_per_op = %v, want none", m.InternalsPerOp)
	}
}
