package historycli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"rumbench/internal/history"
)

// List prints the runs flt selects from the history given, oldest first.
func List(ctx context.Context, given string, flt history.Filter, w io.Writer) error {
	s, err := Open(ctx, given, false)
	if err != nil {
		return err
	}
	defer s.Close()
	runs, err := s.Runs(ctx, flt)
	if err != nil {
		return err
	}
	return printRuns(w, runs, s.Where())
}

// printRuns prints runs, a row each; where names the store.
func printRuns(w io.Writer, runs []*history.Run, where string) error {
	if len(runs) == 0 {
		fmt.Fprintf(w, "no recorded runs match (history %s)\n", where)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED (UTC)\tLABEL\tENGINE\tWORKLOAD\tSTEPS\tRUMBENCH\tHOST CLASS\tDIR")
	for _, r := range runs {
		state := strconv.Itoa(r.Steps)
		if !r.Complete {
			state += " (incomplete)"
		}
		fmt.Fprintf(tw, "%.12s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\n", r.Key, r.StartedAt.UTC().Format("2006-01-02 15:04:05"),
			r.Label, r.Engine, r.EngineVersion, r.Workload, state, Build(r), r.HostClass, r.Dir)
	}
	return tw.Flush()
}

// Build is the rumbench build a run was made with: version and commit (12
// characters).
func Build(r *history.Run) string {
	c := r.ToolCommit
	if len(c) > 12 {
		c = c[:12]
	}
	return strings.TrimSpace(r.ToolVersion + " " + c)
}

// Figures reads a --figure list: blanks dropped; empty is the default set.
func Figures(given []string) []string {
	var out []string
	for _, f := range given {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
