package runner

import (
	"fmt"
	"io"
	"strings"
	"time"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/units"
)

// livePrinter writes one line per interval while a step runs: the rate of
// every operation that ran, the main operation's latency, a STALL marker by
// the step's stall rule, and the step's progress.
type livePrinter struct {
	w      io.Writer
	engine string
	step   string
	ops    measure.Ops
	desc   results.StepDesc
	main   measure.Op
	// rules are each operation's stall rule (the step's, grouped for a
	// paced operation).
	rules   []measure.StallRule
	nominal float64
	buf     strings.Builder
	// elapsed is the step time at the end of the last interval.
	elapsed float64
	// rates are each operation's rates of the intervals long enough to
	// judge, as the clock keeps them; done is the main operation's total.
	rates [][]float64
	done  int64
	// warmupS is the warm-up time so far (not part of elapsed).
	warmupS float64
	// printedAt and activeAt are the step times of the last line printed
	// and of the end of the last interval in which an operation completed.
	printedAt, activeAt float64
	// seen marks the operations that completed in the step so far, and
	// the paced ones the step declares: each keeps its column from then on (0 in an interval where it did not
	// complete), so columns do not come and go; total is each one's done
	// count, for the operations shown by their average so far.
	seen  []bool
	total []int64
}

// rateFigure is the catalogue's rate figure, whose format the live line's
// interval rates take.
var rateFigure = figure.Must(figure.RateAvg)

// QuietLineEvery is how often a step judged by an operation without a rate
// (an index build, maintenance) prints a line while none of its operations
// completes: one line per interval would say nothing new (issue 34: 35
// lines of "no operations completed" per pebble index build at 100 ms).
const QuietLineEvery = 5.0

func newLivePrinter(w io.Writer, engine, step string, ops measure.Ops, desc results.StepDesc, nominal time.Duration) *livePrinter {
	main, _ := ops.Lookup(desc.MainOp)
	rules := make([]measure.StallRule, len(ops))
	for i, spec := range ops {
		rules[i] = desc.OpRule(spec.Name, nominal.Seconds())
	}
	p := &livePrinter{
		w: w, engine: engine, step: step, ops: ops, desc: desc, main: main,
		rules: rules, nominal: nominal.Seconds(), rates: make([][]float64, len(ops)),
		seen: make([]bool, len(ops)), total: make([]int64, len(ops)),
	}
	for i, spec := range ops {
		// A paced operation the step declares has its column from the
		// first line: a query step's deleter, which follows the writer's
		// first batch, would otherwise join on the second.
		if desc.OpPeriodS[spec.Name] > 0 {
			p.seen[i] = true
		}
	}
	return p
}

// observe accounts for every closed interval, printed or not.
func (p *livePrinter) observe(iv *measure.Interval) {
	if iv.Warmup {
		p.warmupS += iv.Seconds
		return
	}
	p.elapsed += iv.Seconds
	p.done += iv.Ops[p.main].Done(p.ops[p.main].Unit)
	for i, o := range iv.Ops {
		if o != nil && o.Ops > 0 {
			p.seen[i] = true
			p.total[i] += o.Done(p.ops[i].Unit)
		}
	}
	if anyDone(iv) {
		p.activeAt = p.elapsed
	}
	if measure.Judged(iv.Seconds, p.nominal, len(p.rates[0]) == 0) {
		for op := range p.rates {
			p.rates[op] = append(p.rates[op], iv.Rate(measure.Op(op)))
		}
	}
}

