package sweep

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"rumbench/internal/chart"
	"rumbench/internal/figure"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/stats"
	"rumbench/internal/table"
	"rumbench/internal/units"
	"rumbench/internal/workload"
)

// readFiguresOf reads one variant's figures keys of a cell's step, dir =
// <cell>/<variant>; in a repeated sweep the medians over
// <cell>/rep-*/<variant> of the repetitions that completed the step.
func readFiguresOf(dir, step string, keys []string) workload.CellFigures {
	reps := results.RepDirs(filepath.Dir(dir))
	if len(reps) == 0 {
		return readRun(dir, step, keys)
	}
	var all, done []workload.CellFigures
	for _, r := range reps {
		f := readRun(filepath.Join(r, filepath.Base(dir)), step, keys)
		all = append(all, f)
		if f.Complete {
			done = append(done, f)
		}
	}
	if len(done) == 0 {
		// None completed it: the first one that ran it, as a single run.
		for _, f := range all {
			if f.Status != workload.CellNotRun {
				return f
			}
		}
		return all[0]
	}
	out := done[0]
	out.Missed = nil
	samples := stats.Samples{}
	for _, f := range done {
		out.Missed = append(out.Missed, f.Missed...)
		for _, k := range keys {
			if v := f.Values[k]; v.OK {
				samples.Add(k, v.V)
			}
		}
	}
	out.Stats = samples.Stats()
	out.Values = map[string]figure.Value{}
	for _, k := range keys {
		if st := out.Stats[k]; st != nil {
			out.Values[k] = figure.Known(st.Median)
		}
	}
	return out
}

// repsNote explains the marks of a repeated sweep's tables.
func repsNote(s *Spec) string {
	return fmt.Sprintf("Each figure is the median of the %d repetitions (those that completed the step); a ratio is of medians, marked ~ when the difference is not significant at α = %.2f (Mann–Whitney U) and ? when there were too few repetitions to tell (fewer than 4 a side).", s.Reps(), stats.Alpha)
}

// readRun reads the figures of one bundle's step: the main operation's
// rate and per-operation costs (the matrices compare the load itself).
func readRun(dir, step string, keys []string) workload.CellFigures {
	b, err := results.Read(dir)
	if err != nil {
		return workload.CellFigures{Status: workload.CellNotRun}
	}
	s := b.Steps[step]
	if s == nil {
		return workload.CellFigures{Status: workload.CellNotRun}
	}
	f := workload.CellFigures{Complete: s.Complete, Status: "ok", Percentile: s.RatePercentile,
		Missed: figure.TargetsOf(s).MissedOnes(), Values: map[string]figure.Value{},
		DBDir: s.Metrics != nil && s.Metrics.DiskSource == results.DiskDatabaseDir}
	if !s.Complete {
		f.Status = "incomplete"
	}
	src := figure.OfOp(s, s.MainOp)
	for _, k := range keys {
		f.Values[k] = figure.Get(k, src)
	}
	return f
}

// view is the sweep in dir as a workload's matrices read it.
type view struct {
	dir string
	s   *Spec
}

func (s *Spec) view(dir string) workload.SweepGrid { return view{dir, s} }

func (v view) Dir() string                      { return v.dir }
func (v view) Variants() []string               { return v.s.Engines }
func (v view) RowHeader() string                { return v.s.RowHeader() }
func (v view) Setting(key string) any           { return v.s.Shared[key] }
func (v view) Reps() int                        { return v.s.Reps() }
func (v view) RepsNote() string                 { return repsNote(v.s) }
func (v view) CellName(p workload.Point) string { return v.s.CellAt(p).Name() }
func (v view) Values(axis string) []int {
	if a := v.s.axis(axis); a != nil {
		return a.Values
	}
	return nil
}
func (v view) Figures(p workload.Point, variant, step string, keys []string) workload.CellFigures {
	return readFiguresOf(filepath.Join(v.dir, v.CellName(p), variant), step, keys)
}

// RowHeader heads the matrices' first column: "variant" when a row is a
// labelled variant (--engine LABEL=ENGINE, --vary), "engine" when every
// row is an engine by its name, as before labels.
func (s *Spec) RowHeader() string {
	for _, e := range s.Engines {
		if s.EngineOf(e) != e {
			return "variant"
		}
	}
	return "engine"
}

