// Package units writes quantities for people and rounds them for storage:
// every number formatter and rounding rule of rumbench lives here, once, so
// a figure reads the same in the report, the live lines, the matrices and
// the workloads' own tables.
package units

import (
	"fmt"
	"math"
	"strconv"
)

// Texts printed instead of a number.
const (
	// NA is a figure the run did not measure.
	NA = "n/a"
	// Dash is a figure of something that did not run (or is empty).
	Dash = "—"
)

// Bytes writes n bytes in binary units to two decimals (256MB, 1.5GB),
// "none" for a negative n (no such memory).
func Bytes(n int64) string {
	if n < 0 {
		return "none"
	}
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.mult {
			return strconv.FormatFloat(Round(float64(n)/float64(u.mult), 2), 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// WholeMiB writes n bytes as whole mebibytes followed by suffix ("MiB" for
// Kubernetes, "MB" for a cgroup limit): 268435456 -> 256MiB.
func WholeMiB(n int64, suffix string) string {
	return Fixed(float64(n)/(1<<20), 0) + suffix
}

// IEC writes n bytes with a spaced IEC unit, one decimal for MiB and GiB
// (1.5 GiB, 300.0 MiB, 12 KiB, 512 B).
func IEC(n int64) string {
	switch {
	case n >= 1<<30:
		return Fixed(float64(n)/(1<<30), 1) + " GiB"
	case n >= 1<<20:
		return Fixed(float64(n)/(1<<20), 1) + " MiB"
	case n >= 1<<10:
		return Fixed(float64(n)/(1<<10), 0) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// GB writes n bytes as decimal gigabytes (10^9) to three decimals, Dash for
// a negative (unknown) n.
func GB(n int64) string {
	if n < 0 {
		return Dash
	}
	return Fixed(float64(n)/1e9, 3)
}

// Fixed writes v with exactly decimals digits after the point (as %.Nf).
func Fixed(v float64, decimals int) string {
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// Decimals is Fixed to d decimals, as a formatter.
func Decimals(d int) func(float64) string {
	return func(v float64) string { return Fixed(v, d) }
}

// Plain writes v in as few decimals as tell it exactly, never in
// exponent form (99.9, 1200000).
func Plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Export writes a figure for CSV and JSON: ten significant digits, enough
// for any measurement and free of float noise.
func Export(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

// FixedOr writes *p as Fixed, or none when p is nil.
func FixedOr(p *float64, decimals int, none string) string {
	if p == nil {
		return none
	}
	return Fixed(*p, decimals)
}

// Num writes a figure with a precision that suits its size: whole numbers
// from 100, then one, two and three decimals, two significant digits below
// 0.001.
func Num(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return Fixed(v, 0)
	case a >= 10:
		return Fixed(v, 1)
	case a >= 1:
		return Fixed(v, 2)
	case a >= 0.001:
		return Fixed(v, 3)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// Ratio writes a ratio: two decimals, whole from 100.
func Ratio(v float64) string {
	if math.Abs(v) >= 100 {
		return Fixed(v, 0)
	}
	return Fixed(v, 2)
}

// WideRatio writes a ratio that may span orders of magnitude: as Ratio,
// but two significant digits below 0.1, where 0.00 would hide by how much.
func WideRatio(v float64) string {
	if v != 0 && v < 0.1 && v > -0.1 {
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return Ratio(v)
}

// Times writes how many times a is b ("2.10×"), never below 1×; ∞× when b
// is not positive.
func Times(a, b float64) string {
	if b <= 0 {
		return "∞×"
	}
	x := a / b
	switch {
	case x >= 100:
		return Fixed(x, 0) + "×"
	case x >= 10:
		return Fixed(x, 1) + "×"
	}
	return Fixed(math.Max(x, 1), 2) + "×"
}

// Eng writes v with an SI suffix (k, M, G, T) and at most three
// significant digits: 2500000 -> 2.5M, 0.25 -> 0.25, 1500 -> 1.5k.
func Eng(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	suffix := ""
	for _, u := range []struct {
		s string
		f float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if a >= u.f {
			v, suffix = v/u.f, u.s
			break
		}
	}
	// Three significant digits, trailing zeros dropped.
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s + suffix
}

// Secs writes a short length of time: 250ms, 2.5s, 3m05s, 1h02m.
func Secs(s float64) string {
	switch {
	case s < 1:
		return Fixed(s*1000, 0) + "ms"
	case s < 100:
		return Fixed(s, 1) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
}

// Elapsed writes a step's time in a column of six: one decimal under 10 s,
// or always with intervals (nominal) shorter than a second, where whole
// seconds would make neighbouring lines look alike.
func Elapsed(s, nominal float64) string {
	if s < 10 || (nominal < 1 && s < 10000) {
		return fmt.Sprintf("%6.1fs", s)
	}
	return fmt.Sprintf("%6.0fs", s)
}

// Micros writes a latency in microseconds with a readable unit: 850µs,
// 12.5ms, 1.25s.
func Micros(us int64) string {
	switch {
	case us >= 1_000_000:
		return Fixed(float64(us)/1e6, 2) + "s"
	case us >= 1000:
		return Fixed(float64(us)/1e3, 1) + "ms"
	}
	return strconv.FormatInt(us, 10) + "µs"
}

// MillisOfMicros writes a latency in microseconds as milliseconds to two
// decimals (the run summary's p99 and max).
func MillisOfMicros(us int64) string { return Fixed(float64(us)/1000, 2) }

// Round rounds v to decimals digits after the point, halves away from
// zero (math.Round): the rule of figures computed for the bundle.
func Round(v float64, decimals int) float64 {
	p := pow10(decimals)
	return math.Round(v*p) / p
}

// pow10 is 10^n by exact multiplication (n small).
func pow10(n int) float64 {
	p := 1.0
	for i := 0; i < n; i++ {
		p *= 10
	}
	return p
}

// RoundHalfUp rounds v to decimals digits by adding a half and truncating
// toward zero, halves away from zero for either sign: the step summaries'
// historical rule, kept so their stored figures do not move. It agrees
// with Round except where v·10^decimals + ½ is not exact in float64 (a
// value a hair under a half that the addition carries over), and loses
// precision beyond int64.
func RoundHalfUp(v float64, decimals int) float64 {
	p := pow10(decimals)
	if v >= 0 {
		return float64(int64(v*p+0.5)) / p
	}
	return float64(int64(v*p-0.5)) / p
}

// RoundSig keeps four significant digits, but never rounds past the units
// (123456.7 -> 123457): enough for every published figure and short in
// JSON.
func RoundSig(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	if p < 1 {
		return math.Round(v)
	}
	return math.Round(v*p) / p
}

// OrDash returns s, or Dash when s is empty.
func OrDash(s string) string {
	if s == "" {
		return Dash
	}
	return s
}
