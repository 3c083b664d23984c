package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/stats"
	"rumbench/internal/table"
	"rumbench/internal/units"
)

// Table is one rendered table (the toolkit's, internal/table): cells are
// final text, shared by the markdown and HTML renderers.
type Table = table.Table

// column is a table column of a step table.
type column struct {
	Header string
	Key    string
	// Optional columns are shown only when a run has the figure (bundles
	// written before it keep their tables).
	Optional bool
}

// columnsFor returns a step table's columns, headed by the catalogue
// (figure.Header) for its operations: write steps show the headline
// operation R's rate and its per-unit costs (IPS.av, CPU/i, wKB/i ... for
// inserts); query steps show the writers' W rate and KB written beside the
// reads' rate and costs.
func columnsFor(sr *StepReport, clientApart bool) []column {
	r := sr.Rate
	maxCol := stepColumn(figure.MaxMs, r, sr.Percentile, false)
	flushes := stepColumn(figure.FlushesPerOp, r, sr.Percentile, true)
	cols := func(op measure.OpSpec, keys ...string) []column {
		out := make([]column, len(keys))
		for i, k := range keys {
			out[i] = stepColumn(k, op, sr.Percentile, false)
		}
		return out
	}
	if sr.Kind == KindQuery {
		var out []column
		if sr.Write.Name != "" {
			out = append(out, cols(sr.Write, figure.WriteRateAvg, figure.WriteRatePct, figure.WKBPerWrite)...)
		}
		out = append(out, cols(r, figure.RateAvg, figure.RatePct, figure.RKBPerOp)...)
		out = append(out, cpuColumns(r, clientApart)...)
		return append(out, flushes, maxCol)
	}
	out := cols(r, figure.RateAvg, figure.RatePct)
	if sr.Search {
		// The headline rate of a search is the rate it found; the
		// intervals ran at the probes' targets, so no percentile.
		out = []column{{Header: figure.Header(figure.Sustained, r, sr.Percentile), Key: figure.RateAvg}}
	}
	out = append(out, cpuColumns(r, clientApart)...)
	out = append(out, cols(r, figure.WKBPerOp, figure.RKBPerOp, figure.ReadsPerOp)...)
	out = append(out, flushes)
	out = append(out, cols(r, figure.DiskGB, figure.LiveGB, figure.PSSGB)...)
	return append(out, maxCol)
}

// stepColumn is the column of figure key of operation op, headed as the
// catalogue heads it.
func stepColumn(key string, op measure.OpSpec, pct float64, optional bool) column {
	return column{Header: figure.Header(key, op, pct), Key: key, Optional: optional}
}

// cpuColumns are the CPU columns of a step table: the measured processes'
// CPU per unit and its user and system parts, then, when a run measured
// the client apart (a server engine), the client's and its system part.
func cpuColumns(r measure.OpSpec, clientApart bool) []column {
	cols := []column{
		stepColumn(figure.CPUPerOp, r, 0, false),
		stepColumn(figure.CPUUserPerOp, r, 0, true),
		stepColumn(figure.CPUSysPerOp, r, 0, true),
	}
	if clientApart {
		cols = append(cols, stepColumn(figure.ClientPerOp, r, 0, true), stepColumn(figure.ClientSysOp, r, 0, true))
	}
	return cols
}

// shown leaves out the optional columns no run of the step has.
func (sr *StepReport) shown(cols []column) []column {
	out := cols[:0:0]
	for _, c := range cols {
		if !c.Optional || sr.has(c.Key) {
			out = append(out, c)
		}
	}
	return out
}

// has says whether a run of the step has figure key.
func (sr *StepReport) has(key string) bool {
	for _, row := range sr.Rows {
		if v, ok := row.Values[key]; ok && v.OK {
			return true
		}
	}
	return false
}

func runName(r *Run) string { return fmt.Sprintf("#%d %s", r.Num, r.shortName()) }

