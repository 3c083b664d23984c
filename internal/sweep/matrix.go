package sweep

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"rumbench/internal/chart"
	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/stats"
	"rumbench/internal/table"
	"rumbench/internal/units"
)

// cellFigures are one engine's results in one cell, from the step the
// matrices show.
type cellFigures struct {
	ok bool
	// values are the catalogued figures of matrixKeys (in a repeated
	// sweep their medians over the repetitions).
	values            map[string]figure.Value
	status, stepShown string
	percentile        float64
	// missed are the rate targets the step missed (a query step's
	// writers' SLA, shown as the matrix step; in a repeated sweep, any
	// repetition's).
	missed figure.Targets
	// dbDir: the disk figure is the run's database directory on a server
	// it shares (results.DiskDatabaseDir), not a data dir of its own.
	dbDir bool
	// stats hold each figure over a repeated sweep's repetitions, by key.
	stats map[string]*stats.Stat
}

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

// text prints figure key's value as the catalogue does, n/a when it is
// unavailable.
func (f cellFigures) text(key string) string { return f.values[key].Text(figure.Must(key).Format) }

// readFigures reads one engine's figures of a cell, dir = <cell>/<engine>;
// in a repeated sweep the medians over <cell>/rep-*/<engine> of the
// repetitions that completed the step.
func readFigures(dir, step string) cellFigures { return readFiguresOf(dir, step, matrixKeys) }

// readFiguresOf is readFigures of the figures keys.
func readFiguresOf(dir, step string, keys []string) cellFigures {
	reps := results.RepDirs(filepath.Dir(dir))
	if len(reps) == 0 {
		return readRun(dir, step, keys)
	}
	var all, done []cellFigures
	for _, r := range reps {
		f := readRun(filepath.Join(r, filepath.Base(dir)), step, keys)
		all = append(all, f)
		if f.ok {
			done = append(done, f)
		}
	}
	if len(done) == 0 {
		// None completed it: the first one that ran it, as a single run.
		for _, f := range all {
			if f.status != notRun {
				return f
			}
		}
		return all[0]
	}
	out := done[0]
	out.missed = nil
	samples := stats.Samples{}
	for _, f := range done {
		out.missed = append(out.missed, f.missed...)
		for _, k := range keys {
			if v := f.values[k]; v.OK {
				samples.Add(k, v.V)
			}
		}
	}
	out.stats = samples.Stats()
	out.values = map[string]figure.Value{}
	for _, k := range keys {
		if st := out.stats[k]; st != nil {
			out.values[k] = figure.Known(st.Median)
		}
	}
	return out
}

// ratioCell is x's figure over y's, marked ~ (not significant) or ? (too
// few repetitions to tell) when both are over repetitions.
func ratioCell(x, y cellFigures, key string) string {
	r := figure.Ratio(x.values[key], y.values[key])
	t := r.Text(units.Ratio)
	if sx, sy := x.stats[key], y.stats[key]; r.OK && sx != nil && sy != nil {
		t += stats.Compare(sy, sx).Mark()
	}
	return t
}

// repsNote explains the marks of a repeated sweep's tables.
func repsNote(s *Spec) string {
	return fmt.Sprintf("Each figure is the median of the %d repetitions (those that completed the step); a ratio is of medians, marked ~ when the difference is not significant at α = %.2f (Mann–Whitney U) and ? when there were too few repetitions to tell (fewer than 4 a side).", s.Reps(), stats.Alpha)
}

// notRun is a cell's status when its bundle or step is missing.
const notRun = "not run"

