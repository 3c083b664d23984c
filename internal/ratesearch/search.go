// Package ratesearch finds the highest rate an engine sustains: probes at
// rising targets until one fails, then bisection between the last pass and
// the first failure until the bracket is narrow (issue 47; the idea of
// pebble's `bench write`, for every engine and workload that can pace its
// work).
package ratesearch

import (
	"context"
	"fmt"
	"rumbench/internal/results"
	"time"
)

// Rule judges a probe: it passes when the achieved rate is at least
// MinShare of the target, no interval stalled, and, with an SLO, its p99
// is within it.
type Rule struct {
	MinShare float64
	SLOP99   time.Duration
}

// DefaultMinShare is the share of the target a probe must reach (the
// insert benchmark's writers' SLA).
const DefaultMinShare = 0.95

// Judge sets p.Pass and p.Why.
func (r Rule) Judge(p *results.SearchProbe) {
	share := r.MinShare
	if share <= 0 {
		share = DefaultMinShare
	}
	switch {
	case p.Achieved < share*p.Target:
		p.Pass, p.Why = false, fmt.Sprintf("achieved %.0f/s, below %.0f%% of the target", p.Achieved, share*100)
	case p.Stalled > 0:
		p.Pass, p.Why = false, fmt.Sprintf("%d stalled interval(s)", p.Stalled)
	case r.SLOP99 > 0 && time.Duration(p.P99Us)*time.Microsecond > r.SLOP99:
		p.Pass, p.Why = false, fmt.Sprintf("p99 %v over the SLO %v", time.Duration(p.P99Us)*time.Microsecond, r.SLOP99)
	default:
		p.Pass, p.Why = true, ""
	}
}

// Config bounds the search.
type Config struct {
	// Start is the first target.
	Start float64
	// Precision: the search ends when (upper − lower) ≤ Precision × upper.
	Precision float64
	// MaxProbes ends the search early (the bracket so far is reported).
	MaxProbes int
	// Deadline, when set, ends the search (as MaxProbes does) when the
	// next probe could not finish before it.
	Deadline time.Time
	// ProbeSeconds is how long one probe takes (for Deadline).
	ProbeSeconds float64
	// Only, when positive, runs one probe at that target instead of a
	// search: whether the engine sustains a given rate by the same rule.
	Only float64
}

// Run probes one target rate; the search judges its result with the rule.
type Run func(ctx context.Context, target float64) (results.SearchProbe, error)

// Find searches: it doubles the target from cfg.Start while probes pass
// (halving instead while the first ones fail), then bisects between the
// highest pass and the lowest failure.
func Find(ctx context.Context, cfg Config, rule Rule, run Run) (results.Search, error) {
	if cfg.Start <= 0 {
		return results.Search{}, fmt.Errorf("ratesearch: start rate must be positive, got %g", cfg.Start)
	}
	if cfg.Precision <= 0 {
		cfg.Precision = 0.05
	}
	if cfg.MaxProbes <= 0 {
		cfg.MaxProbes = 40
	}
	var res results.Search
	if cfg.Only > 0 {
		p, err := run(ctx, cfg.Only)
		if err != nil {
			return res, err
		}
		p.Target = cfg.Only
		rule.Judge(&p)
		res.Probes, res.Done = []results.SearchProbe{p}, true
		if p.Pass {
			res.Sustained, res.Lower = cfg.Only, cfg.Only
		} else {
			res.Upper, res.Why = cfg.Only, "the one probe failed: "+p.Why
		}
		return res, ctx.Err()
	}
	probe := func(target float64) (bool, error) {
		p, err := run(ctx, target)
		if err != nil {
			return false, err
		}
		p.Target = target
		rule.Judge(&p)
		res.Probes = append(res.Probes, p)
		if p.Pass && target > res.Lower {
			res.Lower = target
		}
		if !p.Pass && (res.Upper == 0 || target < res.Upper) {
			res.Upper = target
		}
		return p.Pass, nil
	}
	out := func() (bool, string) {
		if len(res.Probes) >= cfg.MaxProbes {
			return true, fmt.Sprintf("stopped after %d probes", len(res.Probes))
		}
		if !cfg.Deadline.IsZero() && time.Now().Add(time.Duration(cfg.ProbeSeconds*float64(time.Second))).After(cfg.Deadline) {
			return true, "stopped: the next probe would end after the time allowed"
		}
		return false, ""
	}
	finish := func() (results.Search, error) {
		res.Sustained = res.Lower
		switch {
		case res.Lower == 0:
			res.Why = "no probe passed"
		case res.Upper == 0:
			res.Why = "no probe failed: the sustained rate is at least this"
		case res.Upper-res.Lower <= cfg.Precision*res.Upper:
			res.Done, res.Why = true, ""
		}
		return res, ctx.Err()
	}
	// Bracket: rise (or fall) by factors of 2.
	target := cfg.Start
	for res.Lower == 0 || res.Upper == 0 {
		if stop, why := out(); stop {
			r, err := finish()
			if r.Why == "" || !r.Done {
				r.Why = why
			}
			return r, err
		}
		if ctx.Err() != nil {
			return finish()
		}
		pass, err := probe(target)
		if err != nil {
			return res, err
		}
		switch {
		case pass:
			target *= 2
		case res.Lower == 0 && target > cfg.Start/1024:
			target /= 2
		case res.Lower == 0:
			return finish() // nothing passes, not even at Start/1024
		}
	}
	// Bisect.
	for res.Upper-res.Lower > cfg.Precision*res.Upper {
		if stop, why := out(); stop {
			r, err := finish()
			r.Why = why
			return r, err
		}
		if ctx.Err() != nil {
			return finish()
		}
		if _, err := probe((res.Lower + res.Upper) / 2); err != nil {
			return res, err
		}
	}
	return finish()
}
