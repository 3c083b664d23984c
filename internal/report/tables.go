package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Table is one rendered table: cells are final text, shared by the
// markdown and HTML renderers.
type Table struct {
	Title   string
	Headers []string
	// Right marks right-aligned (numeric) columns.
	Right []bool
	Rows  [][]string
	// Notes are printed under the table.
	Notes []string
}

// column is a table column of a step table.
type column struct {
	Header string
	Key    string
}

var writeColumns = []column{
	{"IPS.av(rows/s)", "ips_avg"}, {"IPS.99(rows/s)", "ips_99"}, {"CPU/i(µs)", "cpu_us_per_insert"},
	{"wKB/i", "wkb_per_insert"}, {"rKB/i", "rkb_per_insert"}, {"r/i", "reads_per_insert"},
	{"size(GB)", "size_gb"}, {"PSS(GB)", "pss_gb"}, {"max(ms)", "max_ms"},
}

var queryColumns = []column{
	{"IPS.av(rows/s)", "ips_avg"}, {"IPS.99(rows/s)", "ips_99"}, {"wKB/i", "wkb_per_insert"},
	{"QPS.av(q/s)", "qps_avg"}, {"QPS.99(q/s)", "qps_99"}, {"rKB/q", "rkb_per_query"},
	{"CPU/q(µs)", "cpu_us_per_query"}, {"max(ms)", "max_ms"},
}

func columnsFor(k Kind) []column {
	if k == KindQuery {
		return queryColumns
	}
	return writeColumns
}

// Cell texts for what is not a number.
const (
	naText     = "n/a" // the run did not measure it
	notRunText = "—"   // the step did not run
)

// fmtNum prints a value with precision that suits its size.
func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.001:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

