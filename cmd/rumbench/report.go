package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"rumbench/internal/plan"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
)

type reportFlags struct {
	base      string
	format    string
	html      string
	compareTo string
	compare   bool
	// allowMixed lets report compare runs of different workload sizes.
	allowMixed bool
}

func newReportCmd() *cobra.Command {
	f := &reportFlags{}
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Compare run bundles: per-step tables, ratios to a base run, throughput summary, HTML charts",
		Long: `Report one or more runs. Each DIR is an engine's bundle (it holds run.json)
or a directory of bundles (the --out of rumbench run, one <engine>/ each).

A repeated run's --out (rep-1, rep-2, ... inside, from --repeat) is one
run per engine over its repetitions: figures are medians with their 95%
confidence interval, ratios are ratios of medians, marked ~ when the
difference is not significant (Mann–Whitney U, α = 0.05). --compare OLD NEW
compares two result dirs engine by engine.

It leads with each step's headline rate and its cost per operation
relative to the base run, then the absolute throughput summary (a row per
run, a column per step), the stalls and, per step, a row per run with the
published columns (units in the headers) and the same relative to the base.
It ends with the verdict that also ends ` + "`rumbench run`" + `: per step, which run
led and by how much ("X ran 2.10× faster than Y"; ~ where repetitions show
no significant difference). Runs are numbered 1..N in
the order given (a --out directory's engines in the order they ran); --base
takes that 1-based number. Figures a run did not measure show as n/a, steps
it did not run as —, never as 0. Runs whose workload sizes differ from the
base are flagged.`,
		Example: `  rumbench report rumbench-results/20260101-120000
  rumbench report results/pebble results/sqlite --base 2
  rumbench report results/* --format csv > steps.csv
  rumbench report results/run1 --html report.html
  rumbench report --compare results/before results/after`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &runner.BadInputError{Err: fmt.Errorf("report needs at least one DIR: a run bundle or a run's --out directory")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.base, "base", "1", "base run for the relative tables: its 1-based number, in the order the runs are listed, or its variant's label (--engine LABEL=ENGINE; an engine's name for a run without one)")
	fl.StringVar(&f.format, "format", "md", "output format: md (markdown, aligned for terminals), csv (one line per step per run), json")
	fl.StringVar(&f.html, "html", "", "also write a self-contained HTML report with charts to this file")
	fl.StringVar(&f.compareTo, "compare-to", "", "with a sweep directory: also print each matrix relative to this earlier sweep's")
	fl.BoolVar(&f.allowMixed, "allow-mixed", false, "compare runs whose workload sizes differ (rows, clients, ...); without it report refuses them, since their ratios compare different work (the report's warning says which sizes differ)")
	fl.BoolVar(&f.compare, "compare", false, "report --compare OLD NEW: compare two result dirs engine by engine (NEW / OLD, medians of their repetitions, ~ where the difference is not significant)")
	return cmd
}

func runReport(cmd *cobra.Command, f *reportFlags, dirs []string) error {
	switch f.format {
	case "md", "csv", "json":
	default:
		return &runner.BadInputError{Err: fmt.Errorf("unknown --format %q: choose md, csv or json", f.format)}
	}
	if n, err := strconv.Atoi(f.base); err == nil && n < 1 {
		return &runner.BadInputError{Err: fmt.Errorf("--base %d is out of range: runs are numbered from 1", n)}
	}
	if f.compare {
		return reportCompare(cmd, f, dirs)
	}
	if len(dirs) == 1 && sweep.IsSweep(dirs[0]) {
		return reportSweep(cmd, f, dirs[0])
	}
	if f.compareTo != "" {
		return &runner.BadInputError{Err: fmt.Errorf("--compare-to compares sweeps: give one sweep directory (the --out of rumbench sweep) as DIR")}
	}
	if f.html != "" {
		if err := report.CheckHTMLPath(f.html); err != nil {
			return &runner.BadInputError{Err: err}
		}
	}
	groups, err := report.LoadGroups(dirs)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	base, err := plan.ReportBase(groups, f.base)
	if err != nil {
		return err
	}
	rep, err := report.BuildGroups(groups, report.Options{Base: base})
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	if !f.allowMixed {
		// Refused rather than marked: a ratio of different work reads
		// like any other once it is copied out of the report.
		for _, r := range rep.Runs {
			if len(r.SizeDiffs) > 0 {
				return &runner.BadInputError{Err: fmt.Errorf("#%d %s ran a different workload size than the base #%d (%s): its ratios would compare different work; report such runs apart, or give --allow-mixed to compare them anyway", r.Num, r.Label, rep.Runs[rep.Base].Num, strings.Join(r.SizeDiffs, ", "))}
			}
		}
	}
	out := cmd.OutOrStdout()
	switch f.format {
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
	if f.html != "" {
		n, err := rep.WriteHTMLFile(f.html)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "rumbench report: wrote %s (%d charts)\n", f.html, n)
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
func reportSweep(cmd *cobra.Command, f *reportFlags, dir string) error {
	bad := func(err error) error { return &runner.BadInputError{Err: err} }
	if f.format != "md" {
		return bad(fmt.Errorf("%s is a sweep: its matrices print as markdown only (drop --format, or report one cell's directory)", dir))
	}
	if f.compareTo != "" && !sweep.IsSweep(f.compareTo) {
		return bad(fmt.Errorf("--compare-to %s is not a sweep directory (it holds no %s)", f.compareTo, sweep.SpecFile))
	}
	if f.html != "" {
		if err := report.CheckHTMLPath(f.html); err != nil {
			return bad(err)
		}
	}
	spec, err := sweep.Load(dir)
	if err != nil {
		return bad(err)
	}
	out := cmd.OutOrStdout()
	if err := sweep.Markdown(out, dir, spec); err != nil {
		return err
	}
	if f.compareTo != "" {
		if err := sweep.CompareMarkdown(out, dir, spec, f.compareTo); err != nil {
			return err
		}
	}
	if f.html != "" {
		n, err := sweep.WriteHTMLFile(f.html, dir, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "rumbench report: wrote %s (%d charts)\n", f.html, n)
	}
	return nil
}

// reportCompare compares two result dirs (runs, repeated runs) engine by
// engine (plan.Compare) and prints one report per pair.
func reportCompare(cmd *cobra.Command, f *reportFlags, dirs []string) error {
	base := 1
	if f.base != "1" {
		base = 0 // --compare takes no --base
	}
	reps, err := plan.Compare(dirs, f.format, f.html, base)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.format == "json" {
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
