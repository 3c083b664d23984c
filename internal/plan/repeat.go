package plan

import (
	"context"
	"fmt"
	"io"

	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/runner"
)

// RunRepeated runs every engine n times, one whole round of engines per
// repetition (A B A B ..., so slow drift of the machine spreads over every
// engine alike), each repetition from scratch into its own directory; runOut
// follows the current repetition (the memory-limit child writes there). It
// stops at the first failure or interruption and reports over what was
// gathered.
func RunRepeated(ctx context.Context, ro *runner.Options, n int, out string, runOut *string, w io.Writer, summarize func() (*report.Report, error)) error {
	var runErr error
	done := 0
	for k, dir := range RepeatDirs(out, n) {
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
	if len(results.RepDirs(out)) > 0 {
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
