package ibench

import (
	"fmt"
	"math"
	"strings"

	"rumbench/internal/chart"
	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/table"
	"rumbench/internal/units"
	"rumbench/internal/workload"
)

// The insert benchmark's sweep report: the published matrices, per row
// size and client count, of the first load step by index count.

// matrixKeys are the catalogued figures the matrices show: the main
// operation's rates and costs, and the sizes at step end.
var matrixKeys = []string{figure.RateAvg, figure.RatePct, figure.DiskGB, figure.LiveGB, figure.PSSGB, figure.ReadsPerOp, figure.WKBPerOp}

// cellKeys are the figures of a cell of the main matrix, joined by "-":
// the insert rate (ipsAvg), its percentile (ipsP) and the sizes.
var cellKeys = []string{figure.RateAvg, figure.RatePct, figure.DiskGB, figure.LiveGB, figure.PSSGB}

// sizeHeads are the sizes' headings as the catalogue heads them:
// disk(GB)-live(GB)-PSS(GB).
func sizeHeads() string {
	var h []string
	for _, k := range cellKeys[2:] {
		h = append(h, figure.Header(k, measure.OpSpec{}, 0))
	}
	return strings.Join(h, "-")
}

// sweepSteps are the steps every cell runs, as sweep.json's shared
// settings hold them (fresh: strings; read back: JSON values).
func sweepSteps(g workload.SweepGrid) []string {
	switch v := g.Setting(sharedSteps).(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, s := range v {
			out = append(out, fmt.Sprint(s))
		}
		return out
	}
	return nil
}

// matrixStep is the step the matrices show: the first load step.
func matrixStep(g workload.SweepGrid) string {
	steps := sweepSteps(g)
	for _, st := range steps {
		if st == StepLoadIndexed || st == StepLoad {
			return st
		}
	}
	if len(steps) > 0 {
		return steps[0]
	}
	return ""
}

// at is the cell of k indexes, pad size p and c clients.
func at(k, p, c int) workload.Point {
	return workload.Point{AxisIndexes: k, AxisPadSizes: p, AxisClients: c}
}

