package results

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"rumbench/internal/measure"
	"rumbench/internal/units"
)

// A step's summary is computed here and nowhere else: from the clock of a
// step that ran (the runner), from the shards' intervals replayed through a
// clock (merge), and from the logged intervals of a step rumbench never
// finished (the unfinished-step replay, unfinished.go). All three summarise
// each operation with opSummary.

// Summarize turns a stopped clock into a step summary: every operation's
// totals, rates (average and the rate pct% of intervals met) and latency,
// and the stalls of every judged operation under the step's stall rule.
func Summarize(step string, desc StepDesc, c *measure.Clock, pct float64) *Step {
	sum := &Step{
		Step:           step,
		StepDesc:       desc,
		RatePercentile: pct,
		Started:        c.MeasuredStart().UTC(),
		Seconds:        units.RoundHalfUp(c.Seconds(), 3),
		Interval:       c.Interval().Seconds(),
		Latency:        map[string]measure.Latency{},
		Ops:            map[string]*OpSummary{},
	}
	secs := c.Seconds()
	for i, spec := range c.Ops() {
		op := measure.Op(i)
		rule := desc.OpRule(spec.Name, c.Interval().Seconds())
		t := c.Total(op)
		main := spec.Name == desc.MainOp
		if t == nil && !(main && rule.Timed) {
			continue
		}
		if t != nil {
			// Over the windows the stall rule judges: a paced operation's
			// intervals shorter than its batch period are grouped.
			o := opSummary(spec, t.Ops, t.Rows, t.Errors, t.Hist, secs, rule.WindowRates(c.Rates(op)), pct)
			sum.Latency[spec.Name] = o.Latency
			sum.Errors += t.Errors
			sum.Ops[spec.Name] = o
		}
		// Judged operations that ran, and the main operation of a
		// time-bounded step even when it never ran: it stalled for the
		// whole window.
		if spec.Judged() {
			st := measure.FindStalls(c.Rates(op), c.RateSeconds(), rule)
			if sum.Stalls == nil {
				sum.Stalls = Stalls{}
			}
			sum.Stalls[spec.Name] = &st
		}
	}
	sum.SetLegacyRates()
	return sum
}

// opSummary is one operation's figures in a step of secs measured seconds:
// its totals, its latency (from hist), its average rate (not for a response
// twin, which has no rate of its own) and, for a judged operation, the rate
// that pct% of its judged windows (windowRates, in the step's order) met.
// Operations without a role (an index build) record one event per table: a
// rate percentile would mean nothing. A percentile of 0 asks for none.
func opSummary(spec measure.OpSpec, count, rows, errs int64, hist *hdr.Histogram, secs float64, windowRates []float64, pct float64) *OpSummary {
	o := &OpSummary{Unit: spec.Unit, Role: spec.Role, Count: count, Rows: rows, Errors: errs, Latency: measure.Summarize(hist)}
	if spec.ResponseOf == "" {
		avg := 0.0
		if secs > 0 {
			avg = float64(o.Done()) / secs
		}
		avg = units.RoundHalfUp(avg, 1)
		o.RateAvg = &avg
	}
	if spec.Judged() && pct > 0 {
		p := units.RoundHalfUp(measure.RateMetBy(windowRates, pct), 1)
		o.RatePct = &p
		if pct == 99 {
			o.Rate99 = &p
		}
	}
	return o
}