func (p *livePrinter) print(iv *measure.Interval, rec *results.IntervalRecord) {
	quiet := !iv.Warmup && !p.ops[p.main].Judged() && !anyDone(iv)
	if quiet && p.elapsed-p.printedAt < max(QuietLineEvery, p.nominal) {
		return
	}
	if !iv.Warmup {
		p.printedAt = p.elapsed
	}
	b := &p.buf
	b.Reset()
	if iv.Warmup {
		fmt.Fprintf(b, "%-8s %-6s %s", p.engine, p.step, units.Elapsed(p.warmupS, p.nominal))
	} else {
		fmt.Fprintf(b, "%-8s %-6s %s", p.engine, p.step, units.Elapsed(p.elapsed, p.nominal))
	}
	// As the clock judges it (measure.Judged): a late tick followed by an
	// early one is not the step's last interval.
	short := !measure.Judged(iv.Seconds, p.nominal, false)
	if short {
		// Usually the step's final, partial interval; else a tick that came
		// early after a late one. Say so, or it reads as a repeat of the
		// previous line; neither is judged.
		fmt.Fprintf(b, " (short %s)", units.Secs(iv.Seconds))
	}
	// The latency shown is the step's main operation's when it ran in the
	// interval, otherwise the first operation shown.
	shown := measure.Op(-1)
	for i, spec := range p.ops {
		op := measure.Op(i)
		o := iv.Ops[op]
		ran := o != nil && o.Ops > 0
		if spec.ResponseOf != "" || !ran && (iv.Warmup || !p.seen[op]) {
			continue
		}
		if ran && (shown < 0 || op == p.main) {
			shown = op
		}
		unit := "rows/s"
		if spec.Unit == measure.UnitOps {
			unit = "/s"
		}
		if !spec.Judged() && spec.Role == measure.RoleNone && spec.Unit == measure.UnitOps {
			// Whole actions (the engine's maintenance): how many are
			// done; the step's figure is its length, not a rate.
			fmt.Fprintf(b, "  %s %d done", spec.Name, p.total[op])
			continue
		}
		if !spec.Judged() && spec.Role == measure.RoleNone {
			// Done in lumps (a table's whole index build at once): the
			// rate so far, as the step's summary will give it, not the
			// one interval's burst.
			rate := 0.0
			if p.elapsed > 0 {
				rate = float64(p.total[op]) / p.elapsed
			}
			fmt.Fprintf(b, "  %s %9s %s so far", spec.Name, rateFigure.Fixed(rate), unit)
			continue
		}
		// The interval's rate, printed as the catalogue prints a rate in
		// the run's terminal views (whole), right-aligned in 9 columns.
		fmt.Fprintf(b, "  %s %9s %s", spec.Name, rateFigure.Fixed(iv.Rate(op)), unit)
		if ran && o.Errors > 0 {
			fmt.Fprintf(b, " (%d err)", o.Errors)
		}
	}
	if shown >= 0 {
		r := rec.Ops[p.ops.Name(shown)]
		fmt.Fprintf(b, "  %s p99 %s max %s", p.ops.Name(shown), units.Micros(r.P99), units.Micros(r.Max))
	} else if quiet {
		fmt.Fprintf(b, "  (working: no operation completed for %s)", units.Secs(p.elapsed-p.activeAt))
	} else {
		b.WriteString("  (no operations completed)")
	}
	if iv.Warmup && p.warmupS > p.desc.WarmupS+1e-9 {
		// Past the fixed warm-up: the steady-state rule decides.
		b.WriteString("  [warm-up until steady]")
	} else if iv.Warmup {
		fmt.Fprintf(b, "  [warm-up, %s left]", units.Secs(max(0, p.desc.WarmupS-p.warmupS)))
	} else {
		if !short {
			if m := p.marker(); m != "" {
				fmt.Fprintf(b, "  %s", m)
			}
		}
		if pr := p.progress(); pr != "" {
			fmt.Fprintf(b, "  [%s]", pr)
		}
	}
	b.WriteByte('\n')
	io.WriteString(p.w, b.String())
}

// anyDone reports whether an operation completed in the interval.
func anyDone(iv *measure.Interval) bool {
	for _, o := range iv.Ops {
		if o != nil && o.Ops > 0 {
			return true
		}
	}
	return false
}

// marker names the operations whose newest interval stalls by the step's
// stall rule, judged on the intervals so far (measure.LiveStall).
func (p *livePrinter) marker() string {
	m := ""
	for i, spec := range p.ops {
		if !spec.Judged() && measure.Op(i) != p.main {
			continue
		}
		if measure.LiveStall(p.rates[i], p.rules[i]) {
			m += " " + spec.Name
		}
	}
	if m == "" {
		return ""
	}
	return "STALL" + m
}

// progress is the step's progress: time left in a time-bounded step,
// percent done and an estimate of the time left in a count-bounded one
// whose planned work is known.
func (p *livePrinter) progress() string {
	if p.desc.Timed() {
		left := p.desc.TimeBoundedS - p.elapsed
		if left <= 0 {
			return "finishing"
		}
		return units.Secs(left) + " left"
	}
	if p.desc.Work <= 0 || p.done <= 0 {
		return ""
	}
	frac := float64(p.done) / float64(p.desc.Work)
	if frac >= 1 {
		return "100%"
	}
	eta := p.elapsed * (1 - frac) / frac
	return fmt.Sprintf("%.0f%% ETA %s", frac*100, units.Secs(eta))
}
