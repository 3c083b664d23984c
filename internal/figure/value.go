// Package figure is the catalogue of the figures rumbench reports of a
// step: each one's key (the CSV and JSON column), column heading, unit,
// which direction is better, how it is printed, whether it adds up across
// parts of a run, and how it is read from a step summary; and a step's
// writers' SLA verdict (Target). The report, the run's live lines and step
// summary, the sweep matrices, the workloads' own tables and the results
// history all read figures here.
package figure

import (
	"math"

	"rumbench/internal/results"
	"rumbench/internal/units"
)

// Value is a number that may be unavailable; unavailable values are printed
// as n/a and encoded as null, never as 0.
type Value struct {
	V  float64
	OK bool
}

// Known wraps a number; NaN and ±Inf are unavailable.
func Known(v float64) Value {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Value{}
	}
	return Value{V: v, OK: true}
}

// Ratio is v relative to base; unavailable when either is, or base is 0.
func Ratio(v, base Value) Value {
	if !v.OK || !base.OK || base.V == 0 {
		return Value{}
	}
	return Known(v.V / base.V)
}

// Text formats v with f, or n/a when unavailable.
func (v Value) Text(f func(float64) string) string { return v.TextOr(units.NA, f) }

// TextOr formats v with f, or none when unavailable.
func (v Value) TextOr(none string, f func(float64) string) string {
	if !v.OK {
		return none
	}
	return f(v.V)
}

// Num reads a JSON number of m; null, absent or non-numeric values are
// unavailable. A metric reported with its reason ({"value": x, ...}) is
// its value.
func Num(m map[string]any, key string) Value {
	if v, ok := results.Number(m[key]); ok {
		return Known(v)
	}
	if v, ok := m[key].(map[string]any); ok {
		return Num(v, "value")
	}
	return Value{}
}

// Ptr is *p, unavailable when p is nil.
func Ptr(p *float64) Value {
	if p == nil {
		return Value{}
	}
	return Known(*p)
}
