package ibench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/ratesearch"
	"rumbench/internal/results"
	"rumbench/internal/workload"
)

// StepMax is the search for the highest insert rate the engine sustains:
// l.i1's churn (50-row inserts, a deleter per table keeping the size
// constant) paced at a target that ratesearch raises and bisects
// (docs/metrics.md, "The highest sustained rate").
const StepMax = "l.max"

// DefaultSearchStart is l.max's first target, rows/s over all clients.
const DefaultSearchStart = 1000

// maxRate is l.max: the search, one probe after another on the same
// connections, each a paced churn at its target for the settle time and
// the probe's length; the step's details hold the sustained rate and
// every probe.
func (b *Bench) maxRate(ctx context.Context, env *workload.Env) error {
	bs := b.batchSize(churnBigBatch)
	qc := b.qconns
	b.qconns = nil
	if qc == nil {
		if err := b.querySetup(ctx, env); err != nil {
			return err
		}
		qc, b.qconns = b.qconns, nil
	}
	defer func() { qc.close() }() // the last probe's connections
	b.settle()
	cfg, rule := b.cfg.Settings.Config(DefaultSearchStart), b.cfg.Settings.Rule()
	var mu sync.Mutex
	inserted := int64(0)
	first := true
	res, err := ratesearch.Find(ctx, cfg, rule, func(ctx context.Context, target float64) (results.SearchProbe, error) {
		if !first {
			// A session whose context ended is not used again (its I/O
			// was interrupted): each probe runs on fresh connections,
			// opened before its time starts.
			qc.close()
			if err := b.querySetup(ctx, env); err != nil {
				return results.SearchProbe{}, err
			}
			qc, b.qconns = b.qconns, nil
		}
		first = false
		p, n, err := b.probe(ctx, env, qc, target, bs)
		mu.Lock()
		inserted += n
		mu.Unlock()
		env.Logf("probe %.0f rows/s: achieved %.0f, p99 %d µs, %d stalled s", target, p.Achieved, p.P99Us, p.Stalled)
		return p, err
	})
	d := env.Details
	d["sustained_rate"] = res.Sustained
	d["search"] = res
	d["rows_per_commit"] = bs
	d["probe_seconds"] = cfg.ProbeSeconds
	if b.cfg.SLOP99Ms > 0 {
		d["slo_p99_ms"] = b.cfg.SLOP99Ms
	}
	b.growthDetails(d, 0)
	if err == nil && res.Lower == 0 {
		env.Logf("no probe passed: %s", res.Why)
	}
	return err
}

// probe runs the paced churn at target rows/s (all clients together) for
// the settle time and the probe's length, and measures the probe's window:
// rows committed per second (achieved), the writers' p99 response time,
// and its stalled seconds (below half the target). It returns the rows
// inserted too.
func (b *Bench) probe(ctx context.Context, env *workload.Env, qc *queryConns, target float64, bs int) (results.SearchProbe, int64, error) {
	set := b.cfg.Settings
	rate := target / float64(len(b.clients))
	start := time.Now()
	until := measure.FixedDeadline(set.End(start))
	_, windows := set.Windows(start, len(b.clients))
	stats, err := b.pacedRun(ctx, env, qc, noQuery, rate, bs, start, until, windows)
	var n int64
	for _, s := range stats {
		n += s.inserted
	}
	if err != nil {
		return results.SearchProbe{}, n, fmt.Errorf("probe at %.0f rows/s: %w", target, err)
	}
	return set.Measure(target, windows), n, nil
}
