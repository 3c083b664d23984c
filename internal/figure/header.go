package figure

import (
	"strings"

	"rumbench/internal/measure"
	"rumbench/internal/units"
)

// heads are the column headings of the figures a table shows, as
// templates: {rate} is the operation's rate name (IPS), {unit} its rate's
// unit (rows/s, q/s), {per} the unit a cost is per (i, q, u), {pct} the
// rate percentile (99). A figure without one is headed by its key.
var heads = map[string]string{
	RateAvg:      "{rate}.av({unit})",
	RatePct:      "{rate}.{pct}({unit})",
	WriteRateAvg: "{rate}.av({unit})",
	WriteRatePct: "{rate}.{pct}({unit})",
	WKBPerWrite:  "wKB/{per}",
	CPUPerOp:     "CPU/{per}(µs)",
	CPUUserPerOp: "usr/{per}",
	CPUSysPerOp:  "sys/{per}",
	ClientPerOp:  "cli/{per}(µs)",
	ClientSysOp:  "cli.sys/{per}",
	WKBPerOp:     "wKB/{per}",
	RKBPerOp:     "rKB/{per}",
	ReadsPerOp:   "r/{per}",
	FlushesPerOp: "fl/{per}",
	DiskGB:       "disk(GB)",
	LiveGB:       "live(GB)",
	PSSGB:        "PSS(GB)",
	P99Ms:        "p99(ms)",
	MaxMs:        "max(ms)",
	Sustained:    "sustained({unit})",
	// The engine's own counters beside the device's (the report's why
	// table).
	CacheMissPerOp: "miss/{per}",
	LogKBPerOp:     "logKB/{per}",
	BgWriteKBPerOp: "bgKB/{per}",
	FPIPerOp:       "fpi/{per}",
	StallUsPerOp:   "stall/{per}(µs)",
	MajFltPerOp:    "majflt/{per}",
	MinFltPerOp:    "minflt/{per}",
}

// names are the figures' names where a view compares them across steps
// (the report's efficiency table and chart), whatever the operation.
var names = map[string]string{
	CPUPerOp: "CPU/op",
	WKBPerOp: "wKB/op",
	RKBPerOp: "rKB/op",
	LiveGB:   "live size",
}

// fixed are the decimals a figure is printed with in the run's own
// terminal views (its step summary and live lines), where a column of
// whole rates reads better than significant digits.
var fixed = map[string]int{
	RateAvg: 0, RatePct: 0, WriteRateAvg: 0, WriteRatePct: 0,
	P99Ms: 2, MaxMs: 2,
}

// Header is f's column heading in a table of operation op's figures
// (op is the writers' for the write_* figures), pct the rate percentile
// (0: 99).
func (f *Figure) Header(op measure.OpSpec, pct float64) string {
	h, ok := heads[f.Key]
	if !ok {
		return f.Key
	}
	if pct <= 0 {
		pct = 99
	}
	return strings.NewReplacer("{rate}", op.RateName(), "{unit}", op.UnitLabel(), "{per}", op.PerLabel(), "{pct}", units.Plain(pct)).Replace(h)
}

// Name is f's name where it is compared across steps and operations
// ("CPU/op"); its key when it has none.
func (f *Figure) Name() string {
	if n, ok := names[f.Key]; ok {
		return n
	}
	return f.Key
}

// Fixed prints a value of f with a fixed number of decimals (rates whole,
// latencies to 0.01 ms), for the run's terminal views; Format elsewhere.
func (f *Figure) Fixed(v float64) string {
	d, ok := fixed[f.Key]
	if !ok {
		return f.Format(v)
	}
	return units.Fixed(v, d)
}

// Header is the column heading of the figure of key (see Figure.Header);
// it panics on a key the catalogue lacks, as Get does.
func Header(key string, op measure.OpSpec, pct float64) string { return Must(key).Header(op, pct) }

// Must returns the figure of key; it panics on a key the catalogue lacks
// (a programming error, caught by any test that reaches it).
func Must(key string) *Figure {
	f, ok := byKey[key]
	if !ok {
		panic("figure: no figure " + key + " in the catalogue")
	}
	return f
}

// Side names the better side of a ratio (run / base) of a figure that
// improves this way: higher where more is better, lower where less is, ""
// for a figure that is neither (Side("above 1", "below 1")).
func (b Better) Side(higher, lower string) string {
	switch b {
	case Higher:
		return higher
	case Lower:
		return lower
	}
	return ""
}

// Direction is the way the figures of keys improve when they all agree,
// Neither when they do not (a view that compares them in one table says
// which side of 1 is better only when they agree).
func Direction(keys ...string) Better {
	d := Neither
	for i, k := range keys {
		b := Must(k).Better
		if i > 0 && b != d {
			return Neither
		}
		d = b
	}
	return d
}

// Plural is an operation's name in the plural (query → queries), as a
// summary heads its count and a target names its unit (queries/s).
func Plural(op string) string {
	switch {
	case strings.HasSuffix(op, "y"):
		return strings.TrimSuffix(op, "y") + "ies"
	case strings.HasSuffix(op, "s"), strings.HasSuffix(op, "x"):
		return op + "es"
	}
	return op + "s"
}
