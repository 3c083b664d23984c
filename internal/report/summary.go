// Package report renders run bundles as tables.
package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"rumbench/internal/results"
)

// StepSummary prints one engine's per-step summary table: what `rumbench run`
// shows at the end. Units are in the headers.
func StepSummary(w io.Writer, b *results.Bundle) {
	e := b.Run.Engine
	fmt.Fprintf(w, "\n%s (%s, %s, version %s)\n", e.Name, e.Family, e.Kind, e.Version)
	if e.Note != "" {
		fmt.Fprintf(w, "NOTE: %s\n", e.Note)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tstatus\tsecs\tinserted\tdeleted\tIPS.av(rows/s)\tIPS.99(rows/s)\tDPS.av(rows/s)\tQPS.av(q/s)\tp99(ms)\tmax(ms)\terrors\t")
	for _, name := range b.StepNames() {
		s := b.Steps[name]
		status := "ok"
		if !s.Complete {
			status = "INCOMPLETE"
		}
		main := mainOp(s)
		lat := s.Latency[main]
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%d\t\n",
			s.Step, status, s.Seconds, s.Inserted, s.Deleted, s.IPSAvg, s.IPS99, s.DPSAvg, s.QPSAvg,
			float64(lat.P99)/1000, float64(lat.Max)/1000, s.Errors)
	}
	for _, name := range b.Run.Steps {
		if _, ok := b.Steps[name]; !ok {
			fmt.Fprintf(tw, "%s\tnot run\t\t\t\t\t\t\t\t\t\t\t\n", name)
		}
	}
	tw.Flush()
	var notes []string
	for _, name := range b.StepNames() {
		s := b.Steps[name]
		if v, ok := s.Details["indexed_rows_per_s"].(float64); ok {
			notes = append(notes, fmt.Sprintf("%s: %.0f indexed rows/s", s.Step, v))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "%s\n", strings.Join(notes, "; "))
	}
	fmt.Fprintln(w, "p99/max: latency of the step's main operation (insert, else query, else update, else index build), per transaction.")
}

// mainOp names the operation whose latency a step's summary line shows.
func mainOp(s *results.Step) string {
	for _, op := range []string{"insert", "query", "update", "index", "scan", "delete"} {
		if l, ok := s.Latency[op]; ok && l.Count > 0 {
			return op
		}
	}
	return "insert"
}
