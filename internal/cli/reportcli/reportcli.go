// Package reportcli carries out `rumbench report`: it checks the
// request, reads the directories given (runs, repeated runs, a sweep, two
// result dirs to compare) and prints the reports package report and
// package sweep make of them. cmd/rumbench keeps the flags.
package reportcli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"rumbench/internal/plan"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
)

// Options are report's flags.
type Options struct {
	// Base is the base run: a 1-based number or a variant's label.
	Base string
	// Format is md, csv or json.
	Format string
	// HTML, when set, is the HTML report to write as well.
	HTML string
	// CompareTo is an earlier sweep to compare a sweep's matrices with.
	CompareTo string
	// Compare compares two result dirs engine by engine.
	Compare bool
	// AllowMixed lets report compare runs of different workload sizes.
	AllowMixed bool
}

// Run reports dirs as o asks: runs side by side, a sweep's matrices, or
// (Compare) two result dirs engine by engine. The reports go to out; the
// note of an HTML file written goes to errw.
func Run(out, errw io.Writer, o Options, dirs []string) error {
	f := &o
	switch f.Format {
	case "md", "csv", "json":
	default:
		return &runner.BadInputError{Err: fmt.Errorf("unknown --format %q: choose md, csv or json", f.Format)}
	}
	if n, err := strconv.Atoi(f.Base); err == nil && n < 1 {
		return &runner.BadInputError{Err: fmt.Errorf("--base %d is out of range: runs are numbered from 1", n)}
	}
	if f.Compare {
		return compare(out, f, dirs)
	}
	if len(dirs) == 1 && sweep.IsSweep(dirs[0]) {
		return reportSweep(out, errw, f, dirs[0])
	}
	if f.CompareTo != "" {
		return &runner.BadInputError{Err: fmt.Errorf("--compare-to compares sweeps: give one sweep directory (the --out of rumbench sweep) as DIR")}
	}
	if f.HTML != "" {
		if err := report.CheckHTMLPath(f.HTML); err != nil {
			return &runner.BadInputError{Err: err}
		}
	}
	groups, err := report.LoadGroups(dirs)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	base, err := plan.ReportBase(groups, f.Base)
	if err != nil {
		return err
	}
	rep, err := report.BuildGroups(groups, report.Options{Base: base})
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	if !f.AllowMixed {
		// Refused rather than marked: a ratio of different work reads
		// like any other once it is copied out of the report.
		for _, r := range rep.Runs {
			if len(r.SizeDiffs) > 0 {
				return &runner.BadInputError{Err: fmt.Errorf("#%d %s ran a different workload size than the base #%d (%s): its ratios would compare different work; report such runs apart, or give --allow-mixed to compare them anyway", r.Num, r.Label, rep.Runs[rep.Base].Num, strings.Join(r.SizeDiffs, ", "))}
			}
		}
	}
	switch f.Format {
	case "csv":
		err = rep.CSV(out)
	case "json":
		err = rep.JSON(out)
	default:
		if err = rep.Markdown(out); err == nil {
			err = workloadTable(out, rep)
		}
		if err == nil {
			// The verdict last, as at the end of `rumbench run`.
			fmt.Fprintln(out)
			err = rep.WriteVerdict(out)
		}
	}
	if err != nil {
		return err
	}
	if f.HTML != "" {
		n, err := rep.WriteHTMLFile(f.HTML)
		if err != nil {
			return err
		}
		fmt.Fprintf(errw, "rumbench report: wrote %s (%d charts)\n", f.HTML, n)
	}
	return nil
}

// workloadTable prints the workload's own table (workload.Definition.Table)
// when every run is of one workload that has one.
func workloadTable(w io.Writer, rep *report.Report) error {
	if len(rep.Runs) == 0 {
		return nil
	}
	name := rep.Runs[0].Bundle.Run.Workload
	labels := make([]string, len(rep.Runs))
	bundles := make([]*results.Bundle, len(rep.Runs))
	for i, r := range rep.Runs {
		if r.Bundle.Run.Workload != name {
			return nil
		}
		labels[i], bundles[i] = r.Label, r.Bundle.Bundle
	}
	def, err := workload.Lookup(name)
	if err != nil || def.Table == nil {
		return nil
	}
	fmt.Fprintln(w)
	return def.Table(w, labels, bundles)
}

// reportSweep prints a sweep's matrices (and, with --compare-to, the same
// relative to an earlier sweep); --html writes them with the summary charts
// and every run's step sections.
func reportSweep(out, errw io.Writer, f *Options, dir string) error {
	bad := func(err error) error { return &runner.BadInputError{Err: err} }
	if f.Format != "md" {
		return bad(fmt.Errorf("%s is a sweep: its matrices print as markdown only (drop --format, or report one cell's directory)", dir))
	}
	if f.CompareTo != "" && !sweep.IsSweep(f.CompareTo) {
		return bad(fmt.Errorf("--compare-to %s is not a sweep directory (it holds no %s)", f.CompareTo, sweep.SpecFile))
	}
	if f.HTML != "" {
		if err := report.CheckHTMLPath(f.HTML); err != nil {
			return bad(err)
		}
	}
	spec, err := sweep.Load(dir)
	if err != nil {
		return bad(err)
	}
	if err := sweep.Markdown(out, dir, spec); err != nil {
		return err
	}
	if f.CompareTo != "" {
		if err := sweep.CompareMarkdown(out, dir, spec, f.CompareTo); err != nil {
			return err
		}
	}
	if f.HTML != "" {
		n, err := sweep.WriteHTMLFile(f.HTML, dir, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(errw, "rumbench report: wrote %s (%d charts)\n", f.HTML, n)
	}
	return nil
}

// compare compares two result dirs (runs, repeated runs) engine by
// engine (plan.Compare) and prints one report per pair.
func compare(out io.Writer, f *Options, dirs []string) error {
	base := 1
	if f.Base != "1" {
		base = 0 // --compare takes no --base
	}
	reps, err := plan.Compare(dirs, f.Format, f.HTML, base)
	if err != nil {
		return err
	}
	if f.Format == "json" {
		return report.CompareJSON(out, dirs[0], dirs[1], reps)
	}
	fmt.Fprintf(out, "# rumbench comparison: NEW %s / OLD %s\n\n", dirs[1], dirs[0])
	for _, rep := range reps {
		if err := report.CompareMarkdown(out, rep); err != nil {
			return err
		}
	}
	return nil
}
