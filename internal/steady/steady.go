// Package steady decides when a time-bounded step has reached steady state:
// a rule over the last window of per-interval values of one metric, as fio's
// steadystate option and the SNIA Performance Test Specification apply it to
// storage devices (design §13). It only judges series; the runner decides
// what to do with the verdict.
package steady

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Metric names the per-interval series a rule watches.
type Metric string

const (
	// Rate is the step's main rate (rows/s, queries/s, requests/s).
	Rate Metric = "rate"
	// WKBPerOp is KB written to storage per main operation (by the
	// measured processes, /proc/PID/io).
	WKBPerOp Metric = "wkb"
	// WriteAmp is bytes written to storage (by the measured processes,
	// /proc/PID/io) per logical byte the workload inserted (see Ratio).
	WriteAmp Metric = "wamp"
	// SizeGrowth is the on-disk size of the engine's data at each
	// interval's end: its slope bound is a bound on the size's growth
	// across the window.
	SizeGrowth Metric = "size"
)

var metrics = []Metric{Rate, WKBPerOp, WriteAmp, SizeGrowth}

// Spec is a steady-state rule: the series, the bounds that must hold over
// the last Window, how long to wait before judging (Ramp) and how long to try
// (Max). At least one of MaxDevPct and MaxSlopePct is set; when both are,
// both must hold (SNIA's rule is dev=20%,slope=10%).
type Spec struct {
	Metric Metric
	// MaxDevPct bounds the largest distance of a value from the window's
	// mean, in % of that mean (fio's "iops:10%").
	MaxDevPct float64
	// MaxSlopePct bounds how far the least-squares line rises or falls
	// across the window, in % of the window's mean (SNIA's slope excursion;
	// fio's per-second slope times the window length).
	MaxSlopePct float64
	Window      time.Duration
	Ramp        time.Duration
	Max         time.Duration
}

// String writes the spec back in the flag's syntax.
func (s Spec) String() string {
	var parts []string
	if s.MaxDevPct > 0 {
		parts = append(parts, "dev="+strconv.FormatFloat(s.MaxDevPct, 'f', -1, 64)+"%")
	}
	if s.MaxSlopePct > 0 {
		parts = append(parts, "slope="+strconv.FormatFloat(s.MaxSlopePct, 'f', -1, 64)+"%")
	}
	parts = append(parts, "window="+s.Window.String())
	if s.Ramp > 0 {
		parts = append(parts, "ramp="+s.Ramp.String())
	}
	parts = append(parts, "max="+s.Max.String())
	return string(s.Metric) + ":" + strings.Join(parts, ",")
}

const syntax = "METRIC:dev=P%[,slope=P%],window=D[,ramp=D],max=D with METRIC one of rate, wkb, wamp, size (e.g. rate:dev=10%,window=60s,max=2h)"

// Parse reads a rule such as "rate:dev=10%,window=60s,max=2h".
func Parse(text string) (Spec, error) {
	bad := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("--steady-state %q: %s; write %s", text, fmt.Sprintf(format, a...), syntax)
	}
	name, rest, ok := strings.Cut(text, ":")
	if !ok {
		return bad("no metric")
	}
	s := Spec{Metric: Metric(strings.TrimSpace(name))}
	known := false
	for _, m := range metrics {
		known = known || m == s.Metric
	}
	if !known {
		return bad("unknown metric %q", name)
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return bad("%q is not key=value", kv)
		}
		if seen[k] {
			return bad("%s given twice", k)
		}
		seen[k] = true
		switch k {
		case "dev", "slope":
			p, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
			if err != nil || !strings.HasSuffix(v, "%") || p <= 0 || p >= 100 {
				return bad("%s=%s is not a percentage between 0%% and 100%%", k, v)
			}
			if k == "dev" {
				s.MaxDevPct = p
			} else {
				s.MaxSlopePct = p
			}
		case "window", "ramp", "max":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return bad("%s=%s is not a duration", k, v)
			}
			switch k {
			case "window":
				s.Window = d
			case "ramp":
				s.Ramp = d
			default:
				s.Max = d
			}
		default:
			return bad("unknown key %q", k)
		}
	}
	switch {
	case s.MaxDevPct == 0 && s.MaxSlopePct == 0:
		return bad("no bound: give dev=, slope= or both")
	case s.Window <= 0:
		return bad("no window")
	case s.Max <= 0:
		return bad("no max: a step must not wait for ever")
	case s.Max < s.Ramp+s.Window:
		return bad("max %s is shorter than ramp + window (%s): the rule could never be judged", s.Max, s.Ramp+s.Window)
	}
	return s, nil
}

// Window is what the rule saw over its last window of values.
type Window struct {
	N        int     `json:"n"`
	Mean     float64 `json:"mean"`
	DevPct   float64 `json:"dev_pct"`
	SlopePct float64 `json:"slope_pct"`
}

