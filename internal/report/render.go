package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/results"
	"rumbench/internal/stats"
	"rumbench/internal/table"
	"rumbench/internal/units"
)

// Markdown writes the report as markdown whose tables are padded so they
// also read well in a terminal.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	r.summary(&b)
	writeMDTable(&b, r.RunsTable(), "##")
	r.notes(&b)
	for _, sr := range r.Steps {
		for i, t := range r.StepTables(sr) {
			level := "##"
			if i > 0 {
				level = "###"
			}
			writeMDTable(&b, t, level)
		}
	}
	b.WriteString("Legend:\n")
	for _, l := range Legend {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary writes only the summary: the title and its warnings, the
// relative tables, the absolute throughput and the stalls (what `run
// --quiet` prints before the verdict).
func (r *Report) Summary(w io.Writer) error {
	var b strings.Builder
	r.summary(&b)
	r.notes(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// summary writes what qualifies every number first (the title and its
// warnings), then the comparison relative to the base, then the absolute
// throughput and the stalls.
func (r *Report) summary(b *strings.Builder) {
	fmt.Fprintf(b, "# %s\n\n", r.Title())
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "%s\n\n", w)
	}
	if len(r.Runs) > 1 {
		writeMDTable(b, r.RelativeTable(), "##")
		writeMDTable(b, r.EfficiencyTable(), "##")
	}
	writeMDTable(b, r.ThroughputTable(), "##")
	if t, ok := r.WhyTable(); ok {
		writeMDTable(b, t, "##")
	}
	writeMDTable(b, r.StallsTable(), "##")
}

func (r *Report) notes(b *strings.Builder) {
	for _, n := range r.Notes {
		fmt.Fprintf(b, "%s\n", n)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
}

func writeMDTable(b *strings.Builder, t Table, level string) { table.WriteMarkdown(b, t, level) }

// textWidth counts runes: every character the report prints is one column wide.
func textWidth(s string) int { return table.Width(s) }

// CSV writes one line per step per run with every figure, ratios to the
// base run as <key>_vs_base; unavailable figures are empty cells.
func (r *Report) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"step", "kind", "run", "label", "engine", "base", "status", "error", "main_op", "rate_op", "write_op"}
	keys := figure.Keys()
	head = append(head, keys...)
	head = append(head, "ips_target", "target_met", "stalls", "stall_s", "stall_longest_s")
	for _, k := range keys {
		head = append(head, k+"_vs_base")
	}
	head = append(head, "sizes_differ_from_base")
	if err := cw.Write(head); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	csvNum := func(v Value) string {
		if !v.OK {
			return ""
		}
		return units.Export(v.V)
	}
	for _, sr := range r.Steps {
		for _, row := range sr.Rows {
			rec := []string{sr.Name, string(sr.Kind), strconv.Itoa(row.Run.Num), row.Run.Label,
				row.Run.Bundle.Run.Engine.Name, strconv.Itoa(r.Base + 1), row.Status, row.Error, row.MainOp, row.RateOp, row.WriteOp}
			for _, k := range keys {
				rec = append(rec, csvNum(row.Values[k]))
			}
			// ips_target, target_met: the writers' target, as version 1
			// reports wrote it (the JSON has every target).
			tm, rate := "", Value{}
			if t, ok := row.Targets.Of(results.LegacyTargetOp); ok {
				tm, rate = strconv.FormatBool(t.Met), t.Rate
			}
			rec = append(rec, csvNum(rate), tm)
			if st := row.Stalls[row.RateOp]; st != nil {
				rec = append(rec, strconv.Itoa(st.Count), csvNum(figure.Known(st.Seconds)), csvNum(figure.Known(st.LongestS)))
			} else {
				rec = append(rec, "", "", "")
			}
			for _, k := range keys {
				rec = append(rec, csvNum(row.Ratios[k]))
			}
			rec = append(rec, strings.Join(row.Run.SizeDiffs, "; "))
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("write csv: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// jsonValue encodes an unavailable value as null.
type jsonValue Value

func (v jsonValue) MarshalJSON() ([]byte, error) {
	if !v.OK {
		return []byte("null"), nil
	}
	return []byte(units.Export(v.V)), nil
}

type jsonRun struct {
	Run       int               `json:"run"`
	Label     string            `json:"label"`
	Base      bool              `json:"base"`
	Engine    string            `json:"engine"`
	Version   string            `json:"version"`
	Note      string            `json:"note,omitempty"`
	Dir       string            `json:"dir"`
	Complete  bool              `json:"complete"`
	Sizes     map[string]string `json:"sizes"`
	SizeDiffs []string          `json:"sizes_differ_from_base,omitempty"`
	// Repetitions are the bundles of a repeated run, in the order they ran.
	Repetitions []string `json:"repetitions,omitempty"`
}

type jsonRow struct {
	Run       int                  `json:"run"`
	Label     string               `json:"label"`
	Status    string               `json:"status"`
	Error     string               `json:"error,omitempty"`
	MainOp    string               `json:"main_op,omitempty"`
	RateOp    string               `json:"rate_op,omitempty"`
	WriteOp   string               `json:"write_op,omitempty"`
	Values    map[string]jsonValue `json:"values"`
	VsBase    map[string]jsonValue `json:"vs_base"`
	Stalls    map[string]*Stall    `json:"stalls"`
	IPSTarget jsonValue            `json:"ips_target"`
	TargetMet *bool                `json:"target_met"`
	Targets   []jsonTarget         `json:"targets,omitempty"`
	// Repeated runs: each value over the repetitions (values holds the
	// medians), and the test against the base run's repetitions.
	Stats      map[string]*stats.Stat       `json:"stats,omitempty"`
	VsBaseTest map[string]*stats.Comparison `json:"vs_base_test,omitempty"`
	MedianRep  string                       `json:"median_repetition,omitempty"`
}

type jsonStep struct {
	Step string    `json:"step"`
	Kind Kind      `json:"kind"`
	Rows []jsonRow `json:"rows"`
}

type jsonReport struct {
	Format  string     `json:"format"`
	Base    int        `json:"base"`
	Runs    []jsonRun  `json:"runs"`
	Notes   []string   `json:"notes"`
	Caveats []string   `json:"caveats,omitempty"`
	Steps   []jsonStep `json:"steps"`
	Units   any        `json:"units"`
}

// JSON writes the report as one JSON document; unavailable figures are null.
func (r *Report) JSON(w io.Writer) error {
	out := jsonReport{Format: "rumbench-report/2", Base: r.Base + 1, Notes: append(append([]string(nil), r.Warnings...), r.Notes...), Caveats: r.Caveats, Units: unitMap()}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, run := range r.Runs {
		b := run.Bundle.Run
		out.Runs = append(out.Runs, jsonRun{
			Run: run.Num, Label: run.Label, Base: run.Num-1 == r.Base, Engine: b.Engine.Name,
			Version: b.Engine.Version, Note: b.Engine.Note, Dir: run.Bundle.Dir, Complete: b.Complete,
			Sizes: run.Sizes, SizeDiffs: run.SizeDiffs,
		})
		for _, rep := range run.Reps {
			out.Runs[len(out.Runs)-1].Repetitions = append(out.Runs[len(out.Runs)-1].Repetitions, rep.Dir)
		}
	}
	for _, sr := range r.Steps {
		js := jsonStep{Step: sr.Name, Kind: sr.Kind}
		for _, row := range sr.Rows {
			jr := jsonRow{Run: row.Run.Num, Label: row.Run.Label, Status: row.Status, Error: row.Error,
				MainOp: row.MainOp, RateOp: row.RateOp, WriteOp: row.WriteOp, Values: map[string]jsonValue{}, VsBase: map[string]jsonValue{},
				Stalls: row.Stalls, Targets: jsonTargets(row.Targets),
				Stats: row.Stats, VsBaseTest: row.Cmp}
			if t, ok := row.Targets.Of(results.LegacyTargetOp); ok {
				// The writers' target under its version 1 keys.
				jr.IPSTarget, jr.TargetMet = jsonValue(t.Rate), &t.Met
			}
			if row.Stats != nil {
				jr.MedianRep = row.B.Dir
			}
			for _, k := range figure.Keys() {
				jr.Values[k] = jsonValue(row.Values[k])
				jr.VsBase[k] = jsonValue(row.Ratios[k])
			}
			js.Rows = append(js.Rows, jr)
		}
		out.Steps = append(out.Steps, js)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// unitMap documents every value key.
func unitMap() map[string]string {
	m := map[string]string{}
	for _, f := range figure.Catalogue {
		m[f.Key] = f.Desc
	}
	return m
}

// jsonTarget is one paced operation's target and verdict.
type jsonTarget struct {
	Op       string    `json:"op"`
	Who      string    `json:"who"`
	Unit     string    `json:"unit"`
	Rate     jsonValue `json:"rate"`
	Achieved jsonValue `json:"achieved"`
	PctOf    jsonValue `json:"pct_of_target"`
	Met      bool      `json:"met"`
}

func jsonTargets(ts figure.Targets) []jsonTarget {
	var out []jsonTarget
	for _, t := range ts {
		out = append(out, jsonTarget{Op: t.Op, Who: t.Who, Unit: t.UnitLabel(), Rate: jsonValue(t.Rate), Achieved: jsonValue(t.Achieved), PctOf: jsonValue(t.PctOf), Met: t.Met})
	}
	return out
}