// shortName is Short, or Label where a run was made without labelRuns.
func (r *Run) shortName() string {
	if r.Short != "" {
		return r.Short
	}
	return r.Label
}

// stallCell is the stalls column: stalled intervals and their seconds.
func stallCell(st *Stall) string {
	if st == nil {
		return units.NA
	}
	if st.Count == 0 {
		return "0"
	}
	return fmt.Sprintf("%d,%s", st.Count, units.Num(st.Seconds))
}

// StepTables returns the absolute and (with several runs) relative tables
// of one step.
func (r *Report) StepTables(sr *StepReport) []Table {
	if !sr.Ran {
		// Planned, but no run reached it: nothing to head columns with.
		t := Table{Title: fmt.Sprintf("%s (not run)", sr.Name), Headers: []string{"run", "status"}, Right: []bool{false, false}}
		for _, row := range sr.Rows {
			t.Rows = append(t.Rows, []string{runName(row.Run), StatusNotRun})
		}
		t.Notes = []string{"No run reached this step: every run ended (interrupted or failed) before it."}
		return []Table{t}
	}
	cols := sr.shown(columnsFor(sr, sr.has(figure.ClientPerOp)))
	if r.Repeated() {
		// p99 is a headline figure of a repeated run (it has its interval);
		// a single run's p99 is in the summary and the charts.
		cols = append(cols[:len(cols)-1:len(cols)-1], stepColumn(figure.P99Ms, sr.Rate, sr.Percentile, false), cols[len(cols)-1])
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
	repeated := r.Repeated()
	if repeated {
		// How many repetitions each figure is over, and how far apart
		// the headline rates were.
		abs.Headers = append(abs.Headers, "n", "spread")
		abs.Right = append(abs.Right, true, true)
		rel.Headers = append(rel.Headers, "n")
		rel.Right = append(rel.Right, true)
	}
	noted, tooFew := false, false
	for _, row := range sr.Rows {
		a := []string{runName(row.Run), row.Status}
		l := []string{runName(row.Run), row.Status}
		for _, c := range cols {
			if row.Status == StatusNotRun {
				a = append(a, units.Dash)
				l = append(l, units.Dash)
				continue
			}
			v, rv := row.Values[c.Key], row.Ratios[c.Key]
			t := v.Text(figure.Must(c.Key).Format)
			if missedRate(sr, row, c.Key) {
				t += "!"
			}
			if c.Key == figure.RateAvg && v.OK {
				noted = true
			}
			if st := row.Stats[c.Key]; st != nil && st.N > 1 {
				t += " " + st.CIText()
			}
			rt := rv.Text(units.Ratio)
			if cmp := row.Cmp[c.Key]; cmp != nil && row != sr.Rows[r.Base] && rv.OK {
				rt += cmp.Mark()
				tooFew = tooFew || cmp.P == nil
			}
			a = append(a, t)
			l = append(l, rt)
		}
		if row.Status == StatusNotRun {
			a = append(a, units.Dash)
		} else {
			a = append(a, stallCell(row.Stalls[row.RateOp]))
		}
		if repeated {
			n, spread := "1", units.Dash
			if row.Status == StatusNotRun {
				n = "0"
			}
			if st := row.Stats[figure.RateAvg]; st != nil {
				n, spread = strconv.Itoa(st.N), st.SpreadText()
			} else if len(row.Run.Reps) > 0 {
				n = "0"
			}
			a = append(a, n, spread)
			l = append(l, n)
		}
		abs.Rows = append(abs.Rows, a)
		rel.Rows = append(rel.Rows, l)
		if row.Error != "" {
			abs.Notes = append(abs.Notes, fmt.Sprintf("%s: %s: %s", runName(row.Run), row.Status, row.Error))
		}
		if n := engineRetries(row.Run.Bundle.Steps[sr.Name]); n > 0 {
			abs.Notes = append(abs.Notes, fmt.Sprintf("%s: %s", runName(row.Run), retriesText(n)))
		}
		if n := steadyNote(row.Run.Bundle.Steps[sr.Name]); n != "" {
			abs.Notes = append(abs.Notes, fmt.Sprintf("%s: %s", runName(row.Run), n))
		}
	}
	if noted && sr.Rate.Note != "" {
		abs.Notes = append(abs.Notes, sr.Rate.Note)
	}
	if sr.Search {
		abs.Notes = append(abs.Notes, SearchNote)
	}
	for _, row := range sr.Rows {
		if row.Status == StatusNotRun {
			continue
		}
		for _, t := range row.Targets {
			if t.Missed() {
				abs.Notes = append(abs.Notes, missedNote(row, sr, t))
			}
		}
	}
	if repeated {
		abs.Notes = append(abs.Notes, fmt.Sprintf("Repeated runs: each figure is the median of the n repetitions that completed the step, ± the %.0f%% confidence interval of the median (distribution-free, from order statistics; ±∞ below 6 repetitions); spread: (max − min) / median of the headline rate; stalls are the median repetition's.", stats.Confidence*100))
		rel.Notes = append(rel.Notes, fmt.Sprintf("Ratios of medians. ~: not significantly different from the base at α = %.2f (Mann–Whitney U test, as benchstat); no mark: significant. n: repetitions of the run (the base's are in its row).", stats.Alpha))
		if tooFew {
			rel.Notes = append(rel.Notes, "?: too few repetitions for the U test ever to reach significance (it needs at least 4 on each side): no p-value, no claim.")
		}
	}
	out := []Table{abs}
	if len(r.Runs) > 1 {
		out = append(out, rel)
	}
	if t, ok := r.ratesTable(sr); ok {
		out = append(out, t)
	}
	return out
}

// ratesTable is a step's system rates per second of the step, as the
// published tables show them: device reads/s, MB read and written per
// second, and the measured processes' CPU in cores busy.
func (r *Report) ratesTable(sr *StepReport) (Table, bool) {
	t := Table{
		Title:   fmt.Sprintf("%s device and CPU rates (per second of the step)", sr.Name),
		Headers: []string{"run", "r/s", "rMB/s", "wMB/s", "CPU(cores)", "secs"},
		Right:   []bool{false, true, true, true, true, true},
	}
	any, noisy, ioNoisy := false, false, false
	var ioCells [][]string
	for _, row := range sr.Rows {
		s := row.B.Steps[sr.Name]
		if s == nil || s.Metrics == nil || s.Seconds <= 0 {
			continue
		}
		m, secs := s.Metrics, s.Seconds
		per := func(v *float64, k float64) string {
			if v == nil {
				return units.NA
			}
			return units.Num(*v * k / secs)
		}
		perInt := func(v *int64, k float64) string {
			if v == nil {
				return units.NA
			}
			x := float64(*v)
			return per(&x, k)
		}
		line := []string{runName(row.Run), perInt(m.DevReads, 1), per(m.DevRKB, 1.0/1024), per(m.DevWKB, 1.0/1024),
			perInt(m.CPUUs, 1e-6), units.Num(secs)}
		noise := []string{units.NA, units.NA}
		if m.OtherCPUCores != nil || m.StealCores != nil {
			noisy = true
			noise = []string{figure.Ptr(m.OtherCPUCores).Text(units.Num), figure.Ptr(m.StealCores).Text(units.Num)}
		}
		mb := func(v *float64) string {
			if v == nil {
				return units.NA
			}
			return units.Num(*v / 1024)
		}
		if m.OtherProcRKB != nil || m.OtherProcWKB != nil {
			ioNoisy = true
		}
		ioCells = append(ioCells, []string{mb(m.OtherProcRKB), mb(m.OtherProcWKB)})
		t.Rows = append(t.Rows, append(line, noise...))
		any = true
	}
	t.Notes = []string{"r/s, rMB/s, wMB/s: the data dir's block device (MB = 2^20 bytes); CPU(cores): CPU seconds of the measured processes per second (1.00 = one core busy)."}
	if noisy {
		// Bundles from before the noise figures keep their table.
		t.Headers = append(t.Headers, "others(cores)", "steal(cores)")
		t.Right = append(t.Right, true, true)
		t.Notes = append(t.Notes, fmt.Sprintf("others, steal: CPU the rest of the host used (processes outside the measured set and the client) and the hypervisor stole, in cores over the step and its end-of-step flush (noise_span_s); above %.1f the report warns.", NoiseCores))
	} else {
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][:len(t.Headers)]
		}
	}
	if ioNoisy {
		t.Headers = append(t.Headers, "others rMB", "others wMB")
		t.Right = append(t.Right, true, true)
		for i := range t.Rows {
			t.Rows[i] = append(t.Rows[i], ioCells[i]...)
		}
		t.Notes = append(t.Notes, fmt.Sprintf("others rMB, wMB: storage bytes the kernel accounted to the rest of the host over the same span (/proc/PID/io of every process outside the measured set and the client: read_bytes, and write_bytes less cancelled, which counts pages dirtied, not device writes); above %.0f%% of the device's and %s MB the report warns.", results.NoiseIOShare*100, units.Num(results.NoiseIOMinKB/1024)))
	}
	return t, any
}

