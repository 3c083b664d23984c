package ratesearch

import (
	"fmt"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/spf13/pflag"

	"rumbench/internal/measure"
	"rumbench/internal/results"
)

// Defaults of a workload's search.
const (
	DefaultProbeSeconds  = 10
	DefaultSettleSeconds = 2
	DefaultMaxSeconds    = 600
	// StallShare: a probe second below this share of the target stalled.
	StallShare = 0.5
)

// Settings are a workload's search flags, the same for every workload
// (json inline in its config). Zero values take the defaults.
type Settings struct {
	ProbeSeconds  float64 `json:"probe_s,omitempty"`
	SettleSeconds float64 `json:"settle_s,omitempty"`
	SearchStart   float64 `json:"search_start,omitempty"`
	MaxSeconds    float64 `json:"max_s,omitempty"`
	SLOP99Ms      float64 `json:"slo_p99_ms,omitempty"`
	// ProbeRate, when set, runs one probe at that rate instead of the
	// search (--probe-rate): does the engine sustain it?
	ProbeRate float64 `json:"probe_rate,omitempty"`
}

// AddFlags registers the search's flags; what names the step or option that
// searches (l.max, --request-rate max) and unit its rate's unit.
func AddFlags(fl *pflag.FlagSet, s *Settings, what, unit string, defaultStart float64) {
	fl.Float64Var(&s.ProbeSeconds, "probe-seconds", DefaultProbeSeconds, what+" (the highest sustained rate): how long each probe at one target rate is judged, after --settle-seconds")
	fl.Float64Var(&s.SettleSeconds, "settle-seconds", DefaultSettleSeconds, what+": how long each probe runs at its target before it is judged")
	fl.Float64Var(&s.SearchStart, "search-start", defaultStart, what+": the first target, "+unit+"; the search doubles it while probes pass (halves it while they fail), then bisects to within 5%")
	fl.Float64Var(&s.MaxSeconds, "max-seconds", DefaultMaxSeconds, what+": the longest the search may take; it reports the bracket it has when time runs out")
	fl.Float64Var(&s.ProbeRate, "probe-rate", 0, what+": run one probe at this rate ("+unit+") instead of the search, judged by the same rule: whether the engine sustains it")
	fl.Var(msFlag{&s.SLOP99Ms}, "slo-p99", what+": a probe passes only if its p99 response time (from the intended start) is within this (e.g. 50ms); 0: no latency objective, only >=95% of the target and no stalled second")
}

// msFlag is a duration flag stored as milliseconds.
type msFlag struct{ ms *float64 }

func (f msFlag) String() string {
	if f.ms == nil || *f.ms == 0 {
		return "0s"
	}
	return time.Duration(*f.ms * float64(time.Millisecond)).String()
}

func (f msFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 50ms")
	}
	*f.ms = float64(d) / float64(time.Millisecond)
	return nil
}

func (msFlag) Type() string { return "duration" }

func (s Settings) probe() float64  { return or(s.ProbeSeconds, DefaultProbeSeconds) }
func (s Settings) settle() float64 { return or(s.SettleSeconds, DefaultSettleSeconds) }

func or(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}

// Validate refuses negative values and a search that could not bracket a
// rate in its time (fewer than 3 probes).
func (s Settings) Validate() error {
	switch {
	case s.SLOP99Ms < 0:
		return fmt.Errorf("--slo-p99 must be positive (or 0 for none), got %gms", s.SLOP99Ms)
	case s.ProbeSeconds < 0 || s.SettleSeconds < 0 || s.SearchStart < 0 || s.MaxSeconds < 0 || s.ProbeRate < 0:
		return fmt.Errorf("--probe-seconds, --settle-seconds, --search-start, --max-seconds and --probe-rate must be positive")
	}
	if s.ProbeRate > 0 {
		return nil // one probe: no search to fit in --max-seconds
	}
	per, maxS := s.probe()+s.settle(), or(s.MaxSeconds, DefaultMaxSeconds)
	if maxS < 3*per {
		return fmt.Errorf("--max-seconds %g leaves room for %d probes of %g s (--probe-seconds + --settle-seconds): a search needs at least 3 to bracket a rate; raise --max-seconds or shorten the probes", maxS, int(maxS/per), per)
	}
	return nil
}

// Config is the search's configuration from now, its first target
// defaultStart unless set.
func (s Settings) Config(defaultStart float64) Config {
	return Config{Start: or(s.SearchStart, defaultStart), Precision: 0.05, ProbeSeconds: s.probe() + s.settle(), Only: s.ProbeRate,
		Deadline: time.Now().Add(time.Duration(or(s.MaxSeconds, DefaultMaxSeconds) * float64(time.Second)))}
}

// Rule is the rule the settings ask for.
func (s Settings) Rule() Rule {
	return Rule{SLOP99: time.Duration(s.SLOP99Ms * float64(time.Millisecond))}
}

// Window is one worker's record of a probe's measured window (it starts
// after the settle time): the response times (from the intended start) and
// the operations per second. Only its worker writes it.
type Window struct {
	from, to time.Time
	hist     *hdr.Histogram
	perSec   []int64
}

// Windows makes n workers' windows of a probe starting at start.
func (s Settings) Windows(start time.Time, n int) (settleEnd time.Time, ws []*Window) {
	from := start.Add(time.Duration(s.settle() * float64(time.Second)))
	for range n {
		ws = append(ws, &Window{from: from, to: from.Add(time.Duration(s.probe() * float64(time.Second))),
			hist: hdr.New(1, int64(time.Hour/time.Microsecond), 3), perSec: make([]int64, int(math.Ceil(s.probe())))})
	}
	return from, ws
}

// End is when the probe ends (settle and window).
func (s Settings) End(start time.Time) time.Time {
	return start.Add(time.Duration((s.settle() + s.probe()) * float64(time.Second)))
}

// Record counts n operations that finished at done after lat from their
// intended start (n 0: a skipped slot, whose wait so far counts).
func (w *Window) Record(done time.Time, lat time.Duration, n int64) {
	if done.Before(w.from) || !done.Before(w.to) {
		return
	}
	w.hist.RecordValue(max(lat.Microseconds(), 1))
	if i := int(done.Sub(w.from) / time.Second); i < len(w.perSec) {
		w.perSec[i] += n
	}
}

// RecordSkipped counts the slots [slot-skipped, slot) of s that the
// backlog rule skipped at now: no operation, the wait they had so far. A
// nil window records nothing.
func (w *Window) RecordSkipped(s *measure.Schedule, slot, skipped int64, now time.Time) {
	if w == nil {
		return
	}
	for i := slot - skipped; i < slot; i++ {
		w.Record(now, now.Sub(s.At(i)), 0)
	}
}

// Measure is the probe at target from its workers' windows: the achieved
// rate over the window, the p99 response time, and the whole seconds below
// StallShare of the target.
func (s Settings) Measure(target float64, ws []*Window) results.SearchProbe {
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	perSec := make([]int64, int(math.Ceil(s.probe())))
	var n int64
	for _, w := range ws {
		h.Merge(w.hist)
		for i, v := range w.perSec {
			perSec[i] += v
			n += v
		}
	}
	p := results.SearchProbe{Achieved: float64(n) / s.probe(), P99Us: h.ValueAtQuantile(99), Seconds: s.settle() + s.probe()}
	for i := 0; i < int(s.probe()); i++ {
		if float64(perSec[i]) < StallShare*target {
			p.Stalled++
		}
	}
	return p
}
