package results

import (
	"fmt"

	"rumbench/internal/measure"
	"rumbench/internal/units"
)

// SetPerOp derives the per-operation figures (docs/metrics.md) from the
// step totals in m, for the system-metrics sampler and for merge alike: the
// step's main operation gets every figure (all of the step's CPU, IO,
// flushes and context switches divided by its count: rows or operations,
// by its unit), each other write operation gets KB written per unit. An
// index build or other role-less main operation gets none. Client figures
// are set when the client's CPU was measured apart (ClientCPUUs).
func (m *Metrics) SetPerOp(sum *Step) {
	if m.NullReasons == nil {
		m.NullReasons = map[string]string{}
	}
	null := func(name, why string) { m.NullReasons[name] = why }
	for _, k := range []string{"per_op", "client_cpu_us_per_op", "cpu_us_per_insert", "cs_per_insert", "reads_per_insert", "rkb_per_insert", "cpu_us_per_query", "rkb_per_query"} {
		delete(m.NullReasons, k)
	}
	div := func(v *float64, n int64) *float64 {
		if v == nil || n <= 0 {
			return nil
		}
		x := units.RoundSig(*v / float64(n))
		return &x
	}
	f := func(v *int64) *float64 {
		if v == nil {
			return nil
		}
		x := float64(*v)
		return &x
	}
	m.PerOp = map[string]*OpCost{}
	main := sum.Ops[sum.MainOp]
	switch {
	case main == nil:
		null("per_op", fmt.Sprintf("the step's main operation %s did not run", sum.MainOp))
	case main.Role == measure.RoleNone:
		null("per_op", fmt.Sprintf("the step's main operation %s is neither a read nor a write", sum.MainOp))
	case main.Done() <= 0:
		null("per_op", fmt.Sprintf("no %s completed", sum.MainOp))
	default:
		n := main.Done()
		m.PerOp[sum.MainOp] = &OpCost{
			CPUUs: div(f(m.CPUUs), n), CPUUserUs: div(f(m.CPUUserUs), n), CPUSysUs: div(f(m.CPUSysUs), n),
			WKB: div(m.DevWKB, n), RKB: div(m.DevRKB, n), Reads: div(f(m.DevReads), n),
			Flushes: div(f(m.DevFlushes), n), CS: div(f(m.ContextSwitches), n),
			MinFlt: div(f(m.MinorFaults), n), MajFlt: div(f(m.MajorFaults), n),
			ClientCPUUs: div(f(m.ClientCPUUs), n), ClientCPUUserUs: div(f(m.ClientCPUUserUs), n), ClientCPUSysUs: div(f(m.ClientCPUSysUs), n),
		}
	}
	for name, o := range sum.Ops {
		if name == sum.MainOp || o.Role != measure.RoleWrite || o.Done() <= 0 {
			continue
		}
		m.PerOp[name] = &OpCost{WKB: div(m.DevWKB, o.Done())}
	}
	m.ClientCPUUsPerOp = nil
	if c := m.PerOp[sum.MainOp]; c != nil {
		m.ClientCPUUsPerOp = c.ClientCPUUs
	}
	if m.ClientCPUUsPerOp == nil {
		if why := m.NullReasons["client_cpu_us"]; why != "" {
			null("client_cpu_us_per_op", why)
		} else {
			null("client_cpu_us_per_op", "the step's main operation has no per-operation figures")
		}
	}
	m.SetLegacyPerOp(sum.MainOp)
}
