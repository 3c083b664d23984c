package sweep

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"rumbench/internal/report"
	"rumbench/internal/results"
)

// figures are one engine's results in one cell, from the step the matrices
// show.
type figures struct {
	ok                bool
	ipsAvg, ipsPct    report.Value
	diskGB, liveGB    report.Value
	pssGB             report.Value
	readsPer, wkbPer  report.Value
	status, stepShown string
	percentile        float64
	// slaMissed: the step's paced writers missed their SLA (a query step
	// shown as the matrix step; in a repeated sweep, any repetition).
	slaMissed bool
	// stats hold each figure over a repeated sweep's repetitions (the
	// fields are then their medians), by figure key.
	stats map[string]*report.Stat
}

// figureKeys name the figures for stats and ratio cells.
var figureKeys = []string{"ips_avg", "ips_pct", "disk_gb", "live_gb", "pss_gb", "reads_per", "wkb_per"}

func (f *figures) field(key string) *report.Value {
	switch key {
	case "ips_avg":
		return &f.ipsAvg
	case "ips_pct":
		return &f.ipsPct
	case "disk_gb":
		return &f.diskGB
	case "live_gb":
		return &f.liveGB
	case "pss_gb":
		return &f.pssGB
	case "reads_per":
		return &f.readsPer
	}
	return &f.wkbPer
}

// readFigures reads one engine's figures of a cell, dir = <cell>/<engine>;
// in a repeated sweep the medians over <cell>/rep-*/<engine> of the
// repetitions that completed the step.
func readFigures(dir, step string) figures {
	reps := report.RepDirs(filepath.Dir(dir))
	if len(reps) == 0 {
		return readRun(dir, step)
	}
	var all []figures
	var done []figures
	for _, r := range reps {
		f := readRun(filepath.Join(r, filepath.Base(dir)), step)
		all = append(all, f)
		if f.ok {
			done = append(done, f)
		}
	}
	if len(done) == 0 {
		// None completed it: the first one that ran it, as a single run.
		for _, f := range all {
			if f.status != "not run" {
				return f
			}
		}
		return all[0]
	}
	out := done[0]
	for _, f := range done {
		out.slaMissed = out.slaMissed || f.slaMissed
	}
	out.stats = map[string]*report.Stat{}
	for _, k := range figureKeys {
		var vals []float64
		for i := range done {
			if v := *done[i].field(k); v.OK {
				vals = append(vals, v.V)
			}
		}
		*out.field(k) = report.Value{}
		if st := report.NewStat(vals); st != nil {
			out.stats[k] = st
			*out.field(k) = report.Known(st.Median)
		}
	}
	return out
}

// ratioCell is x's figure over y's, marked ~ (not significant) or ? (too
// few repetitions to tell) when both are over repetitions.
func ratioCell(x, y figures, key string) string {
	r := report.Ratio(*x.field(key), *y.field(key))
	t := report.CellText(r, report.FmtRatio)
	if sx, sy := x.stats[key], y.stats[key]; r.OK && sx != nil && sy != nil {
		t += report.Compare(sy, sx).Mark()
	}
	return t
}

// repsNote explains the marks of a repeated sweep's tables.
func repsNote(s *Spec) string {
	return fmt.Sprintf("Each figure is the median of the %d repetitions (those that completed the step); a ratio is of medians, marked ~ when the difference is not significant at α = %.2f (Mann–Whitney U) and ? when there were too few repetitions to tell (fewer than 4 a side).", s.Reps(), report.Alpha)
}