// targetColumn is the column of sr's table that shows paced operation op's
// rate ("" when none does): a query step's writers' inserts beside its
// queries, else the heading operation's.
func targetColumn(sr *StepReport, op string) string {
	switch {
	case sr.Kind == KindQuery && sr.Write.Name != "" && op == sr.Write.Name:
		return figure.WriteRateAvg
	case op == sr.Rate.Name:
		return figure.RateAvg
	}
	return ""
}

// missedRate reports whether column key of row shows the rate of an
// operation that missed its target (marked with a trailing !).
func missedRate(sr *StepReport, row *Row, key string) bool {
	for _, t := range row.Targets {
		if t.Missed() && targetColumn(sr, t.Op) == key {
			return true
		}
	}
	return false
}

// missedNote says by how much row missed target t, in the units of the
// column that shows its rate.
func missedNote(row *Row, sr *StepReport, t figure.Target) string {
	key := targetColumn(sr, t.Op)
	var w measure.OpSpec
	var v Value
	switch key {
	case figure.WriteRateAvg:
		w, v = sr.Write, row.Values[key]
	case figure.RateAvg:
		w, v = sr.Rate, row.Values[key]
	default:
		// Paced, but not a column of the table: the rate it reached.
		key, w, v = figure.RateAvg, measure.OpSpec{Name: t.Op, Unit: t.Unit}, t.Achieved
	}
	target := t.Rate
	if !target.OK || target.V == 0 || !v.OK {
		return fmt.Sprintf("! %s missed its %s rate target", runName(row.Run), w.Name)
	}
	return fmt.Sprintf("! %s missed its %s rate target of %s %s: %s %s (%+.1f%%)",
		runName(row.Run), w.Name, figure.Must(key).Format(target.V), w.UnitLabel(), figure.Must(key).Format(v.V), w.UnitLabel(), (v.V/target.V-1)*100)
}