// SweepHeading names the sweep's grid and steps.
func (sweeper) SweepHeading(g workload.SweepGrid) string {
	return fmt.Sprintf("# rumbench sweep: %s\n\nengines %s × indexes %s × pad sizes %s × clients %s; steps %s\n\n",
		g.Dir(), strings.Join(g.Variants(), ","), ints(g.Values(AxisIndexes)), ints(g.Values(AxisPadSizes)), ints(g.Values(AxisClients)), strings.Join(sweepSteps(g), ","))
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

// SweepTables are the published matrices per row size and client count:
// ipsAvg-ipsP-disk-live-PSS by index count, the same relative to 0
// indexes, and reads and KB written per inserted row; with base, each
// relative to the base sweep's.
func (sweeper) SweepTables(g, base workload.SweepGrid) []table.Table {
	if base != nil {
		return compareTables(g, base)
	}
	step := matrixStep(g)
	var out []table.Table
	for _, c := range g.Values(AxisClients) {
		for _, p := range g.Values(AxisPadSizes) {
			head, right := indexHeads(g)
			where := fmt.Sprintf("%s, pad %d B, %d client(s)", step, p, c)
			abs := table.Table{Title: "insert rate by secondary indexes: ipsAvg-ipsP-" + sizeHeads() + ", " + where, Headers: head, Right: right}
			rel := table.Table{Title: "relative to 0 indexes: ipsAvg ratio, " + where, Headers: head, Right: right}
			rpi := table.Table{Title: "storage reads per inserted row (r/i), " + where, Headers: head, Right: right}
			wpi := table.Table{Title: "KB written per inserted row (wKB/i), " + where, Headers: head, Right: right}
			pct, dbDir := 0.0, false
			var missed figure.Targets
			for _, e := range g.Variants() {
				a, r, ri, wi := []string{e}, []string{e}, []string{e}, []string{e}
				base := g.Figures(at(0, p, c), e, step, matrixKeys)
				for _, k := range g.Values(AxisIndexes) {
					f := g.Figures(at(k, p, c), e, step, matrixKeys)
					if f.Percentile > 0 {
						pct = f.Percentile
					}
					if f.Status == workload.CellNotRun {
						a, r, ri, wi = append(a, "not run"), append(r, "not run"), append(ri, "not run"), append(wi, "not run")
						continue
					}
					var parts []string
					for _, k := range cellKeys {
						parts = append(parts, f.Text(k))
					}
					cell := strings.Join(parts, "-")
					if !f.Complete {
						cell += " (incomplete)"
					}
					if len(f.Missed) > 0 {
						cell += figure.MissedMark
						missed = append(missed, f.Missed...)
					}
					dbDir = dbDir || f.DBDir
					a = append(a, cell)
					if k == 0 {
						r = append(r, figure.Ratio(f.Values[figure.RateAvg], base.Values[figure.RateAvg]).Text(units.Ratio))
					} else {
						r = append(r, f.Ratio(base, figure.RateAvg))
					}
					ri = append(ri, f.Text(figure.ReadsPerOp))
					wi = append(wi, f.Text(figure.WKBPerOp))
				}
				abs.Rows, rel.Rows, rpi.Rows, wpi.Rows = append(abs.Rows, a), append(rel.Rows, r), append(rpi.Rows, ri), append(wpi.Rows, wi)
			}
			if pct == 0 {
				pct = 99
			}
			disk := "the data dir's allocated bytes, logs included"
			if dbDir {
				// A server shared by the cells (a sweep's managed variant,
				// or one given by --dsn) holds the other cells' databases.
				disk += "; on a server engine, the cell's database's own directory: the server's WAL/redo and shared files are not counted"
			}
			abs.Notes = []string{fmt.Sprintf("ipsAvg: inserted rows/s over the step; ipsP: the rate %s%% of intervals met (--rate-percentile); disk: on-disk footprint at step end (%s); live: the engine's own live size (docs/metrics.md); PSS: memory of the measured processes.", units.Plain(pct), disk)}
			rel.Notes = []string{"ipsAvg at N indexes / ipsAvg at 0 indexes, same " + g.RowHeader() + ": how much each secondary index costs the load."}
			abs.Notes = append(abs.Notes, figure.MatrixNotes(missed)...)
			if g.Reps() > 1 {
				abs.Notes = append(abs.Notes, g.RepsNote())
				rel.Notes = append(rel.Notes, g.RepsNote())
			}
			out = append(out, abs, rel, rpi, wpi)
		}
	}
	return out
}

// indexHeads head a matrix: the variants' column, then one per index
// count.
func indexHeads(g workload.SweepGrid) ([]string, []bool) {
	head, right := []string{g.RowHeader()}, []bool{false}
	for _, k := range g.Values(AxisIndexes) {
		head = append(head, fmt.Sprintf("%d idx", k))
		right = append(right, true)
	}
	return head, right
}

// compareTables are the matrices of g relative to base's, cell by cell
// (this / that): the ipsAvg, ipsP, disk, live and PSS ratios, the ratio of
// the relative-to-0-indexes figures, and of r/i and wKB/i. A cell either
// sweep lacks shows why.
func compareTables(g, baseSweep workload.SweepGrid) []table.Table {
	step := matrixStep(g)
	var out []table.Table
	for _, c := range g.Values(AxisClients) {
		for _, p := range g.Values(AxisPadSizes) {
			head, right := indexHeads(g)
			where := fmt.Sprintf("%s, pad %d B, %d client(s), this sweep / %s", step, p, c, baseSweep.Dir())
			abs := table.Table{Title: "insert rate by secondary indexes: ipsAvg-ipsP-disk-live-PSS ratios, " + where, Headers: head, Right: right}
			rel := table.Table{Title: "relative to 0 indexes (ipsAvg ratio), ratio of the two sweeps', " + where, Headers: head, Right: right}
			rpi := table.Table{Title: "r/i ratio, " + where, Headers: head, Right: right}
			wpi := table.Table{Title: "wKB/i ratio, " + where, Headers: head, Right: right}
			for _, e := range g.Variants() {
				a, r, ri, wi := []string{e}, []string{e}, []string{e}, []string{e}
				cur0 := g.Figures(at(0, p, c), e, step, matrixKeys)
				old0 := baseSweep.Figures(at(0, p, c), e, step, matrixKeys)
				for _, k := range g.Values(AxisIndexes) {
					cur := g.Figures(at(k, p, c), e, step, matrixKeys)
					old := baseSweep.Figures(at(k, p, c), e, step, matrixKeys)
					miss := ""
					switch {
					case cur.Status == workload.CellNotRun:
						miss = "not run"
					case old.Status == workload.CellNotRun:
						miss = "not in base"
					}
					if miss != "" {
						a, r, ri, wi = append(a, miss), append(r, miss), append(ri, miss), append(wi, miss)
						continue
					}
					var parts []string
					for _, k := range cellKeys {
						parts = append(parts, cur.Ratio(old, k))
					}
					a = append(a, strings.Join(parts, "-"))
					rate := figure.RateAvg
					r = append(r, figure.Ratio(figure.Ratio(cur.Values[rate], cur0.Values[rate]), figure.Ratio(old.Values[rate], old0.Values[rate])).Text(units.Ratio))
					ri = append(ri, cur.Ratio(old, figure.ReadsPerOp))
					wi = append(wi, cur.Ratio(old, figure.WKBPerOp))
				}
				abs.Rows, rel.Rows, rpi.Rows, wpi.Rows = append(abs.Rows, a), append(rel.Rows, r), append(rpi.Rows, ri), append(wpi.Rows, wi)
			}
			abs.Notes = []string{"Each figure of this sweep divided by the same cell's in the base sweep: above 1 is more (faster, bigger) than before; n/a where either did not measure it or the base is 0."}
			if g.Reps() > 1 {
				abs.Notes = append(abs.Notes, g.RepsNote())
			}
			out = append(out, abs, rel, rpi, wpi)
		}
	}
	return out
}

// SweepCharts draw, per row size and client count, the insert rate
// (ipsAvg of the matrix step) against the number of secondary indexes,
// one line per variant.
func (sweeper) SweepCharts(g workload.SweepGrid) ([]chart.Chart, error) {
	step := matrixStep(g)
	var xs []float64
	for _, k := range g.Values(AxisIndexes) {
		xs = append(xs, float64(k))
	}
	var out []chart.Chart
	for _, c := range g.Values(AxisClients) {
		for _, p := range g.Values(AxisPadSizes) {
			var series []chart.Series
			for _, e := range g.Variants() {
				sr := chart.Series{Name: e, X: xs}
				for _, k := range g.Values(AxisIndexes) {
					f := g.Figures(at(k, p, c), e, step, matrixKeys)
					y, lo, hi := math.NaN(), math.NaN(), math.NaN()
					if v := f.Values[figure.RateAvg]; v.OK {
						y = v.V
					}
					if st := f.Stats[figure.RateAvg]; st != nil && st.N > 1 {
						lo, hi, _ = st.Bounds()
					}
					sr.Y, sr.Lo, sr.Hi = append(sr.Y, y), append(sr.Lo, lo), append(sr.Hi, hi)
				}
				series = append(series, sr)
			}
			title := fmt.Sprintf("insert rate by secondary indexes (%s, pad %d B, %d client(s))", step, p, c)
			if g.Reps() > 1 {
				title += fmt.Sprintf(": medians of %d runs, bars 95%% CI (min–max below 6 runs)", g.Reps())
			}
			ch, err := chart.Lines(title, "secondary indexes", "inserted rows/s (ipsAvg)", xs, series, units.Eng)
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
