// Package report renders run bundles as tables.
package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/units"
)

// StepSummary prints one engine's per-step summary table: what `rumbench run`
// shows at the end. Every judged operation that ran gets its count and
// average rate, operations that head a step also their 99% rate; p99 and
// max are the step's main operation's latency. Units are in the headers.
func StepSummary(w io.Writer, b *results.Bundle) {
	e := b.Run.Engine
	name := e.Name
	if l := b.Run.VariantLabel(); l != e.Name {
		name = l + " = " + e.Name
	}
	fmt.Fprintf(w, "\n%s (%s, %s, version %s)\n", name, e.Family, e.Kind, e.Version)
	if e.Note != "" {
		fmt.Fprintf(w, "NOTE: %s\n", e.Note)
	}
	var shown []measure.OpSpec
	heads := map[string]bool{}
	for _, spec := range b.Run.Ops {
		if !spec.Judged() {
			continue
		}
		for _, s := range b.Steps {
			if s.Ops[spec.Name] != nil {
				shown = append(shown, spec)
				break
			}
		}
	}
	pct := 0.0
	for _, s := range b.Steps {
		heads[s.MainOp] = true
		pct = s.RatePercentile
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"step", "status", "secs", "main"}
	for _, spec := range shown {
		head = append(head, figure.Plural(spec.Name), figure.Header(figure.RateAvg, spec, pct))
		if heads[spec.Name] {
			head = append(head, figure.Header(figure.RatePct, spec, pct))
		}
	}
	head = append(head, figure.Header(figure.P99Ms, measure.OpSpec{}, pct), figure.Header(figure.MaxMs, measure.OpSpec{}, pct), "errors")
	// A verdict column per kind of paced target (the writers' SLA, ...).
	var targets []figure.Targets
	for _, name := range b.StepNames() {
		targets = append(targets, figure.TargetsOf(b.Steps[name]))
	}
	labels := figure.Labels(targets...)
	head = append(head, labels...)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, name := range b.StepNames() {
		s := b.Steps[name]
		status := "ok"
		if !s.Complete {
			status = "INCOMPLETE"
		}
		line := []string{s.Step, status, units.Fixed(s.Seconds, 1), s.MainOp}
		for _, spec := range shown {
			o := s.Ops[spec.Name]
			switch {
			case o == nil:
				line = append(line, "", "")
			default:
				line = append(line, fmt.Sprint(o.Done()), fixedOr(figure.RateAvg, o.RateAvg))
			}
			if heads[spec.Name] {
				if o != nil && spec.Name == s.MainOp {
					line = append(line, fixedOr(figure.RatePct, o.RatePct))
				} else {
					line = append(line, "")
				}
			}
		}
		lat := s.Latency[s.MainOp]
		line = append(line, figure.Must(figure.P99Ms).Fixed(float64(lat.P99)/1000), figure.Must(figure.MaxMs).Fixed(float64(lat.Max)/1000), fmt.Sprint(s.Errors))
		for _, l := range labels {
			t, ok := figure.TargetsOf(s).WithLabel(l)
			if !ok {
				line = append(line, "")
				continue
			}
			line = append(line, t.Cell())
		}
		fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
	}
	for _, name := range b.Run.Steps {
		if _, ok := b.Steps[name]; !ok {
			fmt.Fprintf(tw, "%s\tnot run\t%s\n", name, strings.Repeat("\t", len(head)-2))
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "main: the operation each step is judged by; p99/max: its latency per operation (per transaction for writes), ms.")
	for _, l := range labels {
		fmt.Fprintln(w, figure.SummaryNote(l))
	}
	for _, name := range b.StepNames() {
		if n := engineRetries(b.Steps[name]); n > 0 {
			fmt.Fprintf(w, "%s: %s.\n", name, retriesText(n))
		}
	}
}

// fixedOr prints *v as figure key's fixed format (Figure.Fixed), "" when
// v is nil.
func fixedOr(key string, v *float64) string {
	if v == nil {
		return ""
	}
	return figure.Must(key).Fixed(*v)
}

// engineRetries is a step's engine_retries detail (0 when absent).
func engineRetries(s *results.Step) int64 {
	if s == nil {
		return 0
	}
	n, _ := results.DetailInt(s.Details, results.DetailEngineRetries)
	return n
}

// retriesText explains a step's engine retries.
func retriesText(n int64) string {
	return fmt.Sprintf("%d writes rolled back by the engine (WiredTiger's WT_ROLLBACK, RocksDB's Busy/TryAgain/TimedOut) and run again after a backoff (engine_retries); each is one blind batch or one whole delete transaction, and only the end of the step's context stops them", n)
}
