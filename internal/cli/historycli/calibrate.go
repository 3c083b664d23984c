package historycli

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"rumbench/internal/history"
)

// Calibration prints the detector's false alarms on A/A series: per
// minimum effect in the order the runs ran and over shuffles random
// orders, then per figure at the chosen settings o.
func Calibration(w io.Writer, c *history.Calibration, o history.DetectOptions, shuffles int) {
	for _, sk := range c.Skipped {
		fmt.Fprintf(w, "left out %s\n", sk)
	}
	runs := 0
	for _, s := range c.Series {
		runs += len(s.Points)
	}
	fmt.Fprintf(w, "A/A calibration: %d series, %d runs in all; alpha %g, at least %d runs a side\n", len(c.Series), runs, o.Alpha, o.MinSegment)
	fmt.Fprintln(w, "(values judged: runs × figures; per 100 runs: change points flagged per 100 runs of one figure; every one is a false alarm)")
	if len(c.Series) == 0 {
		fmt.Fprintln(w, "no A/A series to judge: record repeated runs of one build and config (rumbench run --repeat N --history ...)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "min effect\tvalues judged\tflagged\tper 100 runs\tshuffled ×%d: flagged\tper 100 runs\t\n", shuffles)
	for _, r := range c.Rows {
		mark := ""
		if r.MinEffect == o.MinEffect {
			mark = " (chosen)"
		}
		fmt.Fprintf(tw, "%g%%%s\t%d\t%d\t%.2f\t%d\t%.2f\t\n", 100*r.MinEffect, mark, r.Points, r.Flagged, r.PerHundred(), r.ShuffledFlagged, r.ShuffledPerHundred())
	}
	tw.Flush()
	var figs []string
	for fg := range c.ByFigure {
		figs = append(figs, fg)
	}
	sort.Strings(figs)
	fmt.Fprintf(w, "per figure at min effect %g%%:\n", 100*o.MinEffect)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, fg := range figs {
		r := c.ByFigure[fg]
		fmt.Fprintf(tw, "%s\t%d runs\t%.2f per 100\tshuffled %.2f per 100\t\n", fg, r.Points, r.PerHundred(), r.ShuffledPerHundred())
	}
	tw.Flush()
}
