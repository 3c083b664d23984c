package figure

import (
	"fmt"

	"rumbench/internal/results"
)

// Target is a step's verdict on its paced writers' rate target (the
// insert benchmark's writers' SLA: a query step's writers must insert at
// least 95% of their target rate, or its query rate was bought by starving
// the writes). The verdict is the step summary's (results.Step.TargetMet,
// judged on its ips_avg); every view prints it from here: the run's live
// end line, the run's step summary, the report's step tables and
// throughput summary, and the sweep matrices.
type Target struct {
	// Set: the step has a target verdict (a rate-limited step).
	Set bool
	Met bool
	// Rate is the writers' total target rate (rows/s); PctOf their rate
	// in % of it.
	Rate, PctOf Value
}

// TargetOf is step s's target verdict; not Set for a step without a target.
func TargetOf(s *results.Step) Target {
	if s == nil || s.TargetMet == nil {
		return Target{}
	}
	return Target{Set: true, Met: *s.TargetMet, Rate: Ptr(s.IPSTarget), PctOf: Num(s.Details, "ips_pct_of_target")}
}

// TargetFrom is the target verdict of a step's JSON object as stored (a
// report's step of an earlier bundle).
func TargetFrom(raw map[string]any) Target {
	met, ok := raw["target_met"].(bool)
	return Target{Set: ok, Met: met, Rate: Num(raw, "ips_target"), PctOf: Num(raw, "ips_pct_of_target")}
}

// Missed reports whether the step has a target and missed it.
func (t Target) Missed() bool { return t.Set && !t.Met }

// Word is the verdict: ok or MISSED ("" without a target).
func (t Target) Word() string {
	switch {
	case !t.Set:
		return ""
	case t.Met:
		return "ok"
	}
	return "MISSED"
}

// Cell is the verdict with the share of the target the writers reached
// ("MISSED 81.2%"), for the run's step summary.
func (t Target) Cell() string {
	if t.Set && t.PctOf.OK {
		return fmt.Sprintf("%s %.1f%%", t.Word(), t.PctOf.V)
	}
	return t.Word()
}

// Line is the verdict as a step's end line says it: "ok: 99.1% of their
// 1000 rows/s target (ok at 95%)".
func (t Target) Line() string {
	return fmt.Sprintf("%s: %.1f%% of their %.0f rows/s target (ok at 95%%)", t.Word(), t.PctOf.V, t.Rate.V)
}

// MissedMark follows a figure of a step whose writers missed their target
// in a summary cell (the report's throughput summary, a sweep matrix).
const MissedMark = " SLA✗"

// TargetHeader heads the run's step summary's verdict column.
const TargetHeader = "writers' SLA"
