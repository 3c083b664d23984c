package figure

import (
	"fmt"
	"slices"
	"strings"

	"rumbench/internal/measure"
	"rumbench/internal/results"
)

// Target is the verdict on one paced operation's rate target in a step
// (results.Target: the operation, its target rate over all clients, the
// rate it reached, met at ≥ 95%). The insert benchmark's writers' SLA is
// one: a query step's writers must insert at least 95% of their target
// rate, or its query rate was bought by starving the writes; --query-rate's
// queries and LinkBench's --request-rate requests are others. Every view
// prints a target from here: the run's live end line, the run's step
// summary, the report's step tables, throughput summary and JSON, and the
// sweep matrices.
type Target struct {
	// Op is the paced operation; Who its workers in the plural, as the
	// views name them ("writers' SLA").
	Op, Who string
	Unit    measure.Unit
	Met     bool
	// Rate is the target rate (Unit per second, all clients), Achieved
	// the operation's rate over the step, PctOf that in % of Rate.
	Rate, Achieved, PctOf Value
}

// Targets are a step's targets, in the order its workload declared them.
type Targets []Target

// TargetsOf are step s's targets (none for a step that paced nothing). A
// bundle written before results.Step.Targets has its writers' target
// there when read (results.Read), so every bundle reads the same way.
func TargetsOf(s *results.Step) Targets {
	if s == nil {
		return nil
	}
	var out Targets
	for _, t := range s.Targets {
		out = append(out, TargetOf(t))
	}
	return out
}

// TargetOf is the view of one recorded target: a rate of 0 (a bundle that
// recorded a verdict without its target) is unavailable.
func TargetOf(t results.Target) Target {
	v := Target{Op: t.Op, Who: t.Who, Unit: t.Unit, Met: t.Met, Achieved: Known(t.Achieved), PctOf: Ptr(t.PctOf)}
	if t.Rate > 0 {
		v.Rate = Known(t.Rate)
	}
	return v
}

// Missed reports whether any of the targets was missed.
func (ts Targets) Missed() bool {
	for _, t := range ts {
		if !t.Met {
			return true
		}
	}
	return false
}

// Of is the target of operation op, if the step paced it.
func (ts Targets) Of(op string) (Target, bool) {
	for _, t := range ts {
		if t.Op == op {
			return t, true
		}
	}
	return Target{}, false
}

// Labels are the targets' labels, each once, in the order of first
// appearance over steps (a summary's verdict columns).
func Labels(steps ...Targets) []string {
	var out []string
	seen := map[string]bool{}
	for _, ts := range steps {
		for _, t := range ts {
			if l := t.Label(); !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// WithLabel is the target labelled l, if any.
func (ts Targets) WithLabel(l string) (Target, bool) {
	for _, t := range ts {
		if t.Label() == l {
			return t, true
		}
	}
	return Target{}, false
}

// Missed reports whether the target was missed.
func (t Target) Missed() bool { return !t.Met }

// Word is the verdict: ok or MISSED.
func (t Target) Word() string {
	if t.Met {
		return "ok"
	}
	return "MISSED"
}

// Label names the target in a column head or a line: "writers' SLA".
func (t Target) Label() string {
	who := t.Who
	if who == "" {
		who = t.Op
	}
	if strings.HasSuffix(who, "s") {
		return who + "' SLA"
	}
	return who + "'s SLA"
}

// UnitLabel is the unit of the target rate: "rows/s", or the operation
// per second ("requests/s").
func (t Target) UnitLabel() string {
	if t.Unit == measure.UnitRows {
		return "rows/s"
	}
	return Plural(t.Op) + "/s"
}

// Cell is the verdict with the share of the target reached ("MISSED
// 81.2%"), for the run's step summary.
func (t Target) Cell() string {
	if t.PctOf.OK {
		return fmt.Sprintf("%s %.1f%%", t.Word(), t.PctOf.V)
	}
	return t.Word()
}

// Line is the verdict as a step's end line says it after the label: "ok:
// 99.1% of their 1000 rows/s target (ok at 95%)".
func (t Target) Line() string {
	return fmt.Sprintf("%s: %.1f%% of their %.0f %s target (ok at %.0f%%)", t.Word(), t.PctOf.V, t.Rate.V, t.UnitLabel(), results.TargetMetPct)
}

// SummaryNote explains a step summary's verdict column headed label.
func SummaryNote(label string) string {
	if label == writersLabel {
		return "writers' SLA: a query step's paced writers' insert rate in % of their target; ok at 95% or more, else MISSED (the query rate was bought by starving the writes)."
	}
	return fmt.Sprintf("%s: the paced operation's rate in %% of its target; ok at %.0f%% or more, else MISSED.", label, results.TargetMetPct)
}

// MissedNote explains MissedMark after a figure whose step missed target
// t, in the report's throughput summary; for the insert benchmark's
// writers it is the SLA's own wording.
func MissedNote(t Target) string {
	if t.Label() == writersLabel {
		return "SLA✗: the query step's paced writers inserted less than 95% of their target rate: its query rate was bought by starving the writes (the insert benchmark's SLA; the step's table says by how much)."
	}
	return fmt.Sprintf("SLA✗: the step's paced %s reached less than %.0f%% of their target rate (%s; the step's table says by how much).", t.Who, results.TargetMetPct, t.Label())
}

// MissedOnes are the targets that were missed.
func (ts Targets) MissedOnes() Targets {
	var out Targets
	for _, t := range ts {
		if t.Missed() {
			out = append(out, t)
		}
	}
	return out
}

// MatrixNotes explain MissedMark in a sweep's matrix whose cells missed
// targets missed: one note per kind of target.
func MatrixNotes(missed Targets) []string {
	var out []string
	for _, t := range missed {
		if n := matrixNote(t); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func matrixNote(t Target) string {
	if t.Label() == writersLabel {
		return "SLA✗: the step's paced writers inserted less than 95% of their target rate (a query step's writers' SLA)."
	}
	return fmt.Sprintf("SLA✗: the step's paced %s reached less than %.0f%% of their target rate (%s).", t.Who, results.TargetMetPct, t.Label())
}

// writersLabel is the insert benchmark's writers' SLA, whose notes keep
// the wording its reports have always had.
const writersLabel = "writers' SLA"

// MissedMark follows a figure of a step that missed a target in a summary
// cell (the report's throughput summary, a sweep matrix).
const MissedMark = " SLA✗"