// readRun reads the figures of one bundle's step: the main operation's
// rate and per-operation costs (the matrices compare the load itself).
func readRun(dir, step string, keys []string) cellFigures {
	b, err := results.Read(dir)
	if err != nil {
		return cellFigures{status: notRun}
	}
	s := b.Steps[step]
	if s == nil {
		return cellFigures{status: notRun}
	}
	f := cellFigures{ok: s.Complete, status: "ok", stepShown: step, percentile: s.RatePercentile,
		missed: figure.TargetsOf(s).MissedOnes(), values: map[string]figure.Value{},
		dbDir: s.Metrics != nil && s.Metrics.DiskSource == results.DiskDatabaseDir}
	if !s.Complete {
		f.status = "incomplete"
	}
	src := figure.OfOp(s, s.MainOp)
	for _, k := range keys {
		f.values[k] = figure.Get(k, src)
	}
	return f
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

// MatrixStep is the step the matrices show: the first load step.
func (s *Spec) MatrixStep() string {
	for _, st := range s.Steps {
		if st == "l.i0x" || st == "l.i0" {
			return st
		}
	}
	if len(s.Steps) > 0 {
		return s.Steps[0]
	}
	return ""
}

// Tables returns the published matrices of the sweep in dir, per row size
// and client count: ipsAvg-ipsP-disk-live-PSS by index count, the same relative
// to 0 indexes, and reads and KB written per inserted row.
func Tables(dir string, s *Spec) []table.Table {
	if s.Workload != "" {
		return workloadTables(dir, s)
	}
	step := s.MatrixStep()
	var out []table.Table
	for _, c := range s.Clients {
		for _, p := range s.PadSizes {
			head := []string{s.RowHeader()}
			right := []bool{false}
			for _, k := range s.Indexes {
				head = append(head, fmt.Sprintf("%d idx", k))
				right = append(right, true)
			}
			where := fmt.Sprintf("%s, pad %d B, %d client(s)", step, p, c)
			abs := table.Table{Title: "insert rate by secondary indexes: ipsAvg-ipsP-" + sizeHeads() + ", " + where, Headers: head, Right: right}
			rel := table.Table{Title: "relative to 0 indexes: ipsAvg ratio, " + where, Headers: head, Right: right}
			rpi := table.Table{Title: "storage reads per inserted row (r/i), " + where, Headers: head, Right: right}
			wpi := table.Table{Title: "KB written per inserted row (wKB/i), " + where, Headers: head, Right: right}
			pct, dbDir := 0.0, false
			var missed figure.Targets
			for _, e := range s.Engines {
				a, r, ri, wi := []string{e}, []string{e}, []string{e}, []string{e}
				base := readFigures(filepath.Join(dir, Cell{Indexes: 0, Pad: p, Clients: c}.Name(), e), step)
				for _, k := range s.Indexes {
					f := readFigures(filepath.Join(dir, Cell{Indexes: k, Pad: p, Clients: c}.Name(), e), step)
					if f.percentile > 0 {
						pct = f.percentile
					}
					if f.status == notRun {
						a, r, ri, wi = append(a, "not run"), append(r, "not run"), append(ri, "not run"), append(wi, "not run")
						continue
					}
					var parts []string
					for _, k := range cellKeys {
						parts = append(parts, f.text(k))
					}
					cell := strings.Join(parts, "-")
					if !f.ok {
						cell += " (incomplete)"
					}
					if len(f.missed) > 0 {
						cell += figure.MissedMark
						missed = append(missed, f.missed...)
					}
					dbDir = dbDir || f.dbDir
					a = append(a, cell)
					if k == 0 {
						r = append(r, figure.Ratio(f.values[figure.RateAvg], base.values[figure.RateAvg]).Text(units.Ratio))
					} else {
						r = append(r, ratioCell(f, base, figure.RateAvg))
					}
					ri = append(ri, f.text(figure.ReadsPerOp))
					wi = append(wi, f.text(figure.WKBPerOp))
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
			rel.Notes = []string{"ipsAvg at N indexes / ipsAvg at 0 indexes, same " + s.RowHeader() + ": how much each secondary index costs the load."}
			abs.Notes = append(abs.Notes, figure.MatrixNotes(missed)...)
			if s.Reps() > 1 {
				abs.Notes = append(abs.Notes, repsNote(s))
				rel.Notes = append(rel.Notes, repsNote(s))
			}
			out = append(out, abs, rel, rpi, wpi)
		}
	}
	return out
}

// Markdown writes the sweep's matrices.
func Markdown(w io.Writer, dir string, s *Spec) error {
	var b strings.Builder
	if s.Workload != "" {
		fmt.Fprintf(&b, "# rumbench sweep %s: %s\n\n%ss %s", s.Workload, dir, s.RowHeader(), strings.Join(s.Engines, ","))
		for _, a := range s.Axes {
			fmt.Fprintf(&b, " × %s %s", a.Name, ints(a.Values))
		}
		b.WriteString("\n\n")
	} else {
		fmt.Fprintf(&b, "# rumbench sweep: %s\n\nengines %s × indexes %s × pad sizes %s × clients %s; steps %s\n\n",
			dir, strings.Join(s.Engines, ","), ints(s.Indexes), ints(s.PadSizes), ints(s.Clients), strings.Join(s.Steps, ","))
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

// CompareTables returns each matrix of the sweep in dir relative to the
// earlier sweep in baseDir, cell by cell (this / that): the ipsAvg, ipsP,
// disk, live and PSS ratios, the ratio of the relative-to-0-indexes figures, and
// of r/i and wKB/i. A cell either sweep lacks shows why.
func CompareTables(dir string, s *Spec, baseDir string) []table.Table {
	if s.Workload != "" {
		return workloadMatrices(dir, s, baseDir)
	}
	step := s.MatrixStep()
	var out []table.Table
	for _, c := range s.Clients {
		for _, p := range s.PadSizes {
			head := []string{s.RowHeader()}
			right := []bool{false}
			for _, k := range s.Indexes {
				head = append(head, fmt.Sprintf("%d idx", k))
				right = append(right, true)
			}
			where := fmt.Sprintf("%s, pad %d B, %d client(s), this sweep / %s", step, p, c, baseDir)
			abs := table.Table{Title: "insert rate by secondary indexes: ipsAvg-ipsP-disk-live-PSS ratios, " + where, Headers: head, Right: right}
			rel := table.Table{Title: "relative to 0 indexes (ipsAvg ratio), ratio of the two sweeps', " + where, Headers: head, Right: right}
			rpi := table.Table{Title: "r/i ratio, " + where, Headers: head, Right: right}
			wpi := table.Table{Title: "wKB/i ratio, " + where, Headers: head, Right: right}
			for _, e := range s.Engines {
				a, r, ri, wi := []string{e}, []string{e}, []string{e}, []string{e}
				cur0 := readFigures(filepath.Join(dir, Cell{Indexes: 0, Pad: p, Clients: c}.Name(), e), step)
				old0 := readFigures(filepath.Join(baseDir, Cell{Indexes: 0, Pad: p, Clients: c}.Name(), e), step)
				for _, k := range s.Indexes {
					name := Cell{Indexes: k, Pad: p, Clients: c}.Name()
					cur := readFigures(filepath.Join(dir, name, e), step)
					old := readFigures(filepath.Join(baseDir, name, e), step)
					miss := ""
					switch {
					case cur.status == notRun:
						miss = "not run"
					case old.status == notRun:
						miss = "not in base"
					}
					if miss != "" {
						a, r, ri, wi = append(a, miss), append(r, miss), append(ri, miss), append(wi, miss)
						continue
					}
					var parts []string
					for _, k := range cellKeys {
						parts = append(parts, ratioCell(cur, old, k))
					}
					a = append(a, strings.Join(parts, "-"))
					rate := figure.RateAvg
					r = append(r, figure.Ratio(figure.Ratio(cur.values[rate], cur0.values[rate]), figure.Ratio(old.values[rate], old0.values[rate])).Text(units.Ratio))
					ri = append(ri, ratioCell(cur, old, figure.ReadsPerOp))
					wi = append(wi, ratioCell(cur, old, figure.WKBPerOp))
				}
				abs.Rows, rel.Rows, rpi.Rows, wpi.Rows = append(abs.Rows, a), append(rel.Rows, r), append(rpi.Rows, ri), append(wpi.Rows, wi)
			}
			abs.Notes = []string{"Each figure of this sweep divided by the same cell's in the base sweep: above 1 is more (faster, bigger) than before; n/a where either did not measure it or the base is 0."}
			if s.Reps() > 1 {
				abs.Notes = append(abs.Notes, repsNote(s))
			}
			out = append(out, abs, rel, rpi, wpi)
		}
	}
	return out
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

// SummaryCharts draws, per row size and client count, the insert rate
// (ipsAvg of the matrix step) against the number of secondary indexes, one
// line per engine.
func SummaryCharts(dir string, s *Spec) ([]chart.Chart, error) {
	if s.Workload != "" {
		return workloadCharts(dir, s)
	}
	step := s.MatrixStep()
	var xs []float64
	for _, k := range s.Indexes {
		xs = append(xs, float64(k))
	}
	var out []chart.Chart
	for _, c := range s.Clients {
		for _, p := range s.PadSizes {
			var series []chart.Series
			for _, e := range s.Engines {
				sr := chart.Series{Name: e, X: xs}
				for _, k := range s.Indexes {
					f := readFigures(filepath.Join(dir, Cell{Indexes: k, Pad: p, Clients: c}.Name(), e), step)
					y, lo, hi := math.NaN(), math.NaN(), math.NaN()
					if v := f.values[figure.RateAvg]; v.OK {
						y = v.V
					}
					if st := f.stats[figure.RateAvg]; st != nil && st.N > 1 {
						lo, hi, _ = st.Bounds()
					}
					sr.Y, sr.Lo, sr.Hi = append(sr.Y, y), append(sr.Lo, lo), append(sr.Hi, hi)
				}
				series = append(series, sr)
			}
			title := fmt.Sprintf("insert rate by secondary indexes (%s, pad %d B, %d client(s))", step, p, c)
			if s.Reps() > 1 {
				title += fmt.Sprintf(": medians of %d runs, bars 95%% CI (min–max below 6 runs)", s.Reps())
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