// RunsTable lists the runs: what --base numbers mean.
func (r *Report) RunsTable() Table {
	// Bundles written before engine.memory existed render as they did.
	// Likewise bundles written before engine.config_diff existed.
	memory, diffs := false, false
	for _, run := range r.Runs {
		memory = memory || run.Bundle.Run.Engine.Memory != nil
		diffs = diffs || run.Bundle.Run.Engine.ConfigDiff != nil
	}
	t := Table{
		Title:   "runs",
		Headers: []string{"#", "label", "engine", "version"},
		Right:   []bool{true, false, false, false},
	}
	if diffs {
		t.Headers = append(t.Headers, "config diff")
		t.Right = append(t.Right, false)
	}
	t.Headers = append(t.Headers, "workload")
	t.Right = append(t.Right, false)
	if memory {
		t.Headers = append(t.Headers, "cache", "write buffers")
		t.Right = append(t.Right, true, true)
	}
	t.Headers = append(t.Headers, "complete", "started", "dir")
	t.Right = append(t.Right, false, false, false)
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
		row := []string{num, run.Label, fmt.Sprintf("%s (%s, %s)", b.Engine.Name, b.Engine.Family, b.Engine.Kind), b.Engine.Version}
		if diffs {
			row = append(row, configDiffText(b.Engine.ConfigDiff, b.Engine.Settings))
		}
		row = append(row, wl)
		if memory {
			row = append(row, cacheText(b.Engine.Memory), writeBufferText(b.Engine.Memory))
		}
		t.Rows = append(t.Rows, append(row, strconv.FormatBool(b.Complete), b.StartedAt.UTC().Format("2006-01-02 15:04:05Z"), run.Bundle.Dir))
	}
	if diffs {
		t.Notes = append(t.Notes, "config diff: the settings each engine ran with that differ from its defaults, read back from the engine or server (run.json engine.config_diff); defaults: none differ; -: not recorded; (asked V): a --server-opt gave V, the server runs the value shown.")
	}
	if memory {
		t.Notes = append(t.Notes, "cache: the engine's main cache as read back from it (block cache, buffer pool, shared_buffers, WiredTiger cache, SQLite's page cache over all its connections); write buffers: memtables, log buffers beside it.")
	}
	for _, run := range r.Runs {
		if n := tailNote(run.Bundle.Run.Tail); n != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s", runName(run), n))
		}
	}
	return t
}

