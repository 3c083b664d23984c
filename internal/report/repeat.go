package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"rumbench/internal/figure"
	"rumbench/internal/stats"
	"sort"
	"strings"
)

// repStats replaces the row's values by their medians over the run's
// repetitions that completed the step, and points the row at the
// repetition whose headline rate is the median (its intervals, stalls and
// latency are what the step's single-run views show).
func (row *Row) repStats(step string) {
	samples := stats.Samples{}
	var rates []float64
	for _, b := range row.Run.Reps {
		rr := buildRow(&Run{Num: row.Run.Num, Label: row.Run.Label, Short: row.Run.Short, Bundle: b}, step)
		if rr.Status != StatusOK {
			continue
		}
		row.Reps = append(row.Reps, b)
		src := rr.source(step)
		for i := range figure.Catalogue {
			if v := figure.Catalogue[i].Of(src); v.OK {
				samples.Add(figure.Catalogue[i].Key, v.V)
			}
		}
		rate := math.NaN()
		if v := figure.Get(figure.RateAvg, src); v.OK {
			rate = v.V
		}
		rates = append(rates, rate)
	}
	if len(row.Reps) == 0 {
		// No repetition completed the step: the first one's partial
		// figures, as for a single run.
		return
	}
	row.Stats = samples.Stats()
	for _, f := range figure.Catalogue {
		row.Values[f.Key] = Value{}
		if st := row.Stats[f.Key]; st != nil {
			row.Values[f.Key] = figure.Known(st.Median)
		}
	}
	// The median repetition by headline rate (the lower middle one for
	// an even count).
	order := make([]int, len(rates))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return rates[order[i]] < rates[order[j]] })
	med := row.Reps[order[(len(order)-1)/2]]
	if med != row.B {
		m := buildRow(&Run{Num: row.Run.Num, Label: row.Run.Label, Short: row.Run.Short, Bundle: med}, step)
		row.B, row.Stalls, row.Targets, row.Error = med, m.Stalls, m.Targets, m.Error
		row.Status = m.Status
	}
}

// Repeated reports whether any run of the report has repetitions.
func (r *Report) Repeated() bool {
	for _, run := range r.Runs {
		if len(run.Reps) > 0 {
			return true
		}
	}
	return false
}

// CompareMarkdown writes a two-run report (OLD as the base, NEW) as the
// step tables and their ratios, the form `report --compare` prints.
func CompareMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s → %s\n\n", runName(r.Runs[0]), runName(r.Runs[1]))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s\n", n)
	}
	for _, sr := range r.Steps {
		tables := r.StepTables(sr)
		for i, t := range tables {
			if i > 1 {
				break // the step's table and its ratios; not the device rates
			}
			writeMDTable(&b, t, "###")
		}
	}
	for _, c := range r.Caveats {
		fmt.Fprintf(&b, "%s\n\n", c)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CompareJSON writes the reports of `report --compare` as one document:
// each report's rows carry, per figure, the ratio of medians, the p-value
// and whether the difference is significant (vs_base_test).
func CompareJSON(w io.Writer, oldDir, newDir string, reps []*Report) error {
	doc := struct {
		Format      string            `json:"format"`
		Old         string            `json:"old"`
		New         string            `json:"new"`
		Alpha       float64           `json:"alpha"`
		Comparisons []json.RawMessage `json:"comparisons"`
	}{Format: "rumbench-compare/1", Old: oldDir, New: newDir, Alpha: stats.Alpha}
	for _, r := range reps {
		var b strings.Builder
		if err := r.JSON(&b); err != nil {
			return err
		}
		doc.Comparisons = append(doc.Comparisons, json.RawMessage(b.String()))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}