// Judge computes a window's figures. DevPct is max |x−mean| / mean and
// SlopePct the least-squares line's change across the window (slope ×
// (n−1)) / mean, both in %, both +Inf when the mean is zero and the values
// are not all zero (no progress is never steady).
func Judge(values []float64) Window {
	n := len(values)
	w := Window{N: n}
	if n == 0 {
		return w
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	w.Mean = sum / float64(n)
	var maxDev float64
	for _, v := range values {
		maxDev = math.Max(maxDev, math.Abs(v-w.Mean))
	}
	// Least squares over x = 0..n-1.
	var sxx, sxy float64
	xm := float64(n-1) / 2
	for i, v := range values {
		dx := float64(i) - xm
		sxx += dx * dx
		sxy += dx * (v - w.Mean)
	}
	var rise float64
	if sxx > 0 {
		rise = math.Abs(sxy/sxx) * float64(n-1)
	}
	w.DevPct, w.SlopePct = pct(maxDev, w.Mean), pct(rise, w.Mean)
	return w
}

func pct(x, mean float64) float64 {
	switch {
	case x == 0:
		return 0
	case mean == 0:
		return math.Inf(1)
	}
	return x / math.Abs(mean) * 100
}

// Holds says whether a window meets the spec's bounds.
func (s Spec) Holds(w Window) bool {
	if w.N < 2 || w.Mean == 0 {
		return false
	}
	if s.MaxDevPct > 0 && w.DevPct > s.MaxDevPct {
		return false
	}
	if s.MaxSlopePct > 0 && w.SlopePct > s.MaxSlopePct {
		return false
	}
	return true
}

// Result is a step's steady-state record (run.json).
type Result struct {
	Rule    string  `json:"rule"`
	Reached bool    `json:"reached"`
	AtS     float64 `json:"at_s,omitempty"`
	Window  Window  `json:"window"`
	// Source says whose bytes a wkb or wamp rule watched: "device" (the
	// data dir's block device) or "process" (the measured processes'
	// write_bytes less cancelled, when no device was resolved).
	Source string `json:"source,omitempty"`
}

// Tracker follows one series interval by interval.
type Tracker struct {
	spec    Spec
	values  []float64 // the last window, oldest first
	seconds []float64
	span    float64 // seconds the values cover
	elapsed float64
	// pending is the time of intervals without a value (NaN), added to
	// the next value's interval.
	pending float64
	last    Window
	done    bool
	at      float64
}

// NewTracker starts a series.
func NewTracker(s Spec) *Tracker { return &Tracker{spec: s} }

// Spec is the rule the tracker applies.
func (t *Tracker) Spec() Spec { return t.spec }

// Add records one interval of the given length and value and says whether
// the rule holds now. The ramp's intervals are not judged; after that the
// window is the last intervals covering at least Window. A NaN value is an
// interval in which the metric is undefined (no operation, no row inserted,
// no size read): its time counts toward the ramp and the limit, and joins
// the next value's interval, whose figure covers it (see Ratio).
func (t *Tracker) Add(seconds, value float64) bool {
	if t.done {
		return true
	}
	t.elapsed += seconds
	if t.elapsed <= t.spec.Ramp.Seconds() {
		return false
	}
	if math.IsNaN(value) {
		t.pending += seconds
		return false
	}
	seconds, t.pending = seconds+t.pending, 0
	t.values = append(t.values, value)
	t.seconds = append(t.seconds, seconds)
	t.span += seconds
	win := t.spec.Window.Seconds()
	for len(t.values) > 1 && t.span-t.seconds[0] >= win {
		t.span -= t.seconds[0]
		t.values, t.seconds = t.values[1:], t.seconds[1:]
	}
	if t.span+1e-9 < win {
		return false
	}
	t.last = Judge(t.values)
	if t.spec.Holds(t.last) {
		t.done, t.at = true, t.elapsed
	}
	return t.done
}

// GaveUp says the rule has had its Max without holding.
func (t *Tracker) GaveUp() bool { return !t.done && t.elapsed >= t.spec.Max.Seconds() }

// Result is the record so far.
func (t *Tracker) Result() Result {
	return Result{Rule: t.spec.String(), Reached: t.done, AtS: t.at, Window: t.last}
}

// Ratio turns per-interval counts into a per-unit series, the wkb and wamp
// metrics: bytes written over operations done, or over logical bytes
// inserted. An interval in which no unit was done has no value (NaN); its
// bytes are carried into the next value, so every byte written counts once
// and each value is the ratio of sums over whole intervals.
type Ratio struct{ num, den float64 }

// Add adds one interval's numerator and denominator and returns the
// series' value for it: the carried sums' ratio, or NaN while the
// denominator is still 0.
func (r *Ratio) Add(num, den float64) float64 {
	r.num += num
	r.den += den
	if r.den <= 0 {
		return math.NaN()
	}
	v := r.num / r.den
	r.num, r.den = 0, 0
	return v
}