func readRun(dir, step string) figures {
	b, err := results.Read(dir)
	if err != nil {
		return figures{status: "not run"}
	}
	s := b.Steps[step]
	if s == nil {
		return figures{status: "not run"}
	}
	f := figures{ok: s.Complete, status: "ok", stepShown: step, percentile: s.RatePercentile,
		slaMissed: s.TargetMet != nil && !*s.TargetMet}
	if !s.Complete {
		f.status = "incomplete"
	}
	if o := s.Ops[s.MainOp]; o != nil {
		if o.RateAvg != nil {
			f.ipsAvg = report.Known(*o.RateAvg)
		}
		if o.RatePct != nil {
			f.ipsPct = report.Known(*o.RatePct)
		}
	}
	if s.EngineSize >= 0 {
		f.liveGB = report.Known(float64(s.EngineSize) / 1e9)
	}
	if m := s.Metrics; m != nil {
		if m.DiskBytes != nil {
			f.diskGB = report.Known(float64(*m.DiskBytes) / 1e9)
		}
		if m.PSSBytes != nil {
			f.pssGB = report.Known(float64(*m.PSSBytes) / 1e9)
		}
		if c := m.PerOp[s.MainOp]; c != nil {
			if c.Reads != nil {
				f.readsPer = report.Known(*c.Reads)
			}
			if c.WKB != nil {
				f.wkbPer = report.Known(*c.WKB)
			}
		}
	}
	return f
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
func Tables(dir string, s *Spec) []report.Table {
	step := s.MatrixStep()
	var out []report.Table
	for _, c := range s.Clients {
		for _, p := range s.PadSizes {
			head := []string{"engine"}
			right := []bool{false}
			for _, k := range s.Indexes {
				head = append(head, fmt.Sprintf("%d idx", k))
				right = append(right, true)
			}
			where := fmt.Sprintf("%s, pad %d B, %d client(s)", step, p, c)
			abs := report.Table{Title: "insert rate by secondary indexes: ipsAvg-ipsP-disk(GB)-live(GB)-PSS(GB), " + where, Headers: head, Right: right}
			rel := report.Table{Title: "relative to 0 indexes: ipsAvg ratio, " + where, Headers: head, Right: right}
			rpi := report.Table{Title: "storage reads per inserted row (r/i), " + where, Headers: head, Right: right}
			wpi := report.Table{Title: "KB written per inserted row (wKB/i), " + where, Headers: head, Right: right}
			pct, slaNote := 0.0, false
			for _, e := range s.Engines {
				a, r, ri, wi := []string{e}, []string{e}, []string{e}, []string{e}
				base := readFigures(filepath.Join(dir, Cell{Indexes: 0, Pad: p, Clients: c}.Name(), e), step)
				for _, k := range s.Indexes {
					f := readFigures(filepath.Join(dir, Cell{Indexes: k, Pad: p, Clients: c}.Name(), e), step)
					if f.percentile > 0 {
						pct = f.percentile
					}
					if f.status == "not run" {
						a, r, ri, wi = append(a, "not run"), append(r, "not run"), append(ri, "not run"), append(wi, "not run")
						continue
					}
					cell := strings.Join([]string{report.CellText(f.ipsAvg, report.FmtNum), report.CellText(f.ipsPct, report.FmtNum),
						report.CellText(f.diskGB, report.FmtNum), report.CellText(f.liveGB, report.FmtNum), report.CellText(f.pssGB, report.FmtNum)}, "-")
					if !f.ok {
						cell += " (incomplete)"
					}
					if f.slaMissed {
						cell += " SLA✗"
						slaNote = true
					}
					a = append(a, cell)
					if k == 0 {
						r = append(r, report.CellText(report.Ratio(f.ipsAvg, base.ipsAvg), report.FmtRatio))
					} else {
						r = append(r, ratioCell(f, base, "ips_avg"))
					}
					ri = append(ri, report.CellText(f.readsPer, report.FmtNum))
					wi = append(wi, report.CellText(f.wkbPer, report.FmtNum))
				}
				abs.Rows, rel.Rows, rpi.Rows, wpi.Rows = append(abs.Rows, a), append(rel.Rows, r), append(rpi.Rows, ri), append(wpi.Rows, wi)
			}
			if pct == 0 {
				pct = 99
			}
			abs.Notes = []string{fmt.Sprintf("ipsAvg: inserted rows/s over the step; ipsP: the rate %s%% of intervals met (--rate-percentile); disk: on-disk footprint at step end (the data dir's allocated bytes, logs included); live: the engine's own live size (docs/metrics.md); PSS: memory of the measured processes.", strconv.FormatFloat(pct, 'f', -1, 64))}
			rel.Notes = []string{"ipsAvg at N indexes / ipsAvg at 0 indexes, same engine: how much each secondary index costs the load."}
			if slaNote {
				abs.Notes = append(abs.Notes, "SLA✗: the step's paced writers inserted less than 95% of their target rate (a query step's writers' SLA).")
			}
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
	fmt.Fprintf(&b, "# rumbench sweep: %s\n\nengines %s × indexes %s × pad sizes %s × clients %s; steps %s\n\n",
		dir, strings.Join(s.Engines, ","), ints(s.Indexes), ints(s.PadSizes), ints(s.Clients), strings.Join(s.Steps, ","))
	if line := memoryLine(s); line != "" {
		b.WriteString(line + "\n\n")
	}
	for _, t := range Tables(dir, s) {
		report.WriteMarkdownTable(&b, t, "##")
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
			if v, ok := results.Number(pm[e+".memory_limit"]); ok {
				per = append(per, fmt.Sprintf("%s %.0f MB", e, v/(1<<20)))
			}
		}
	}
	if len(per) > 0 {
		return "Each engine ran in a memory cgroup (page cache included): " + strings.Join(per, ", ") + "."
	}
	if v, ok := results.Number(s.Shared["memory_limit"]); ok && v > 0 {
		return fmt.Sprintf("Each engine ran in a memory cgroup of %.0f MB (page cache included).", v/(1<<20))
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
func CompareTables(dir string, s *Spec, baseDir string) []report.Table {
	step := s.MatrixStep()
	var out []report.Table
	for _, c := range s.Clients {
		for _, p := range s.PadSizes {
			head := []string{"engine"}
			right := []bool{false}
			for _, k := range s.Indexes {
				head = append(head, fmt.Sprintf("%d idx", k))
				right = append(right, true)
			}
			where := fmt.Sprintf("%s, pad %d B, %d client(s), this sweep / %s", step, p, c, baseDir)
			abs := report.Table{Title: "insert rate by secondary indexes: ipsAvg-ipsP-disk-live-PSS ratios, " + where, Headers: head, Right: right}
			rel := report.Table{Title: "relative to 0 indexes (ipsAvg ratio), ratio of the two sweeps', " + where, Headers: head, Right: right}
			rpi := report.Table{Title: "r/i ratio, " + where, Headers: head, Right: right}
			wpi := report.Table{Title: "wKB/i ratio, " + where, Headers: head, Right: right}
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
					case cur.status == "not run":
						miss = "not run"
					case old.status == "not run":
						miss = "not in base"
					}
					if miss != "" {
						a, r, ri, wi = append(a, miss), append(r, miss), append(ri, miss), append(wi, miss)
						continue
					}
					a = append(a, strings.Join([]string{ratioCell(cur, old, "ips_avg"), ratioCell(cur, old, "ips_pct"), ratioCell(cur, old, "disk_gb"), ratioCell(cur, old, "live_gb"), ratioCell(cur, old, "pss_gb")}, "-"))
					r = append(r, report.CellText(report.Ratio(report.Ratio(cur.ipsAvg, cur0.ipsAvg), report.Ratio(old.ipsAvg, old0.ipsAvg)), report.FmtRatio))
					ri = append(ri, ratioCell(cur, old, "reads_per"))
					wi = append(wi, ratioCell(cur, old, "wkb_per"))
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
		report.WriteMarkdownTable(&b, t, "##")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SummaryCharts draws, per row size and client count, the insert rate
// (ipsAvg of the matrix step) against the number of secondary indexes, one
// line per engine.
func SummaryCharts(dir string, s *Spec) ([]report.Chart, error) {
	step := s.MatrixStep()
	var xs []float64
	for _, k := range s.Indexes {
		xs = append(xs, float64(k))
	}
	var out []report.Chart
	for _, c := range s.Clients {
		for _, p := range s.PadSizes {
			var series []report.Series
			for _, e := range s.Engines {
				sr := report.Series{Name: e, X: xs}
				for _, k := range s.Indexes {
					f := readFigures(filepath.Join(dir, Cell{Indexes: k, Pad: p, Clients: c}.Name(), e), step)
					y, lo, hi := math.NaN(), math.NaN(), math.NaN()
					if f.ipsAvg.OK {
						y = f.ipsAvg.V
					}
					if st := f.stats["ips_avg"]; st != nil && st.N > 1 {
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
			ch, err := report.LineChart(title, "secondary indexes", "inserted rows/s (ipsAvg)", xs, series)
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