func fmtRatio(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func cell(v Value, f func(float64) string) string {
	if !v.OK {
		return naText
	}
	return f(v.V)
}

func runName(r *Run) string { return fmt.Sprintf("#%d %s", r.Num, r.Label) }

// stallCell is the stalls column: stalled intervals and their seconds.
func stallCell(st *Stall) string {
	if st == nil {
		return naText
	}
	if st.Count == 0 {
		return "0"
	}
	return fmt.Sprintf("%d,%s", st.Count, fmtNum(st.Seconds))
}

// stepValue returns a row's value of key, with l.x's index rate standing in
// for the insert rate it does not have.
func stepValue(row *Row, key string, ratios bool) (Value, bool) {
	vals := row.Values
	if ratios {
		vals = row.Ratios
	}
	if key == "ips_avg" && !row.Values["ips_avg"].OK && row.Values["indexed_rows_per_s"].OK {
		return vals["indexed_rows_per_s"], true
	}
	return vals[key], false
}

// StepTables returns the absolute and (with several runs) relative tables
// of one step.
func (r *Report) StepTables(sr *StepReport) []Table {
	cols := columnsFor(sr.Kind)
	stallOp := "insert"
	if sr.Kind == KindQuery {
		stallOp = "query"
	}
	abs := Table{Title: fmt.Sprintf("%s (%s step)", sr.Name, sr.Kind)}
	rel := Table{Title: fmt.Sprintf("%s relative to base %s (run / base)", sr.Name, runName(r.Runs[r.Base]))}
	abs.Headers = []string{"run", "status"}
	rel.Headers = []string{"run", "status"}
	abs.Right = []bool{false, false}
	rel.Right = []bool{false, false}
	for _, c := range cols {
		abs.Headers = append(abs.Headers, c.Header)
		rel.Headers = append(rel.Headers, c.Header)
		abs.Right = append(abs.Right, true)
		rel.Right = append(rel.Right, true)
	}
	abs.Headers = append(abs.Headers, "stalls(n,s)")
	abs.Right = append(abs.Right, true)
	indexRate, missed := false, false
	for _, row := range sr.Rows {
		a := []string{runName(row.Run), row.Status}
		l := []string{runName(row.Run), row.Status}
		for _, c := range cols {
			if row.Status == StatusNotRun {
				a = append(a, notRunText)
				l = append(l, notRunText)
				continue
			}
			v, sub := stepValue(row, c.Key, false)
			rv, _ := stepValue(row, c.Key, true)
			indexRate = indexRate || (sub && v.OK)
			t := cell(v, fmtNum)
			if c.Key == "ips_avg" && row.TargetMet != nil && !*row.TargetMet {
				t += "!"
				missed = true
			}
			a = append(a, t)
			l = append(l, cell(rv, fmtRatio))
		}
		if row.Status == StatusNotRun {
			a = append(a, notRunText)
		} else {
			a = append(a, stallCell(row.Stalls[stallOp]))
		}
		abs.Rows = append(abs.Rows, a)
		rel.Rows = append(rel.Rows, l)
		if row.Error != "" {
			abs.Notes = append(abs.Notes, fmt.Sprintf("%s: %s: %s", runName(row.Run), row.Status, row.Error))
		}
	}
	if indexRate {
		abs.Notes = append(abs.Notes, "IPS.av here is rows indexed per second (the index build); max(ms) is the longest index build of one table.")
	}
	if missed {
		for _, row := range sr.Rows {
			if row.TargetMet != nil && !*row.TargetMet {
				abs.Notes = append(abs.Notes, missedNote(row))
			}
		}
	}
	out := []Table{abs}
	if len(r.Runs) > 1 {
		out = append(out, rel)
	}
	return out
}

func missedNote(row *Row) string {
	ips := row.Values["ips_avg"]
	if !row.IPSTarget.OK || row.IPSTarget.V == 0 || !ips.OK {
		return fmt.Sprintf("! %s missed its insert rate target", runName(row.Run))
	}
	return fmt.Sprintf("! %s missed its insert rate target of %s rows/s: %s rows/s (%+.1f%%)",
		runName(row.Run), fmtNum(row.IPSTarget.V), fmtNum(ips.V), (ips.V/row.IPSTarget.V-1)*100)
}

// RunsTable lists the runs: what --base numbers mean.
func (r *Report) RunsTable() Table {
	t := Table{
		Title:   "runs",
		Headers: []string{"#", "label", "engine", "version", "workload", "complete", "started", "dir"},
		Right:   []bool{true, false, false, false, false, false, false, false},
	}
	for _, run := range r.Runs {
		b := run.Bundle.Run
		num := strconv.Itoa(run.Num)
		if run.Num-1 == r.Base {
			num += " (base)"
		}
		wl := workloadText(run)
		if len(run.SizeDiffs) > 0 {
			wl += " ≠base"
		}
		t.Rows = append(t.Rows, []string{
			num, run.Label, fmt.Sprintf("%s (%s, %s)", b.Engine.Name, b.Engine.Family, b.Engine.Kind),
			b.Engine.Version, wl, strconv.FormatBool(b.Complete), b.StartedAt.UTC().Format("2006-01-02 15:04:05Z"), run.Bundle.Dir,
		})
	}
	return t
}

func workloadText(run *Run) string {
	s := run.Sizes
	if s["rows"] == "" {
		return orDash(s["workload"])
	}
	return fmt.Sprintf("%s %sx%s rows, churn %s, %s idx, pad %s-%s", s["workload"], orDash(s["clients"]), s["rows"],
		orDash(s["churn_rows"]), orDash(s["indexes"]), orDash(s["pad_min"]), orDash(s["pad_max"]))
}

// ThroughputTable is the summary: a row per run, a column per step.
func (r *Report) ThroughputTable() Table {
	t := Table{Title: "throughput summary (write steps: inserted rows/s, l.x: indexed rows/s; query steps: queries/s)"}
	t.Headers = []string{"run"}
	t.Right = []bool{false}
	for _, sr := range r.Steps {
		_, unit := sr.Rows[0].Throughput(sr.Kind)
		t.Headers = append(t.Headers, fmt.Sprintf("%s(%s)", sr.Name, unit))
		t.Right = append(t.Right, true)
	}
	for i, run := range r.Runs {
		line := []string{runName(run)}
		for _, sr := range r.Steps {
			line = append(line, throughputCell(sr.Rows[i], sr.Kind))
		}
		t.Rows = append(t.Rows, line)
	}
	return t
}

func throughputCell(row *Row, k Kind) string {
	switch row.Status {
	case StatusNotRun:
		return StatusNotRun
	case StatusIncomplete:
		v, _ := row.Throughput(k)
		return cell(v, fmtNum) + " (incomplete)"
	}
	v, _ := row.Throughput(k)
	return cell(v, fmtNum)
}

// StallsTable lists every step of every run that stalled.
func (r *Report) StallsTable() Table {
	t := Table{
		Title:   "stalls (intervals below 50% of the step's median rate, or with no progress)",
		Headers: []string{"step", "run", "insert stalls(n)", "insert stalled(s)", "insert longest(s)", "query stalls(n)", "query stalled(s)", "query longest(s)"},
		Right:   []bool{false, false, true, true, true, true, true, true},
	}
	for _, sr := range r.Steps {
		for _, row := range sr.Rows {
			ins, q := row.Stalls["insert"], row.Stalls["query"]
			if (ins == nil || ins.Count == 0) && (q == nil || q.Count == 0) {
				continue
			}
			line := []string{sr.Name, runName(row.Run)}
			for _, st := range []*Stall{ins, q} {
				if st == nil {
					line = append(line, naText, naText, naText)
					continue
				}
				line = append(line, strconv.Itoa(st.Count), fmtNum(st.Seconds), fmtNum(st.LongestS))
			}
			t.Rows = append(t.Rows, line)
		}
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No stalls in any step.")
	}
	return t
}

// Legend explains the columns, once per report.
var Legend = []string{
	"IPS.av: rows inserted / step seconds. IPS.99: the insert rate that 99% of intervals met or exceeded. QPS likewise for queries (queries/s).",
	"CPU/i, CPU/q: CPU µs (user+sys) of the measured processes per inserted row / per query. wKB/i, rKB/i: KB written / read by storage per inserted row; r/i: storage reads per inserted row; rKB/q: KB read per query.",
	"size(GB), PSS(GB): database size and memory (PSS) at step end, 10^9 bytes. max(ms): largest latency of the step's main operation (insert in write steps, query in query steps).",
	"stalls(n,s): stalls (runs of consecutive stalled intervals) and their total seconds (insert rate in write steps, query rate in query steps); a stalled interval has a rate below 50% of the step median, or no progress.",
	"n/a: not measured in that run (e.g. system metrics unavailable); —: step not run. A trailing ! marks a query step whose writer missed its insert rate target.",
	"Relative tables divide each figure by the base run's (--base N, 1-based run number; default 1).",
}

// Title is the report's heading line.
func (r *Report) Title() string {
	var names []string
	for _, run := range r.Runs {
		names = append(names, run.Label)
	}
	return "rumbench report: " + strings.Join(names, " vs ")
}
