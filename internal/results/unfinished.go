package results

import (
	"encoding/base64"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/units"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// UnfinishedError is the error a step's placeholder summary carries from its
// start until the step ends: a bundle read with it still there was left by a
// rumbench that was killed (or crashed) during the step.
const UnfinishedError = "unfinished: rumbench stopped during this step (killed or crashed); figures are from its logged intervals"

// Placeholder is the summary written when a step starts, replaced when it
// ends. If rumbench dies in between, readers see the step as incomplete and
// rebuild its figures from the interval log (FillUnfinished).
func Placeholder(step string, desc StepDesc, pct, interval float64, started time.Time) *Step {
	return &Step{Step: step, StepDesc: desc, RatePercentile: pct, Interval: interval,
		Started: started.UTC(), Error: UnfinishedError, Unfinished: true, EngineSize: -1}
}

// fillUnfinished rebuilds an unfinished step's totals from its measured
// (non-warm-up) intervals: counts, rows, errors, seconds, average and
// percentile rates, and latency from the merged histograms, each operation
// by the rules of a finished step (opSummary). Stalls and system metrics
// need the step's end and stay empty.
func (b *Bundle) fillUnfinished(s *Step) {
	type acc struct {
		count, rows, errs int64
		hist              *hdr.Histogram
		rates             []float64
	}
	ops := map[string]*acc{}
	var secs float64
	var n int
	for _, iv := range b.Intervals {
		if iv.Step != s.Step || iv.Warmup {
			continue
		}
		n++
		secs += iv.Seconds
		for name, r := range iv.Ops {
			a := ops[name]
			if a == nil {
				a = &acc{hist: measure.NewHistogram()}
				ops[name] = a
			}
			a.count += r.Ops
			a.rows += r.Rows
			a.errs += r.Errors
			// Intervals without the operation ran at rate 0; the order is
			// kept, as grouped judgement (StepDesc.OpRule) needs it.
			for len(a.rates) < n-1 {
				a.rates = append(a.rates, 0)
			}
			a.rates = append(a.rates, r.Rate)
			if raw, err := base64.StdEncoding.DecodeString(r.Hist); err == nil {
				if h, err := hdr.Decode(raw); err == nil {
					a.hist.Merge(h)
				}
			}
		}
	}
	s.Seconds = units.RoundHalfUp(secs, 3)
	s.Ops = map[string]*OpSummary{}
	s.Latency = map[string]measure.Latency{}
	if s.Details == nil {
		s.Details = map[string]any{}
	}
	s.Details["intervals_logged"] = n
	for name, a := range ops {
		spec := measure.OpSpec{Name: name}
		if k, ok := b.Run.Ops.Lookup(name); ok {
			spec = b.Run.Ops[k]
		}
		rates := append(a.rates, make([]float64, n-len(a.rates))...)
		o := opSummary(spec, a.count, a.rows, a.errs, a.hist, secs, s.OpRule(name, s.Interval).WindowRates(rates), s.RatePercentile)
		s.Latency[name] = o.Latency
		s.Errors += o.Errors
		s.Ops[name] = o
	}
	s.SetLegacyRates()
}
