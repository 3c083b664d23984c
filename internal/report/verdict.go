package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/stats"
	"rumbench/internal/units"
)

// Verdict is the report's conclusion in hyperfine's form, one line per step:
// which run led on the step's headline rate and by how much ("X ran 2.10×
// faster than Y"). With repetitions each ratio is of medians and carries
// the U test's mark (~: not significant, ?: too few repetitions to tell);
// without, the heading says plainly that every figure is one run.
func (r *Report) Verdict() []string {
	var out []string
	head := "verdict (each step's headline rate; the leader first)"
	switch {
	case len(r.Runs) == 1:
		head += ": one run, nothing to compare"
	case r.Repeated():
		head += fmt.Sprintf(": ratios of medians over the repetitions; ~ not significant (Mann–Whitney U, α = %.2f), ? too few repetitions to tell", stats.Alpha)
	default:
		head += ": one run each, so no test of significance (a difference of a few percent can be noise; --repeat 6 tests it)"
	}
	out = append(out, head)
	width := 0
	for _, sr := range r.Steps {
		width = max(width, textWidth(sr.Name))
	}
	for _, sr := range r.Steps {
		out = append(out, fmt.Sprintf("  %-*s  %s", width, sr.Name, r.stepVerdict(sr)))
	}
	for _, ns := range r.NotStarted {
		out = append(out, fmt.Sprintf("  %s never started (not run): the run in %s ended before it", ns.Engine, ns.Out))
	}
	if len(r.Warnings) > 0 {
		out = append(out, "  caution: a busy host (warning at the top): the figures include other work's noise")
	}
	return out
}

// stepVerdict is one step's verdict line, without the step's name.
func (r *Report) stepVerdict(sr *StepReport) string {
	type ran struct {
		row *Row
		v   float64
	}
	var rs []ran
	var missing []string
	for _, row := range sr.Rows {
		v := row.Values[figure.RateAvg]
		if row.Status == StatusNotRun || !v.OK {
			missing = append(missing, row.Run.shortName())
			continue
		}
		rs = append(rs, ran{row, v.V})
	}
	if len(rs) == 0 {
		return "not run"
	}
	if t := oneActionVerdict(sr, len(r.Runs) > 1); t != "" {
		return t
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].v > rs[j].v })
	lead := rs[0]
	unit := unitLabel(sr.Rate)
	rate := figure.Must(figure.RateAvg).Format
	var b strings.Builder
	if len(rs) == 1 {
		fmt.Fprintf(&b, "%s %s %s", lead.row.Run.shortName(), rate(lead.v), unit)
		if len(r.Runs) > 1 {
			b.WriteString(" (the only run that ran it)")
		}
	} else {
		fmt.Fprintf(&b, "%s ran ", lead.row.Run.shortName())
		for i, o := range rs[1:] {
			if i > 0 {
				b.WriteString(", ")
			}
			t := units.Times(lead.v, o.v)
			switch compareMark(lead.row, o.row) {
			case "~":
				t = "~" + t
			case "?":
				t += "?"
			}
			b.WriteString(t + " faster than " + o.row.Run.shortName())
		}
		fmt.Fprintf(&b, " (%s vs %s %s)", rate(lead.v), rate(rs[1].v), unit)
	}
	var incomplete []string
	for _, o := range rs {
		if o.row.Status == StatusIncomplete {
			incomplete = append(incomplete, o.row.Run.shortName())
		}
	}
	if len(incomplete) > 0 {
		fmt.Fprintf(&b, "; incomplete: %s", strings.Join(incomplete, ", "))
	}
	if len(missing) > 0 && len(rs) > 0 {
		fmt.Fprintf(&b, "; not run: %s", strings.Join(missing, ", "))
	}
	return b.String()
}

// oneActionVerdict is the verdict of a step that is one timed action in
// every run (maint: the engine's maintenance, then the wait for it to come
// to rest and the pause): its "rate" is 1 / its length, not a throughput,
// so the line gives each run's length instead; "" for other steps.
func oneActionVerdict(sr *StepReport, several bool) string {
	if sr.Rate.Unit != measure.UnitOps {
		return ""
	}
	var parts []string
	for _, row := range sr.Rows {
		if row.Run.Bundle == nil {
			return ""
		}
		st := row.Run.Bundle.Steps[sr.Name]
		if row.Status == StatusNotRun || st == nil {
			continue
		}
		if o := st.Ops[st.MainOp]; o == nil || o.Done() > 1 {
			return ""
		}
		parts = append(parts, fmt.Sprintf("%s %s s", row.Run.shortName(), units.Num(st.Seconds)))
	}
	if len(parts) == 0 {
		return ""
	}
	t := "took " + strings.Join(parts, ", ")
	if several {
		t += " (one action and the engine's wait to come to rest: a length, not a rate to rank)"
	}
	return t
}

// compareMark is the significance mark of the leader against another run
// over their repetitions: "" when significant or not repeated.
func compareMark(lead, other *Row) string {
	c := stats.Compare(other.Stats[figure.RateAvg], lead.Stats[figure.RateAvg])
	if c == nil {
		return ""
	}
	return c.Mark()
}

// WriteVerdict writes the verdict lines.
func (r *Report) WriteVerdict(w io.Writer) error {
	_, err := io.WriteString(w, strings.Join(r.Verdict(), "\n")+"\n")
	return err
}
