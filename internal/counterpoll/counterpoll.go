// Package counterpoll reads an engine's own counters (model.Internals) at
// every interval of a step, so the interval log shows the engine's log,
// background writes and cache misses beside each interval's throughput:
// a stall next to the checkpoint or compaction burst that caused it.
//
// The read runs on the interval clock's own thread, after the clock has
// handed the workers fresh recorders, so it never blocks a worker; its CPU
// is the clock's, counted in the sampler's (sampler_cpu_us) and kept out of
// the step's figures. A read may take a quarter of the interval (a server
// query is cancelled then); one that fails or runs over leaves its
// interval without figures (the next read covers both: internals_s says
// how long), and three in a row stop the reads for the rest of the step,
// so the clock keeps its beat.
package counterpoll

import (
	"context"
	"fmt"
	"time"

	"rumbench/internal/model"
	"rumbench/internal/units"
)

// Poller reads one engine's counters at each tick of a step.
type Poller struct {
	read   func(context.Context) (model.Internals, error)
	budget time.Duration
	last   map[string]float64
	lastAt time.Time
	// strikes counts the reads in a row that failed or ran over.
	strikes int
	off     string
}

// maxStrikes is how many failed or slow reads in a row stop the reads.
const maxStrikes = 3

// New returns a Poller for db, or nil when db has no counters cheap enough
// for every interval: an embedded engine's own (in the process), a server
// engine's when it implements model.IntervalInternalsReporter (one round
// trip, no flush).
func New(db model.DB, interval time.Duration) *Poller {
	p := &Poller{budget: max(interval/4, 20*time.Millisecond)}
	if ir, ok := db.(model.IntervalInternalsReporter); ok {
		p.read = ir.IntervalInternals
	} else if ir, ok := db.(model.InternalsReporter); ok && db.Info().Kind == model.Embedded {
		p.read = ir.Internals
	} else {
		return nil
	}
	return p
}

// Start takes the step's baseline read, just before its clock starts.
func (p *Poller) Start(ctx context.Context) {
	p.off, p.last, p.strikes = "", nil, 0
	p.take(ctx, time.Now())
}

// Off says why reads stopped in this step, "" while they go on.
func (p *Poller) Off() string { return p.off }

// Tick reads the counters and returns how much each common one grew since
// the last read that succeeded, and the seconds between the two reads.
// Nothing (nil, 0) when this read failed or reads have stopped; a counter
// that went down (an engine reset) or was not read both times is left out.
func (p *Poller) Tick(ctx context.Context) (map[string]float64, float64) {
	if p.off != "" {
		return nil, 0
	}
	prev, prevAt := p.last, p.lastAt
	if !p.take(ctx, time.Now()) || prev == nil {
		return nil, 0
	}
	return Delta(prev, p.last), p.lastAt.Sub(prevAt).Seconds()
}

// take reads the counters into last; false when the read failed.
func (p *Poller) take(ctx context.Context, at time.Time) bool {
	rctx, cancel := context.WithTimeout(ctx, p.budget)
	defer cancel()
	in, err := p.read(rctx)
	took := time.Since(at)
	var why string
	switch {
	case err != nil:
		why = fmt.Sprintf("failed (%v)", err)
	case took > p.budget:
		why = fmt.Sprintf("took %v, more than the %v allowed per interval", took.Round(time.Microsecond), p.budget)
	}
	if why == "" {
		p.strikes = 0
	} else if p.strikes++; p.strikes >= maxStrikes {
		p.off = fmt.Sprintf("%d reads of the engine's counters in a row failed or ran over, the last %s: no per-interval internals for the rest of the step", p.strikes, why)
	}
	if err != nil {
		return false
	}
	p.last, p.lastAt = in.Common, at
	return true
}

// Delta is b − a for every counter in both that did not go down, rounded
// as the step's figures are; nil when there is none.
func Delta(a, b map[string]float64) map[string]float64 {
	var out map[string]float64
	for k, v1 := range b {
		if v0, ok := a[k]; ok && v1 >= v0 {
			if out == nil {
				out = make(map[string]float64, len(b))
			}
			out[k] = units.RoundSig(v1 - v0)
		}
	}
	return out
}
