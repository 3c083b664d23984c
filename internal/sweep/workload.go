package sweep

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"rumbench/internal/chart"
	"rumbench/internal/table"
	"rumbench/internal/units"
	"rumbench/internal/workload"
)

// workloadTables are the matrices of a workload's sweep, as
// its Sweeper says: per matrix and variant, the figure of each cell's run
// with one axis down and another across; each value of a further axis a
// table of its own. A cell the workload skips or has not run says so.
func workloadTables(dir string, s *Spec) []table.Table { return workloadMatrices(dir, s, "") }

// workloadMatrices are workloadTables, or with baseDir each figure
// relative to the same cell's of the sweep in baseDir (this / that).
func workloadMatrices(dir string, s *Spec, baseDir string) []table.Table {
	sw := s.sweeper()
	if sw == nil {
		return nil
	}
	var out []table.Table
	for _, m := range sw.SweepMatrices() {
		rows, cols := s.axis(m.Rows), s.axis(m.Columns)
		if rows == nil || cols == nil {
			continue
		}
		// The axes besides rows and columns, one table per point of them.
		var others []Axis
		for _, a := range s.Axes {
			if a.Name != m.Rows && a.Name != m.Columns {
				others = append(others, a)
			}
		}
		for _, fixed := range (&Spec{Axes: others}).grid() {
			for _, e := range s.Engines {
				head, right := []string{m.Rows + " \\ " + m.Columns}, []bool{false}
				for _, c := range cols.Values {
					head, right = append(head, strconv.Itoa(c)), append(right, true)
				}
				title := fmt.Sprintf("%s by %s × %s, %s %s", m.Title, m.Rows, m.Columns, s.RowHeader(), e)
				for _, a := range others {
					title += fmt.Sprintf(", %s %d", a.Name, fixed[a.Name])
				}
				if baseDir != "" {
					title += ", this sweep / " + baseDir
				}
				t := table.Table{Title: title, Headers: head, Right: right}
				for _, r := range rows.Values {
					row := []string{strconv.Itoa(r)}
					for _, c := range cols.Values {
						at := workload.Point{m.Rows: r, m.Columns: c}
						for k, v := range fixed {
							at[k] = v
						}
						row = append(row, s.cellText(dir, e, at, m, baseDir))
					}
					t.Rows = append(t.Rows, row)
				}
				if baseDir != "" {
					t.Notes = append(t.Notes, "Each figure of this sweep divided by the same cell's in the base sweep; n/a where either did not measure it or the base is 0.")
				} else if m.Note != "" {
					t.Notes = append(t.Notes, m.Note)
				}
				if s.Reps() > 1 {
					t.Notes = append(t.Notes, repsNote(s))
				}
				out = append(out, t)
			}
		}
	}
	return out
}

// cellText is matrix m's figure of variant e's run of the cell at (with
// baseDir, relative to the base sweep's).
func (s *Spec) cellText(dir, e string, at workload.Point, m workload.SweepMatrix, baseDir string) string {
	c := s.CellAt(at)
	if slices.Contains(s.Skip, c.Name()) {
		return "skipped"
	}
	keys := []string{m.Figure}
	f := readFiguresOf(filepath.Join(dir, c.Name(), e), m.Step(at), keys)
	if f.Status == workload.CellNotRun {
		return workload.CellNotRun
	}
	if baseDir != "" {
		old := readFiguresOf(filepath.Join(baseDir, c.Name(), e), m.Step(at), keys)
		if old.Status == workload.CellNotRun {
			return "not in base"
		}
		return f.Ratio(old, m.Figure)
	}
	text := f.Text(m.Figure)
	if !f.Complete {
		text += " (incomplete)"
	}
	return text
}

// axis is the spec's axis of that name, nil when it has none.
func (s *Spec) axis(name string) *Axis {
	for i := range s.Axes {
		if s.Axes[i].Name == name {
			return &s.Axes[i]
		}
	}
	return nil
}

// workloadCharts draw a workload's first matrix as the sweep's summary: per
// variant (and value of a further axis), its figure against the columns'
// axis, one line per value of the rows' axis; a skipped or missing cell is
// a gap.
func workloadCharts(dir string, s *Spec) ([]chart.Chart, error) {
	sw := s.sweeper()
	if sw == nil {
		return nil, nil
	}
	ms := sw.SweepMatrices()
	if len(ms) == 0 {
		return nil, nil
	}
	m := ms[0]
	rows, cols := s.axis(m.Rows), s.axis(m.Columns)
	if rows == nil || cols == nil {
		return nil, nil
	}
	var others []Axis
	for _, a := range s.Axes {
		if a.Name != m.Rows && a.Name != m.Columns {
			others = append(others, a)
		}
	}
	var xs []float64
	for _, c := range cols.Values {
		xs = append(xs, float64(c))
	}
	var out []chart.Chart
	for _, fixed := range (&Spec{Axes: others}).grid() {
		for _, e := range s.Engines {
			var series []chart.Series
			for _, r := range rows.Values {
				sr := chart.Series{Name: fmt.Sprintf("%s %d", m.Rows, r), X: xs}
				for _, c := range cols.Values {
					at := workload.Point{m.Rows: r, m.Columns: c}
					for k, v := range fixed {
						at[k] = v
					}
					y := math.NaN()
					if cell := s.CellAt(at); !slices.Contains(s.Skip, cell.Name()) {
						f := readFiguresOf(filepath.Join(dir, cell.Name(), e), m.Step(at), []string{m.Figure})
						if v := f.Values[m.Figure]; v.OK {
							y = v.V
						}
					}
					sr.Y, sr.Lo, sr.Hi = append(sr.Y, y), append(sr.Lo, math.NaN()), append(sr.Hi, math.NaN())
				}
				series = append(series, sr)
			}
			title := fmt.Sprintf("%s by %s, %s %s", m.Title, m.Columns, s.RowHeader(), e)
			for _, a := range others {
				title += fmt.Sprintf(", %s %d", a.Name, fixed[a.Name])
			}
			if s.Reps() > 1 {
				title += fmt.Sprintf(": medians of %d runs", s.Reps())
			}
			ch, err := chart.Lines(title, m.Columns, m.Title, xs, series, units.Eng)
			if err != nil {
				return nil, err
			}
			if ch != nil {
				out = append(out, *ch)
			}
		}
	}
	return out, nil
}
