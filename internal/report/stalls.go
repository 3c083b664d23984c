package report

import (
	"rumbench/internal/measure"
	"rumbench/internal/results"
)

// IntervalPoint is one interval's figures for one operation.
type IntervalPoint struct {
	// T is the end of the interval, seconds since the step's first interval began.
	T       float64
	Seconds float64
	// Rate is in the operation's unit: rows/s or operations/s.
	Rate    float64
	P99Ms   float64
	MaxMs   float64
	Present bool // the operation ran in this interval
	Stalled bool
	// Short: the interval is too short to judge (usually the step's last,
	// partial one): its rate is left out of rate charts.
	Short bool
}

// stepIntervals returns the interval records of one step, in order.
func stepIntervals(all []results.IntervalRecord, step string) []results.IntervalRecord {
	var out []results.IntervalRecord
	for _, r := range all {
		if r.Step == step && !r.Warmup {
			out = append(out, r)
		}
	}
	return out
}

// nominalInterval is the step's clock interval, seconds: recorded in the
// summary, else the longest interval logged.
func nominalInterval(s *results.Step, ivs []results.IntervalRecord) float64 {
	if s != nil && s.Interval > 0 {
		return s.Interval
	}
	longest := 0.0
	for _, iv := range ivs {
		longest = max(longest, iv.Seconds)
	}
	return longest
}

// stallRule is the stall rule of op in the step, from its recorded
// description.
func stallRule(s *results.Step, op string) measure.StallRule {
	if s == nil {
		return measure.StallRule{}
	}
	return s.OpRule(op, s.Interval)
}

// opSeries turns a step's intervals into one operation's series, with
// stalls marked by measure.StallMarks under the step's rule, judging the
// intervals the clock judged (all but a final one shorter than half the
// nominal interval). It returns nil when the operation never ran in the
// step and the rule does not judge it anyway.
func opSeries(ivs []results.IntervalRecord, spec measure.OpSpec, rule measure.StallRule, nominal float64) []IntervalPoint {
	if len(ivs) == 0 {
		return nil
	}
	ran := false
	t0 := ivs[0].StartMs
	pts := make([]IntervalPoint, 0, len(ivs))
	var judged []int
	var rates []float64
	for i, iv := range ivs {
		p := IntervalPoint{T: float64(iv.StartMs-t0)/1000 + iv.Seconds, Seconds: iv.Seconds}
		if o, ok := iv.Ops[spec.Name]; ok && o.Ops > 0 {
			ran = true
			p.Present = true
			n := o.Rows
			if spec.Unit == measure.UnitOps {
				n = o.Ops - o.Errors
			}
			if iv.Seconds > 0 {
				p.Rate = float64(n) / iv.Seconds
			}
			p.P99Ms = float64(o.P99) / 1000
			p.MaxMs = float64(o.Max) / 1000
		}
		p.Short = !measure.Judged(iv.Seconds, nominal, i == 0)
		pts = append(pts, p)
		if !p.Short {
			judged = append(judged, i)
			rates = append(rates, p.Rate)
		}
	}
	if !ran && !rule.Timed {
		return nil
	}
	for k, m := range measure.StallMarks(rates, rule) {
		pts[judged[k]].Stalled = m
	}
	return pts
}

// intervalStall computes a step's stalls of an operation from its interval
// log, for bundles whose step summaries do not carry them.
func intervalStall(ivs []results.IntervalRecord, spec measure.OpSpec, s *results.Step) *Stall {
	pts := opSeries(ivs, spec, stallRule(s, spec.Name), nominalInterval(s, ivs))
	if pts == nil {
		return nil
	}
	marks := make([]bool, len(pts))
	secs := make([]float64, len(pts))
	for i, p := range pts {
		marks[i], secs[i] = p.Stalled, p.Seconds
	}
	st := measure.SummarizeMarks(marks, secs)
	return &Stall{Count: st.Count, Seconds: st.Seconds, LongestS: st.LongestS, Source: "intervals"}
}

// unitLabel is how an operation's rate is printed.
func unitLabel(spec measure.OpSpec) string { return spec.UnitLabel() }

// IntervalStallMarks returns, for each interval record of a step, whether
// the report's charts mark it stalled for op: the chart markers, exposed so
// tests can hold them against the step summary and the live line.
func IntervalStallMarks(recs []results.IntervalRecord, s *results.Step, spec measure.OpSpec) []bool {
	pts := opSeries(recs, spec, stallRule(s, spec.Name), nominalInterval(s, recs))
	out := make([]bool, len(recs))
	for i, p := range pts {
		out[i] = p.Stalled
	}
	return out
}
