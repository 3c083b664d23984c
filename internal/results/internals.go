package results

import (
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/units"
)

// SetInternals records the engine's own counters over the step: the
// difference end − start of every counter read both times, and the common
// ones per unit of the step's main operation (none when it did not run).
// A counter that went down (the engine was reset or restarted) is left
// out rather than given a negative count.
func (m *Metrics) SetInternals(sum *Step, start, end model.Internals) {
	diff := func(a, b map[string]float64) map[string]float64 {
		out := map[string]float64{}
		for k, v1 := range b {
			if v0, ok := a[k]; ok && v1 >= v0 {
				out[k] = units.RoundSig(v1 - v0)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	m.EngineCounters = diff(start.Raw, end.Raw)
	m.Internals = diff(start.Common, end.Common)
	m.InternalsScope = end.Scope
	m.SetInternalsPerOp(sum)
}

// SetInternalsPerOp divides the step's internals by its main operation's
// count (a merged step's, after its counts were summed).
func (m *Metrics) SetInternalsPerOp(sum *Step) {
	m.InternalsPerOp = nil
	main := sum.Ops[sum.MainOp]
	if main == nil || main.Done() <= 0 || main.Role == measure.RoleNone || m.Internals == nil {
		return
	}
	m.InternalsPerOp = map[string]float64{}
	for k, v := range m.Internals {
		m.InternalsPerOp[k] = units.RoundSig(v / float64(main.Done()))
	}
}