// Tables are the matrices of the sweep in dir: its workload's own
// (workload.SweepReporter), else its SweepMatrices.
func Tables(dir string, s *Spec) []table.Table {
	if rep, ok := s.sweeper().(workload.SweepReporter); ok {
		return rep.SweepTables(s.view(dir), nil)
	}
	return workloadTables(dir, s)
}

// Markdown writes the sweep's matrices.
func Markdown(w io.Writer, dir string, s *Spec) error {
	var b strings.Builder
	if rep, ok := s.sweeper().(workload.SweepReporter); ok {
		b.WriteString(rep.SweepHeading(s.view(dir)))
	} else {
		fmt.Fprintf(&b, "# rumbench sweep %s: %s\n\n%ss %s", s.Workload, dir, s.RowHeader(), strings.Join(s.Engines, ","))
		for _, a := range s.Axes {
			fmt.Fprintf(&b, " × %s %s", a.Name, ints(a.Values))
		}
		b.WriteString("\n\n")
	}
	if line := memoryLine(s); line != "" {
		b.WriteString(line + "\n\n")
	}
	for _, t := range Tables(dir, s) {
		table.WriteMarkdown(&b, t, "##")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// memoryLine says which memory cgroup limits the runs had (--memory-limit,
// or per engine from the iobound preset), "" without one.
func memoryLine(s *Spec) string {
	var per []string
	if pm, ok := s.Shared["preset_memory"].(map[string]any); ok {
		// Read back from sweep.json: float64; fresh from the flags: int64.
		for _, e := range s.Engines {
			if v, ok := results.Number(pm[s.EngineOf(e)+".memory_limit"]); ok {
				per = append(per, e+" "+units.Fixed(v/(1<<20), 0)+" MB")
			}
		}
	}
	if len(per) > 0 {
		return "Each engine ran in a memory cgroup (page cache included): " + strings.Join(per, ", ") + "."
	}
	if v, ok := results.Number(s.Shared["memory_limit"]); ok && v > 0 {
		return "Each engine ran in a memory cgroup of " + units.Fixed(v/(1<<20), 0) + " MB (page cache included)."
	}
	return ""
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// CompareTables are the matrices of the sweep in dir relative to the
// earlier sweep in baseDir, cell by cell (this / that); a cell either
// sweep lacks shows why.
func CompareTables(dir string, s *Spec, baseDir string) []table.Table {
	if rep, ok := s.sweeper().(workload.SweepReporter); ok {
		return rep.SweepTables(s.view(dir), s.view(baseDir))
	}
	return workloadMatrices(dir, s, baseDir)
}

// CompareMarkdown writes the sweep's matrices relative to the sweep in
// baseDir.
func CompareMarkdown(w io.Writer, dir string, s *Spec, baseDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n# rumbench sweep %s relative to %s\n\n", dir, baseDir)
	for _, t := range CompareTables(dir, s, baseDir) {
		table.WriteMarkdown(&b, t, "##")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SummaryCharts lead the sweep's HTML report: its workload's own
// (workload.SweepReporter), else its first matrix drawn.
func SummaryCharts(dir string, s *Spec) ([]chart.Chart, error) {
	if rep, ok := s.sweeper().(workload.SweepReporter); ok {
		return rep.SweepCharts(s.view(dir))
	}
	return workloadCharts(dir, s)
}

// WriteHTMLFile writes the sweep's HTML report to path: the summary charts
// and the matrices first, then every run's per-step sections. It returns
// the number of charts.
func WriteHTMLFile(path, dir string, s *Spec) (int, error) {
	var groups [][]*report.Bundle
	for _, c := range s.Cells() {
		for _, e := range s.Engines {
			var g []*report.Bundle
			for k := 1; k <= s.Reps(); k++ {
				b, err := report.ReadBundle(s.RunDir(dir, c, e, k))
				if err != nil {
					continue // not run (yet)
				}
				g = append(g, b)
			}
			if len(g) > 0 {
				groups = append(groups, g)
			}
		}
	}
	if len(groups) == 0 {
		return 0, fmt.Errorf("sweep %s has no finished run to report", dir)
	}
	rep, err := report.BuildGroups(groups, report.Options{})
	if err != nil {
		return 0, err
	}
	if rep.Lead, err = SummaryCharts(dir, s); err != nil {
		return 0, err
	}
	rep.LeadTables = Tables(dir, s)
	return rep.WriteHTMLFile(path)
}
