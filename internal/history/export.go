package history

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"rumbench/internal/figure"
)

// OtavaTimeFormat is how the export writes times: a form Apache Otava's
// (formerly Hunter's) CSV reader parses, with its zone.
const OtavaTimeFormat = "2006-01-02 15:04:05 -0700"

// OtavaAttributes are the export's attribute columns: what Otava shows
// beside a change point to say which build it came with.
var OtavaAttributes = []string{"run", "rumbench_version", "rumbench_commit", "engine_version", "hostname"}

// ExportOtava writes ss as the CSV Apache Otava reads: one row per run,
// oldest first, a time column, the attribute columns and one metric column
// per step and figure, "<step>.<figure>" (empty where a run has no value),
// of the figures named (all when empty). Otava takes a CSV as one test, so
// ss must be one variant's series (one workload, sizes, label and host
// class). It returns the metric columns written.
func ExportOtava(w io.Writer, ss []*Series, figures []string) ([]string, error) {
	if len(ss) == 0 {
		return nil, fmt.Errorf("no recorded runs match: nothing to export (see `rumbench history list`)")
	}
	groups := map[string]bool{}
	var names []string
	for _, s := range ss {
		k := s.Key
		g := fmt.Sprintf("%s %s [%s] on %s", k.Label, k.Workload, k.Sizes, k.HostClass)
		if !groups[g] {
			groups[g] = true
			names = append(names, g)
		}
	}
	if len(groups) > 1 {
		return nil, fmt.Errorf("the runs selected belong to %d variants (%s); Otava reads one per file: narrow with --label, --workload or --host-class", len(groups), strings.Join(names, "; "))
	}
	want := map[string]bool{}
	for _, f := range figures {
		want[f] = true
	}
	order := map[string]int{}
	for i, k := range figure.Keys() {
		order[k] = i
	}
	var cols []string
	seenCol := map[string]bool{}
	rows := map[string]map[string]float64{}
	var runs []*Run
	for _, s := range ss {
		var figs []string
		for _, p := range s.Points {
			for f := range p.Figures {
				if (len(want) == 0 || want[f]) && !seenCol[s.Key.Step+"."+f] {
					seenCol[s.Key.Step+"."+f] = true
					figs = append(figs, f)
				}
			}
		}
		sort.Slice(figs, func(i, j int) bool { return order[figs[i]] < order[figs[j]] })
		for _, f := range figs {
			cols = append(cols, s.Key.Step+"."+f)
		}
		for _, p := range s.Points {
			r := rows[p.Run.Key]
			if r == nil {
				r = map[string]float64{}
				rows[p.Run.Key] = r
				runs = append(runs, p.Run)
			}
			for f, v := range p.Figures {
				r[s.Key.Step+"."+f] = v
			}
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("none of the figures %s was recorded for the runs selected", strings.Join(figures, ", "))
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].StartedAt.Before(runs[j].StartedAt) })
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string{"time"}, OtavaAttributes...), cols...))
	for _, r := range runs {
		rec := []string{r.StartedAt.UTC().Format(OtavaTimeFormat), r.Key[:12], r.ToolVersion, r.ToolCommit, r.EngineVersion, r.Hostname}
		for _, c := range cols {
			if v, ok := rows[r.Key][c]; ok {
				rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
			} else {
				rec = append(rec, "")
			}
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cols, cw.Error()
}

// OtavaConfig is an Otava configuration (YAML) naming the CSV at file as
// one test with its time, attribute and metric columns.
func OtavaConfig(test, file string, metrics []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tests:\n  %s:\n    type: csv\n    file: %s\n    time_column: time\n", test, file)
	fmt.Fprintf(&b, "    attributes: [%s]\n", strings.Join(OtavaAttributes, ", "))
	b.WriteString("    metrics:\n")
	for _, m := range metrics {
		dir := 1
		if i := strings.LastIndex(m, "."); i >= 0 && !HigherIsBetter(m[i+1:]) {
			dir = -1
		}
		fmt.Fprintf(&b, "      %s:\n        direction: %d\n", m, dir)
	}
	b.WriteString("    csv_options:\n      delimiter: \",\"\n")
	return b.String()
}
