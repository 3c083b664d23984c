package results

import (
	"rumbench/internal/measure"
	"rumbench/internal/units"
)

// TargetMetPct is the share of its target rate a paced operation must reach
// over the measured step to meet it (the insert benchmark's SLA: ≥ 95%).
const TargetMetPct = 95.0

// Target is one paced operation's rate target in a step and the verdict on
// it. A workload that paces an operation on a schedule declares the target
// (Op, Who, Rate: PacedOp); the step's summary judges it on the operation's
// own average rate (JudgeTargets), the one verdict every view prints.
type Target struct {
	// Op is the paced operation (one of the run's operations: the insert
	// benchmark's writers pace "insert", --query-rate "query", LinkBench's
	// --request-rate "request").
	Op string `json:"op"`
	// Who names the paced workers in the plural ("writers", "queries",
	// "requests"): views say "writers' SLA".
	Who string `json:"who"`
	// Unit is what the operation's rate counts (rows or operations).
	Unit measure.Unit `json:"unit"`
	// Rate is the target (Unit per second, all of the step's clients
	// together); Achieved the operation's average rate over the measured
	// step (OpSummary.RateAvg; 0 when it never ran).
	Rate     float64 `json:"rate"`
	Achieved float64 `json:"achieved"`
	// PctOf is Achieved in % of Rate, rounded half up to 0.1; nil when a
	// bundle recorded no share (read back from an early version 1 bundle).
	PctOf *float64 `json:"pct_of_target,omitempty"`
	// MetAtPct is the share that meets the target (TargetMetPct); Met the
	// verdict: Achieved ≥ Rate × MetAtPct / 100.
	MetAtPct float64 `json:"met_at_pct"`
	Met      bool    `json:"met"`
}

// PacedOp is the target a workload declares for an operation it paces:
// rate in the operation's unit per second over all the step's clients.
func PacedOp(op, who string, rate float64) Target {
	return Target{Op: op, Who: who, Rate: rate}
}

// JudgeTargets sets the step's targets from those its workload declared
// (one per operation, in the order declared: a later one for the same
// operation replaces the earlier; a rate of 0 is no target), each judged
// on its operation's average rate in the summary, and the version 1 fields
// of the writers' target (SetLegacyTarget). ops are the run's operations
// (the unit of an operation that never ran). A step is judged once, after
// its clock stopped (the runner) or its shards' rates were merged (merge).
func (s *Step) JudgeTargets(declared []Target, ops measure.Ops) {
	s.Targets = nil
	for _, d := range declared {
		if d.Op == "" || !(d.Rate > 0) {
			continue
		}
		t := Target{Op: d.Op, Who: d.Who, Unit: d.Unit, Rate: d.Rate, MetAtPct: TargetMetPct}
		if i, ok := ops.Lookup(d.Op); ok {
			t.Unit = ops[i].Unit
		}
		if o := s.Ops[d.Op]; o != nil {
			t.Unit = o.Unit
			if o.RateAvg != nil {
				t.Achieved = *o.RateAvg
			}
		}
		if t.Unit == "" {
			t.Unit = measure.UnitOps
		}
		if t.Who == "" {
			t.Who = d.Op
		}
		pct := units.RoundHalfUp(t.Achieved/t.Rate*1000, 0) / 10
		t.PctOf = &pct
		t.Met = t.Achieved >= t.Rate*t.MetAtPct/100
		s.setTarget(t)
	}
	s.SetLegacyTarget()
}

// setTarget adds t, or replaces the target of the same operation in place.
func (s *Step) setTarget(t Target) {
	for i := range s.Targets {
		if s.Targets[i].Op == t.Op {
			s.Targets[i] = t
			return
		}
	}
	s.Targets = append(s.Targets, t)
}

// MergeTargets adds up the targets of a step's parts (shards) by operation:
// each part's clients had their own share of the rate. The sum is to be
// judged again on the merged rates (JudgeTargets).
func MergeTargets(parts []*Step) []Target {
	var out []Target
	for _, p := range parts {
		for _, t := range p.Targets {
			found := false
			for i := range out {
				if out[i].Op == t.Op {
					out[i].Rate += t.Rate
					found = true
					break
				}
			}
			if !found {
				out = append(out, Target{Op: t.Op, Who: t.Who, Unit: t.Unit, Rate: t.Rate})
			}
		}
	}
	return out
}