// tailNote says what a run's engine wrote after its last step (run.json
// tail), charged to no step; "" when not recorded.
func tailNote(tl *results.Tail) string {
	if tl == nil {
		return ""
	}
	kb := func(v *float64) string {
		if v == nil {
			return units.NA
		}
		return units.Num(*v/1024) + " MB"
	}
	n := fmt.Sprintf("after its last step (closing the engine, stopping a managed server) the device wrote %s in %s s", kb(tl.DevWKB), units.Num(tl.Seconds))
	if tl.DevFlushes != nil {
		n += fmt.Sprintf(", %d flush", *tl.DevFlushes)
		if *tl.DevFlushes != 1 {
			n += "es"
		}
	}
	return n + "; charged to no step (run.json tail)"
}

// configDiffText is a run's config diff in short, key=value by key
// ("compression=zstd innodb_page_size=8192"): "defaults" when nothing
// differs, "-" when the bundle does not record it. A managed server
// setting (in settings, the engine's recorded ones) that the server runs
// with another value than asked is marked "(asked V)", also when the value
// it runs is its default ("innodb_page_size=16384 (asked 8k)").
func configDiffText(d *model.ConfigDiff, settings map[string]string) string {
	if d == nil {
		return "-"
	}
	values := map[string]string{}
	for _, s := range d.Settings {
		values[s.Key] = s.Value
		if given, ok := settings[serverOptPrefix+s.Key]; ok && askedOther(given, s.Value) {
			values[s.Key] += " (asked " + given + ")"
		}
	}
	// Asked for but read back as its default: not in the diff.
	for k, mark := range askedMarks(settings) {
		if _, ok := values[k]; !ok {
			values[k] = units.OrDash(settings[k]) + mark
		}
	}
	if len(values) == 0 {
		return "defaults"
	}
	parts := make([]string, 0, len(values))
	for _, k := range slices.Sorted(maps.Keys(values)) {
		parts = append(parts, k+"="+values[k])
	}
	return strings.Join(parts, " ")
}

// cacheText is an engine's effective cache as it read it back: "96MB", "none"
// for an engine without one, "96MB (override)" when an engine option set
// it apart from the run's budget, "-" when not recorded.
func cacheText(m *model.Memory) string {
	if m == nil {
		return "-"
	}
	s := units.Bytes(m.CacheBytes)
	switch {
	case m.Override != "":
		s += " (override)"
	case m.Caveat != "" && m.CacheBytes >= 0:
		s += " (≠ " + units.Bytes(m.BudgetBytes) + ")"
	}
	return s
}

