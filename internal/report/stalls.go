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
	// Rate is rows/s (inserts, deletes) or queries/s (queries).
	Rate    float64
	P99Ms   float64
	MaxMs   float64
	Present bool // the operation ran in this interval
	Stalled bool
}

// stepIntervals returns the interval records of one step, in order.
func stepIntervals(all []results.IntervalRecord, step string) []results.IntervalRecord {
	var out []results.IntervalRecord
	for _, r := range all {
		if r.Step == step {
			out = append(out, r)
		}
	}
	return out
}

// opSeries turns a step's intervals into one operation's series, with stalls
// marked (design §5: rate below 50% of the step median, or no progress).
// It returns nil when the operation never ran in the step.
func opSeries(ivs []results.IntervalRecord, op string) []IntervalPoint {
	if len(ivs) == 0 {
		return nil
	}
	any := false
	t0 := ivs[0].StartMs
	pts := make([]IntervalPoint, 0, len(ivs))
	for _, iv := range ivs {
		p := IntervalPoint{T: float64(iv.StartMs-t0)/1000 + iv.Seconds, Seconds: iv.Seconds}
		if o, ok := iv.Ops[op]; ok && o.Ops > 0 {
			any = true
			p.Present = true
			n := o.Rows
			if op == "query" {
				n = o.Ops // QPS counts queries, not the rows they return
			}
			if iv.Seconds > 0 {
				p.Rate = float64(n) / iv.Seconds
			}
			p.P99Ms = float64(o.P99) / 1000
			p.MaxMs = float64(o.Max) / 1000
		}
		pts = append(pts, p)
	}
	if !any {
		return nil
	}
	// Same rule as the step summaries (measure.FindStalls): intervals after
	// the last progress are the operation having finished, not a stall.
	n := len(pts)
	for n > 0 && pts[n-1].Rate <= 0 {
		n--
	}
	rates := make([]float64, 0, n)
	for _, p := range pts[:n] {
		rates = append(rates, p.Rate)
	}
	med := measure.Median(rates)
	for i := range pts[:n] {
		if measure.IsStall(pts[i].Rate, med) {
			pts[i].Stalled = true
		}
	}
	return pts
}

// intervalStall computes a step's stalls of op from its interval log, for
// bundles whose step summaries do not carry them.
func intervalStall(ivs []results.IntervalRecord, op string) *Stall {
	pts := opSeries(ivs, op)
	if pts == nil {
		return nil
	}
	st := &Stall{Source: "intervals"}
	run := 0.0
	for _, p := range pts {
		if !p.Stalled {
			run = 0
			continue
		}
		if run == 0 {
			st.Count++ // a stall is a run of consecutive stalled intervals
		}
		run += p.Seconds
		st.Seconds += p.Seconds
		if run > st.LongestS {
			st.LongestS = run
		}
	}
	return st
}
