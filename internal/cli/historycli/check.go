package historycli

import (
	"fmt"
	"io"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/history"
)

// Check prints the change points of ss and returns an error (exit 1) when
// a series' newest runs hold a regression.
func Check(w io.Writer, ss []*history.Series, figs []string, o history.DetectOptions) error {
	short := 0
	for _, ser := range ss {
		if len(ser.Points) < 2*o.MinSegment {
			short++
		}
	}
	findings := history.Check(ss, figs, o)
	gates := 0
	gated := map[*history.Series]bool{}
	for _, f := range findings {
		var what string
		if f.Gate() {
			what = "REGRESSION"
			gates++
			gated[f.Series] = true
		} else if f.Regressed {
			what = "earlier regression"
		} else {
			what = "improvement"
		}
		fmt.Fprintf(w, "%s: %s\n  %s %s → %s (%+.1f%%, corrected p=%.2g) at run %d of %d, %s (rumbench %s, engine %s %s); run %d was %s\n",
			what, f.Series.Key, f.Figure, figure.Precise(f.Change.Before), figure.Precise(f.Change.After), 100*f.Change.Rel(), f.Change.P,
			f.Position, f.Runs, f.At.Run.StartedAt.UTC().Format("2006-01-02 15:04"), Build(f.At.Run), f.At.Run.Engine, f.At.Run.EngineVersion,
			f.Position-1, f.Prev.Run.StartedAt.UTC().Format("2006-01-02 15:04"))
		if len(f.Differs) == 0 {
			fmt.Fprintf(w, "  nothing recorded differs between runs %d and %d (same builds, settings and host)\n", f.Position-1, f.Position)
		} else {
			fmt.Fprintf(w, "  differs from run %d: %s\n", f.Position-1, strings.Join(f.Differs, "; "))
		}
	}
	fmt.Fprintf(w, "history check: %d series (%d with fewer than %d runs, too few to judge), %d changes, %d regressions in the newest runs of %d series (min effect %.1f%%, alpha %g)\n",
		len(ss), short, 2*o.MinSegment, len(findings), gates, len(gated), 100*o.MinEffect, o.Alpha)
	if gates > 0 {
		return &RegressionError{Series: len(gated)}
	}
	return nil
}

// RegressionError is Check's verdict that the newest runs of some series
// hold a regression: the gate fails (exit 1).
type RegressionError struct{ Series int }

func (e *RegressionError) Error() string {
	return fmt.Sprintf("history check: the newest runs of %d series hold a regression", e.Series)
}