func writeBufferText(m *model.Memory) string {
	if m == nil || m.WriteBufferBytes <= 0 {
		return "-"
	}
	return units.Bytes(m.WriteBufferBytes)
}

func workloadText(run *Run) string {
	s := run.Sizes
	if _, ibench := s["churn_rows"]; !ibench {
		// Another workload's sizes, as it recorded them.
		var keys []string
		for k := range s {
			if k != "workload" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+" "+units.OrDash(s[k]))
		}
		if len(parts) == 0 {
			return units.OrDash(s["workload"])
		}
		return units.OrDash(s["workload"]) + " " + strings.Join(parts, ", ")
	}
	out := fmt.Sprintf("%s %sx%s rows", s["workload"], units.OrDash(s["clients"]), s["rows"])
	if tb := s["tables"]; tb != "" && tb != s["clients"] {
		if tb == "1" {
			out += " on 1 table"
		} else {
			out += " on " + tb + " tables"
		}
	}
	out += fmt.Sprintf(", churn %s, %s idx", units.OrDash(s["churn_rows"]), units.OrDash(s["indexes"]))
	if u := s["unique_index"]; u != "" {
		out += " (" + u + " unique)"
	}
	return out + fmt.Sprintf(", pad %s-%s", units.OrDash(s["pad_min"]), units.OrDash(s["pad_max"]))
}

// ThroughputTable is the summary: a row per run, a column per step, each
// the step's headline rate.
func (r *Report) ThroughputTable() Table {
	t := Table{Title: "throughput summary (each step's headline rate: its main operation's, unit in the header)"}
	t.Headers = []string{"run"}
	t.Right = []bool{false}
	for _, sr := range r.Steps {
		h := sr.Name + "(not run)"
		switch {
		case sr.Ran && oneAction(sr):
			h = sr.Name + "(s)" // a length, not a rate
		case sr.Ran:
			h = fmt.Sprintf("%s(%s)", sr.Name, unitLabel(sr.Rate))
		}
		t.Headers = append(t.Headers, h)
		t.Right = append(t.Right, true)
	}
	var missedNotes []string
	for i, run := range r.Runs {
		line := []string{runName(run)}
		for _, sr := range r.Steps {
			c := throughputCell(sr.Rows[i], sr)
			if secs, ok := actionSeconds(sr.Rows[i], sr); ok && oneAction(sr) && sr.Rows[i].Status != StatusNotRun {
				c = units.Num(secs)
			}
			if sr.Rows[i].Targets.Missed() && sr.Rows[i].Status != StatusNotRun {
				c += figure.MissedMark
				for _, t := range sr.Rows[i].Targets {
					if n := figure.MissedNote(t); t.Missed() && !slices.Contains(missedNotes, n) {
						missedNotes = append(missedNotes, n)
					}
				}
			}
			line = append(line, c)
		}
		t.Rows = append(t.Rows, line)
	}
	for _, ns := range r.NotStarted {
		line := []string{"— " + ns.Engine + " (never started)"}
		for range r.Steps {
			line = append(line, StatusNotRun)
		}
		t.Rows = append(t.Rows, line)
	}
	t.Notes = append(t.Notes, missedNotes...)
	t.Notes = append(t.Notes, r.Caveats...)
	return t
}

func throughputCell(row *Row, sr *StepReport) string {
	switch row.Status {
	case StatusNotRun:
		return StatusNotRun
	case StatusIncomplete:
		v, _ := row.Throughput(sr)
		return v.Text(figure.Must(figure.RateAvg).Format) + " (incomplete)"
	}
	v, _ := row.Throughput(sr)
	return v.Text(figure.Must(figure.RateAvg).Format)
}

