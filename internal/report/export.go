package report

import "strings"

// Helpers for a workload's own report views (e.g. the hot-row matrices),
// so they render like every other table without the report package
// knowing the workload.

// Num reads a JSON-like number from m; absent or non-numeric is unavailable.
func Num(m map[string]any, key string) Value { return num(m, key) }

// Ratio is v relative to base; unavailable when either is, or base is 0.
func Ratio(v, base Value) Value { return ratio(v, base) }

// CellText formats v with f, or n/a when unavailable.
func CellText(v Value, f func(float64) string) string { return cell(v, f) }

// FmtNum prints a value with precision that suits its size.
func FmtNum(v float64) string { return fmtNum(v) }

// FmtRatio prints a ratio.
func FmtRatio(v float64) string { return fmtRatio(v) }

// OrDash returns s, or an em dash when empty.
func OrDash(s string) string { return orDash(s) }

// Cell texts for what is not a number.
const (
	NAText     = naText
	NotRunText = notRunText
)

// WriteMarkdownTable appends t as a markdown table under a heading of level
// ("##").
func WriteMarkdownTable(b *strings.Builder, t Table, level string) { writeMDTable(b, t, level) }

// Known wraps an available number.
func Known(v float64) Value { return some(v) }
