package historycli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"rumbench/internal/figure"
	"rumbench/internal/history"
	"rumbench/internal/runner"
)

// Show prints each series as a table over its runs, change points marked,
// and with htmlPath set writes the series' charts there too; where names
// the store.
func Show(w io.Writer, ss []*history.Series, where string, figs []string, o history.DetectOptions, htmlPath string) error {
	if len(ss) == 0 {
		fmt.Fprintf(w, "no recorded series match (history %s)\n", where)
		return nil
	}
	var all []*history.Finding
	for i, ser := range ss {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fs := history.Check([]*history.Series{ser}, figs, o)
		all = append(all, fs...)
		showSeries(w, ser, figs, fs)
	}
	if htmlPath == "" {
		return nil
	}
	out, err := os.Create(htmlPath)
	if err != nil {
		return &runner.BadInputError{Err: fmt.Errorf("--html: %w", err)}
	}
	if err := history.WriteHTML(out, ss, figs, all); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", htmlPath, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", htmlPath, err)
	}
	fmt.Fprintf(w, "\nHTML: %s\n", htmlPath)
	return nil
}

// showSeries prints one series as a table, a row per run, with the change
// points found marked on the run that starts the new level.
func showSeries(w io.Writer, ser *history.Series, figs []string, findings []*history.Finding) {
	if len(figs) == 0 {
		figs = history.CheckFigures
	}
	var cols []string
	for _, fg := range figs {
		for _, p := range ser.Points {
			if _, ok := p.Figures[fg]; ok {
				cols = append(cols, fg)
				break
			}
		}
	}
	marks := map[*history.Point][]string{}
	for _, f := range findings {
		marks[f.At] = append(marks[f.At], fmt.Sprintf("%s %s %+.1f%%", mark(f), f.Figure, 100*f.Change.Rel()))
	}
	fmt.Fprintf(w, "%s — %d runs\n", ser.Key, len(ser.Points))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "#\tstarted (UTC)\trumbench\tengine\t%s\tchange\t\n", strings.Join(cols, "\t"))
	for i, p := range ser.Points {
		vals := make([]string, len(cols))
		for j, c := range cols {
			vals[j] = "—"
			if v, ok := p.Figures[c]; ok {
				vals[j] = figure.Precise(v)
			}
		}
		sort.Strings(marks[p])
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", i+1, p.Run.StartedAt.UTC().Format("2006-01-02 15:04"), Build(p.Run),
			p.Run.EngineVersion, strings.Join(vals, "\t"), strings.Join(marks[p], ", "))
	}
	tw.Flush()
}

// mark names a change in a series' table.
func mark(f *history.Finding) string {
	if f.Regressed {
		return "REGRESSION"
	}
	return "improvement"
}