// StallsTable lists every operation of every step of every run that
// stalled.
func (r *Report) StallsTable() Table {
	t := Table{
		Title:   "stalls (intervals below 50% of the step's median rate, or with no progress)",
		Headers: []string{"step", "run", "operation", "stalls(n)", "stalled(s)", "longest(s)"},
		Right:   []bool{false, false, false, true, true, true},
	}
	for _, sr := range r.Steps {
		for _, row := range sr.Rows {
			ops := make([]string, 0, len(row.Stalls))
			for op, st := range row.Stalls {
				if st != nil && st.Count > 0 {
					ops = append(ops, op)
				}
			}
			sort.Strings(ops)
			for _, op := range ops {
				st := row.Stalls[op]
				t.Rows = append(t.Rows, []string{sr.Name, runName(row.Run), op, strconv.Itoa(st.Count), units.Num(st.Seconds), units.Num(st.LongestS)})
			}
		}
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No stalls in any step.")
	}
	return t
}

// SearchNote heads a search step's table: what its rate column is, and
// why its stalls are not the engine's.
const SearchNote = "sustained: the highest target rate whose probe passed the search's rule (at least 95% of the target achieved, no stalled interval, p99 within --slo-p99 when given), not done / step seconds; the probes' chart shows each target and what it achieved. The costs per unit and stalls(n,s) are over all probes, at their different targets (a low-target probe's intervals count as stalls against the step's median)."

