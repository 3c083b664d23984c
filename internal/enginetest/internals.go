package enginetest

import (
	"fmt"
	"testing"

	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/sysmetrics"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

// Bounds is a closed range a figure must fall in.
type Bounds struct{ Lo, Hi float64 }

// Internals runs the load (l.i0, rows per client as the write-step test)
// on the target with the system-metrics sampler and checks the engine's own
// counters over it (metrics.engine_counters, internals, internals_per_op):
// each common figure in perInsert must be recorded and within its bounds per
// inserted row, and so must each raw counter in rawPerInsert (the engine's
// name, engine_counters). It returns the step for the caller's own checks.
func Internals(t *testing.T, tg Target, perInsert, rawPerInsert map[string]Bounds) *results.Step {
	t.Helper()
	c := tg.cfg(ibench.StepLoad)
	b := runWorkload(t, tg, c.Seed, c, func() (workload.Workload, error) { return ibench.New(c) },
		fmt.Sprintf("run %v", c.Steps), sysmetrics.Factory(nil))
	s := mustStep(t, b, ibench.StepLoad)
	m := s.Metrics
	if m == nil {
		t.Fatal("l.i0: no metrics")
	}
	inserted := s.Ops["insert"].Done()
	if want := int64(clients) * c.Rows; inserted != want {
		t.Fatalf("l.i0 inserted %d rows, want %d", inserted, want)
	}
	t.Logf("l.i0 %d rows: internals %v per insert %v (%s); raw %v", inserted, m.Internals, m.InternalsPerOp, m.InternalsScope, m.EngineCounters)
	for name, bd := range perInsert {
		v, ok := m.InternalsPerOp[name]
		if !ok {
			t.Errorf("internals_per_op.%s not recorded (have %v)", name, m.InternalsPerOp)
			continue
		}
		if v < bd.Lo || v > bd.Hi {
			t.Errorf("internals_per_op.%s = %g per inserted row, want in [%g, %g]", name, v, bd.Lo, bd.Hi)
		}
		if tot := m.Internals[name]; tot/float64(inserted) < v*0.999 || tot/float64(inserted) > v*1.001 {
			t.Errorf("internals_per_op.%s = %g is not internals.%s %g / %d rows", name, v, name, tot, inserted)
		}
	}
	for name, bd := range rawPerInsert {
		got, ok := m.EngineCounters[name]
		if !ok {
			t.Errorf("engine_counters.%s not recorded", name)
			continue
		}
		if v := got / float64(inserted); v < bd.Lo || v > bd.Hi {
			t.Errorf("engine_counters.%s = %g: %g per inserted row, want in [%g, %g]", name, got, v, bd.Lo, bd.Hi)
		}
	}
	checkIntervalInternals(t, tg, b, s)
	return s
}

// checkIntervalInternals: an embedded engine's counters are read at every
// interval (counterpoll), and the log they show over the step's intervals
// adds up to the step's, less what the engine wrote after the clock
// stopped (the end-of-step flush).
func checkIntervalInternals(t *testing.T, tg Target, b *results.Bundle, s *results.Step) {
	t.Helper()
	if tg.DSN != "" {
		return
	}
	var logKB, span float64
	n := 0
	for _, iv := range b.Intervals {
		if iv.Step != s.Step || iv.Internals == nil {
			continue
		}
		n++
		logKB += iv.Internals[model.InternalLogKB]
		span += iv.InternalsSeconds
	}
	step := s.Metrics.Internals[model.InternalLogKB]
	t.Logf("%d intervals with internals over %.3f s: log %g KB, the step's %g KB", n, span, logKB, step)
	if n == 0 {
		t.Fatal("no interval carries the engine's counters")
	}
	if logKB > step*1.0001 || logKB < step*0.5 {
		t.Errorf("the intervals' log_kb adds up to %g, the step's is %g", logKB, step)
	}
}
