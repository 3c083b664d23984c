package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/plan"
	"rumbench/internal/report"
	"rumbench/internal/runner"
)

func addRepeatFlag(fs *pflag.FlagSet, n *int) {
	fs.IntVar(n, "repeat", 1, "run each engine (each cell of a sweep) this many times from scratch, interleaved (A B A B ...), into <out>/rep-1, rep-2, ...; reports give medians with 95% intervals and test differences (Mann–Whitney U); at least 4 to ever show a significant difference, 6 for a finite interval")
}

// addCooldownFlag adds --cooldown (run, sweep).
func addCooldownFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "cooldown", 0, "pause this long between two runs (engines, repetitions, sweep cells), so one run's hot device and CPU do not start the next; recorded in run.json's config (cooldown_s)")
}

// runRepeated runs every engine n times, one whole round of engines per
// repetition (A B A B ..., so slow drift of the machine spreads over every
// engine alike), each repetition from scratch into its own directory; runOut
// follows the current repetition (the memory-limit child writes there). It
// stops at the first failure or interruption and reports over what was
// gathered.
func runRepeated(ctx context.Context, ro *runner.Options, n int, out string, runOut *string, w io.Writer, summarize func() (*report.Report, error)) error {
	var runErr error
	done := 0
	for k, dir := range plan.RepeatDirs(out, n) {
		if k > 0 {
			if runErr = runner.Cooldown(ctx, ro.Cooldown, w); runErr != nil {
				break
			}
		}
		fmt.Fprintf(w, "== repetition %d/%d: %s\n", k+1, n, dir)
		ro.Out, *runOut = dir, dir
		_, runErr = runner.Run(ctx, *ro)
		if runErr != nil {
			break
		}
		done++
	}
	// As a single run does, an interrupted one reports what it gathered
	// (unfinished steps are left out of the statistics).
	var rep *report.Report
	if len(report.RepDirs(out)) > 0 {
		var err error
		if rep, err = summarize(); err != nil {
			fmt.Fprintf(w, "rumbench: could not write the summary: %v\n", err)
		}
	}
	if runErr != nil {
		fmt.Fprintf(w, "\nstopped after %d of %d repetitions complete: %v\n", done, n, runErr)
	}
	fmt.Fprintf(w, "\nresults: %s\n", out)
	if rep != nil {
		// The verdict last: what a reader acts on.
		fmt.Fprintln(w)
		rep.WriteVerdict(w)
	}
	return runErr
}
