package ibench

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"rumbench/internal/measure"
	"rumbench/internal/ratesearch"
	"rumbench/internal/workload"
)

// StepMax is the search for the highest insert rate the engine sustains:
// l.i1's churn (50-row inserts, a deleter per table keeping the size
// constant) paced at a target that ratesearch raises and bisects
// (docs/metrics.md, "The highest sustained rate").
const StepMax = "l.max"

// Defaults of the search.
const (
	DefaultProbeSeconds  = 10
	DefaultSettleSeconds = 2
	DefaultSearchStart   = 1000
	DefaultMaxSeconds    = 600
	// stallShare: a probe second below this share of the target stalled.
	stallShare = 0.5
)

// probeRec is one writer's record of a probe's measured window: its
// response times (from the intended start) and its rows per second. Only
// its writer writes it; it is read after the probe.
type probeRec struct {
	from, to time.Time
	hist     *hdr.Histogram
	perSec   []int64
}

func newProbeRec(from time.Time, secs float64) *probeRec {
	return &probeRec{from: from, to: from.Add(time.Duration(secs * float64(time.Second))),
		hist: hdr.New(1, int64(time.Hour/time.Microsecond), 3), perSec: make([]int64, int(math.Ceil(secs)))}
}

func (p *probeRec) record(done time.Time, lat time.Duration, rows int64) {
	if done.Before(p.from) || !done.Before(p.to) {
		return
	}
	p.hist.RecordValue(max(lat.Microseconds(), 1))
	if i := int(done.Sub(p.from) / time.Second); i < len(p.perSec) {
		p.perSec[i] += rows
	}
}

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
	defer qc.close()
	b.settle()
	cfg := b.searchConfig()
	rule := ratesearch.Rule{SLOP99: time.Duration(b.cfg.SLOP99Ms * float64(time.Millisecond))}
	var mu sync.Mutex
	inserted := int64(0)
	res, err := ratesearch.Find(ctx, cfg, rule, func(ctx context.Context, target float64) (ratesearch.Probe, error) {
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
	d["probe_seconds"] = b.probeSeconds()
	d["settle_seconds"] = b.settleSeconds()
	if b.cfg.SLOP99Ms > 0 {
		d["slo_p99_ms"] = b.cfg.SLOP99Ms
	}
	b.growthDetails(d, 0)
	if err == nil && res.Lower == 0 {
		env.Logf("no probe passed: %s", res.Why)
	}
	return err
}

func (b *Bench) probeSeconds() float64 {
	if b.cfg.ProbeSeconds > 0 {
		return b.cfg.ProbeSeconds
	}
	return DefaultProbeSeconds
}

func (b *Bench) settleSeconds() float64 {
	if b.cfg.SettleSeconds > 0 {
		return b.cfg.SettleSeconds
	}
	return DefaultSettleSeconds
}

func (b *Bench) searchConfig() ratesearch.Config {
	start, maxS := b.cfg.SearchStart, b.cfg.MaxSeconds
	if start <= 0 {
		start = DefaultSearchStart
	}
	if maxS <= 0 {
		maxS = DefaultMaxSeconds
	}
	return ratesearch.Config{Start: start, Precision: 0.05, ProbeSeconds: b.probeSeconds() + b.settleSeconds(),
		Deadline: time.Now().Add(time.Duration(maxS * float64(time.Second)))}
}

// probe runs the paced churn at target rows/s (all clients together) for
// the settle time and the probe's length, and measures the probe's window:
// rows committed per second (achieved), the writers' p99 response time,
// and its stalled seconds (below half the target). It returns the rows
// inserted too.
func (b *Bench) probe(ctx context.Context, env *workload.Env, qc *queryConns, target float64, bs int) (ratesearch.Probe, int64, error) {
	settle, secs := b.settleSeconds(), b.probeSeconds()
	rate := target / float64(len(b.clients))
	start := time.Now()
	until := measure.FixedDeadline(start.Add(time.Duration((settle + secs) * float64(time.Second))))
	from := start.Add(time.Duration(settle * float64(time.Second)))
	probes := make([]*probeRec, len(b.clients))
	for i := range probes {
		probes[i] = newProbeRec(from, secs)
	}
	stats, err := b.pacedRun(ctx, env, qc, noQuery, rate, bs, start, until, probes)
	var n int64
	for _, s := range stats {
		n += s.inserted
	}
	if err != nil {
		return ratesearch.Probe{}, n, fmt.Errorf("probe at %.0f rows/s: %w", target, err)
	}
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	perSec := make([]int64, len(probes[0].perSec))
	var rows int64
	for _, p := range probes {
		h.Merge(p.hist)
		for i, v := range p.perSec {
			perSec[i] += v
			rows += v
		}
	}
	p := ratesearch.Probe{Achieved: float64(rows) / secs, P99Us: h.ValueAtQuantile(99), Seconds: settle + secs}
	// Whole seconds only: a last partial one is not judged.
	for i := 0; i < int(secs); i++ {
		if float64(perSec[i]) < stallShare*target {
			p.Stalled++
		}
	}
	return p, n, nil
}
