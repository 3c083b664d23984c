package runner

import (
	"fmt"
	"io"
	"strings"

	"rumbench/internal/measure"
	"rumbench/internal/results"
)

// livePrinter writes one line per interval while a step runs.
type livePrinter struct {
	w      io.Writer
	engine string
	step   string
	buf    strings.Builder
	// elapsed is the step time at the end of the last interval.
	elapsed float64
	// longest is the longest interval so far: the nominal length.
	longest float64
}

func newLivePrinter(w io.Writer, engine, step string) *livePrinter {
	return &livePrinter{w: w, engine: engine, step: step}
}

// shown lists the operations printed, in order, with their short labels.
var shown = []struct {
	op    measure.Op
	label string
	perOp bool
}{
	{measure.OpInsert, "ins", false},
	{measure.OpDelete, "del", false},
	{measure.OpQuery, "qry", true},
	{measure.OpUpdate, "upd", true},
	{measure.OpIndex, "idx", false},
	{measure.OpScan, "scan", false},
}

func (p *livePrinter) print(iv *measure.Interval, rec *results.IntervalRecord) {
	p.elapsed += iv.Seconds
	p.longest = max(p.longest, iv.Seconds)
	b := &p.buf
	b.Reset()
	fmt.Fprintf(b, "%-8s %-6s %s", p.engine, p.step, fmtElapsed(p.elapsed))
	if iv.Seconds < p.longest/2 {
		// The step's short final interval: say so, or it reads as a repeat
		// of the previous line.
		fmt.Fprintf(b, " (last %s)", fmtSecs(iv.Seconds))
	}
	// The latency shown is the step's main operation's: queries when there
	// are any (query steps), otherwise the first operation shown.
	var main measure.Op = -1
	for _, s := range shown {
		o := iv.Ops[s.op]
		if o == nil || o.Ops == 0 {
			continue
		}
		if main < 0 || s.op == measure.OpQuery {
			main = s.op
		}
		rate, unit := iv.Rate(s.op), "rows/s"
		if s.perOp {
			rate, unit = iv.OpRate(s.op), "/s"
		}
		fmt.Fprintf(b, "  %s %9.0f %s", s.label, rate, unit)
		if o.Errors > 0 {
			fmt.Fprintf(b, " (%d err)", o.Errors)
		}
	}
	if main >= 0 {
		r := rec.Ops[main.String()]
		fmt.Fprintf(b, "  %s p99 %s max %s", main, fmtUs(r.P99), fmtUs(r.Max))
	} else {
		b.WriteString("  (no operations completed)")
	}
	if m, ok := rec.System["marker"].(string); ok && m != "" {
		fmt.Fprintf(b, "  %s", m)
	}
	b.WriteByte('\n')
	io.WriteString(p.w, b.String())
}

// fmtElapsed formats the step time: one decimal under 10 s, where whole
// seconds would make neighbouring lines look alike.
func fmtElapsed(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%6.1fs", s)
	}
	return fmt.Sprintf("%6.0fs", s)
}

// fmtSecs formats a short length of time.
func fmtSecs(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0fms", s*1000)
	}
	return fmt.Sprintf("%.1fs", s)
}

// fmtUs formats microseconds with a readable unit.
func fmtUs(us int64) string {
	switch {
	case us >= 1_000_000:
		return fmt.Sprintf("%.2fs", float64(us)/1e6)
	case us >= 1000:
		return fmt.Sprintf("%.1fms", float64(us)/1e3)
	}
	return fmt.Sprintf("%dµs", us)
}