// Legend explains the columns, once per report.
var Legend = []string{
	"Each step's table is headed by its main operation: <RATE>.av = done / step seconds (rows/s, or operations/s), <RATE>.99 = the rate that 99% of intervals met or exceeded (<RATE>.P with --rate-percentile P). The insert benchmark's write steps are headed by inserts (IPS), its query steps by queries (QPS) beside the writers' inserts.",
	"CPU/x: CPU µs (user+sys) of the measured processes per unit of the heading operation x (i: inserted row, q: query, u: update); wKB/x, rKB/x: KB written / read by storage per unit; r/x: storage reads per unit. Every figure divides the step's whole cost by that operation's count.",
	"disk(GB): on-disk footprint at step end, the data dir's allocated bytes with logs and preallocated files (a managed server's private data dir; a server rumbench does not manage: its database's dir only, or n/a). live(GB): the engine's own live size (docs/metrics.md); space amplification divides it. PSS(GB): memory at step end. All 10^9 bytes. max(ms): largest latency of the step's main operation.",
	"stalls(n,s): stalls (runs of consecutive stalled intervals) of the heading operation and their total seconds; a stalled interval has a rate below 50% of the step median, or no progress (docs/metrics.md: one rule for tables, charts and the live line).",
	"n/a: not measured in that run (e.g. system metrics unavailable); —: step not run. A trailing ! marks a rate that missed its target: a query step's writers', or queries and requests paced by --query-rate and --request-rate.",
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

// RelativeTable leads the report: each step's headline rate relative to the
// base run (run / base, above 1 is faster), a row per run, with the U
// test's mark for repeated runs.
func (r *Report) RelativeTable() Table {
	base := r.Runs[r.Base]
	t := Table{Title: fmt.Sprintf("headline rate relative to base %s (run / base: %s is faster)", runName(base), figure.Must(figure.RateAvg).Better.Side("above 1", "below 1"))}
	t.Headers = []string{"run"}
	t.Right = []bool{false}
	var actions []string
	for _, sr := range r.Steps {
		if oneAction(sr) {
			actions = append(actions, sr.Name)
			continue
		}
		t.Headers = append(t.Headers, sr.Name)
		t.Right = append(t.Right, true)
	}
	for i, run := range r.Runs {
		line := []string{runName(run)}
		for _, sr := range r.Steps {
			if oneAction(sr) {
				continue
			}
			line = append(line, ratioCell(sr.Rows[i], figure.RateAvg, i == r.Base))
		}
		t.Rows = append(t.Rows, line)
	}
	if len(actions) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%s: one timed action in each run (the engine's maintenance and its wait to come to rest): a length, not a rate to rank, so left out here; the throughput summary gives its seconds.", strings.Join(actions, ", ")))
	}
	return t
}

// oneAction reports whether step sr is one timed action in every run that
// ran it (maint), whose "rate" is 1 / its length: such a step stays out of
// the rate ratios and is shown as its seconds.
func oneAction(sr *StepReport) bool { return oneActionVerdict(sr, false) != "" }

// actionSeconds is the length of row's run of step sr.
func actionSeconds(row *Row, sr *StepReport) (float64, bool) {
	if row.Run.Bundle == nil {
		return 0, false
	}
	st := row.Run.Bundle.Steps[sr.Name]
	if st == nil {
		return 0, false
	}
	return st.Seconds, true
}

// effKeys are the per-operation efficiency figures the summary compares,
// each named by the catalogue (figure.Figure.Name).
var effKeys = []string{figure.CPUPerOp, figure.WKBPerOp, figure.RKBPerOp, figure.LiveGB}

// EfficiencyTable follows the relative rates: each step's cost per unit of
// its headline operation (CPU µs, KB written and read) and the database
// size at its end, relative to the base run (below 1 is cheaper). A row per
// step, a column per figure per run other than the base.
func (r *Report) EfficiencyTable() Table {
	base := r.Runs[r.Base]
	t := Table{Title: fmt.Sprintf("efficiency per operation relative to base %s (run / base: %s is cheaper)", runName(base), figure.Direction(effKeys...).Side("above 1", "below 1"))}
	t.Headers = []string{"step"}
	t.Right = []bool{false}
	for i, run := range r.Runs {
		if i == r.Base {
			continue
		}
		for _, k := range effKeys {
			t.Headers = append(t.Headers, fmt.Sprintf("#%d %s", run.Num, figure.Must(k).Name()))
			t.Right = append(t.Right, true)
		}
	}
	for _, sr := range r.Steps {
		line := []string{sr.Name}
		for i, row := range sr.Rows {
			if i == r.Base {
				continue
			}
			for _, k := range effKeys {
				line = append(line, ratioCell(row, k, false))
			}
		}
		t.Rows = append(t.Rows, line)
	}
	t.Notes = []string{"CPU/op, wKB/op, rKB/op: CPU µs of the measured processes, KB written and read by storage, per unit of the step's headline operation (the step tables' CPU/i, wKB/q, ...); live size: the engine's own size of its live data at the step's end (live(GB) in the step tables; the on-disk footprint is disk(GB))."}
	return t
}

// ratioCell is a row's ratio to the base for key: "not run", n/a, or the
// ratio with its significance mark.
func ratioCell(row *Row, key string, isBase bool) string {
	if row.Status == StatusNotRun {
		return StatusNotRun
	}
	v := row.Ratios[key]
	t := v.Text(units.Ratio)
	if cmp := row.Cmp[key]; cmp != nil && !isBase && v.OK {
		t += cmp.Mark()
	}
	return t
}

// steadyNote says how a step measured after a steady-state warm-up
// (--steady-state) got there; a step measured without reaching it is
// flagged, since its figures may still be drifting.
func steadyNote(st *results.Step) string {
	if st == nil || st.SteadyState == nil {
		return ""
	}
	ss := st.SteadyState
	if !ss.Reached {
		return fmt.Sprintf("NOT STEADY: measured after the steady-state rule %s ran out without holding (last window: deviation %.1f%%, slope %.1f%% of its mean)",
			ss.Rule, ss.Window.DevPct, ss.Window.SlopePct)
	}
	return fmt.Sprintf("steady after %s of warm-up (rule %s: deviation %.1f%%, slope %.1f%% over %d intervals)",
		units.Num(ss.AtS)+" s", ss.Rule, ss.Window.DevPct, ss.Window.SlopePct, ss.Window.N)
}
