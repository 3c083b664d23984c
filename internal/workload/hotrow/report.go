package hotrow

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/results"
	texttable "rumbench/internal/table"
	"rumbench/internal/units"
)

// Matrix is one engine's hot-row updates/s matrix: rows are table counts,
// columns concurrency. A cell's value is unavailable (OK false) when it was
// skipped (fewer clients than tables), not run, or failed; Status says which.
type Matrix struct {
	Engine      string
	Tables      []int
	Concurrency []int
	// RowsPerTx is K, the rows each transaction updated (1: single
	// autocommit updates); a value is then committed transactions/s.
	RowsPerTx int
	// Values[i][j] is committed updates/s for Tables[i] × Concurrency[j].
	Values [][]figure.Value
	Status [][]string
}

// Matrix cell statuses besides "ok".
const (
	CellOK      = "ok"
	CellSkipped = "skipped"
	CellNotRun  = "not run"
	CellFailed  = "failed"
)

// HotrowMatrix builds the updates/s matrix of one hot-row bundle. The axes
// are those of the planned cells, so skipped and unfinished cells show.
func HotrowMatrix(b *results.Bundle) Matrix {
	m := Matrix{Engine: b.Run.VariantLabel(), RowsPerTx: RowsPerTx(b)}
	planned := map[Cell]bool{}
	for _, name := range b.Run.Steps {
		c, ok := ParseCellName(name)
		if !ok {
			continue
		}
		planned[c] = true
		m.Tables = append(m.Tables, c.Tables)
		m.Concurrency = append(m.Concurrency, c.Clients)
	}
	slices.Sort(m.Tables)
	m.Tables = slices.Compact(m.Tables)
	slices.Sort(m.Concurrency)
	m.Concurrency = slices.Compact(m.Concurrency)
	for _, t := range m.Tables {
		vals := make([]figure.Value, len(m.Concurrency))
		stat := make([]string, len(m.Concurrency))
		for j, n := range m.Concurrency {
			c := Cell{Tables: t, Clients: n}
			s := b.Steps[c.Name()]
			switch {
			case !planned[c]:
				stat[j] = CellSkipped
			case s == nil:
				stat[j] = CellNotRun
			case !s.Complete:
				stat[j] = CellFailed
			default:
				stat[j] = CellOK
				vals[j] = cellRate(s)
			}
		}
		m.Values = append(m.Values, vals)
		m.Status = append(m.Status, stat)
	}
	return m
}

// cellRate is a cell's committed updates/s: the step's own update rate
// (committed updates / the step's seconds), the figure the generic step
// tables, the throughput summary and the verdict show, so that the run's
// matrix and every report of its bundle agree. The step's seconds include
// reading the hot rows' counters after the window (connecting and the
// first read are the step's setup, before its clock), so the figure is a
// little below
// committed / window_s, kept in the details as updates_per_s. Bundles
// without the step rate fall back to that.
func cellRate(s *results.Step) figure.Value {
	if v := figure.Get(figure.RateAvg, figure.OfOp(s, OpUpdate)); v.OK {
		return v
	}
	return figure.Num(s.Details, DetailUpdatesPerS)
}

// RowsPerTx is the rows per transaction of a hot-row bundle, as its cells
// record them (rows_per_tx, written only when more than 1).
func RowsPerTx(b *results.Bundle) int {
	k := 1
	for _, s := range b.Steps {
		if v := figure.Num(s.Details, DetailRowsPerTx); v.OK && int(v.V) > k {
			k = int(v.V)
		}
	}
	return k
}

// perStepSecond is a count detail of s divided by the step's seconds.
func perStepSecond(s *results.Step, key string) figure.Value {
	v := figure.Num(s.Details, key)
	if !v.OK || s.Seconds <= 0 {
		return figure.Value{}
	}
	return figure.Known(v.V / s.Seconds)
}

// matrixTable renders m, or m relative to base when base is not nil.
func matrixTable(m Matrix, base *Matrix) texttable.Table {
	t := texttable.Table{Headers: []string{"tables \\ clients"}, Right: []bool{false}}
	for _, n := range m.Concurrency {
		t.Headers = append(t.Headers, strconv.Itoa(n))
		t.Right = append(t.Right, true)
	}
	switch {
	case base == nil && m.RowsPerTx > 1:
		t.Title = fmt.Sprintf("%s: transactions/s (committed, %d rows each), rows = tables, columns = concurrency", m.Engine, m.RowsPerTx)
	case base == nil:
		t.Title = fmt.Sprintf("%s: updates/s (committed), rows = tables, columns = concurrency", m.Engine)
	case m.RowsPerTx > 1 || base.RowsPerTx > 1:
		t.Title = fmt.Sprintf("%s relative to %s: transactions/s ratio (>1 is faster)", m.Engine, base.Engine)
	default:
		t.Title = fmt.Sprintf("%s relative to %s: updates/s ratio (>1 is faster)", m.Engine, base.Engine)
	}
	for i, tables := range m.Tables {
		row := []string{strconv.Itoa(tables)}
		for j, n := range m.Concurrency {
			v, st := m.Values[i][j], m.Status[i][j]
			if st != CellOK {
				row = append(row, statusText(st))
				continue
			}
			if base == nil {
				row = append(row, v.Text(units.Num))
				continue
			}
			row = append(row, figure.Ratio(v, base.at(tables, n)).Text(units.WideRatio))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// at returns the base value of a cell, unavailable when the base lacks it.
func (m *Matrix) at(tables, clients int) figure.Value {
	i, j := slices.Index(m.Tables, tables), slices.Index(m.Concurrency, clients)
	if i < 0 || j < 0 || m.Status[i][j] != CellOK {
		return figure.Value{}
	}
	return m.Values[i][j]
}

func statusText(st string) string {
	if st == CellSkipped {
		return units.Dash
	}
	return st
}

// hotrowCellTable lists every cell of one bundle with latency, errors by
// kind and retries. A bundle of K-row transactions shows transactions/s
// and rows/s where single updates show updates/s.
func hotrowCellTable(b *results.Bundle) texttable.Table {
	k := RowsPerTx(b)
	t := texttable.Table{
		Title: fmt.Sprintf("%s: hot-row cells", b.Run.VariantLabel()),
		Headers: []string{"cell", "status", "window(s)", "upd/s", "attempts/s", "p50(ms)", "p99(ms)", "max(ms)",
			"CPU/u(µs)", "wKB/u", "deadlock", "lockwait", "serial", "busy", "other", "retries", "gave up", "counters"},
	}
	if k > 1 {
		t.Title = fmt.Sprintf("%s: hot-row cells, %d rows per transaction", b.Run.VariantLabel(), k)
		t.Headers = []string{"cell", "status", "window(s)", "tx/s", "rows/s", "attempts/s", "p50(ms)", "p99(ms)", "max(ms)",
			"CPU/tx(µs)", "wKB/tx", "deadlock", "lockwait", "serial", "busy", "other", "retries", "gave up", "at end", "counters"}
	}
	t.Right = make([]bool, len(t.Headers))
	for i := 2; i < len(t.Right)-1; i++ {
		t.Right[i] = true
	}
	var failures []string
	for _, name := range b.Run.Steps {
		if _, ok := ParseCellName(name); !ok {
			continue
		}
		s := b.Steps[name]
		if s == nil {
			t.Rows = append(t.Rows, []string{name, CellNotRun})
			continue
		}
		status := CellOK
		if !s.Complete {
			status = CellFailed
			failures = append(failures, fmt.Sprintf("%s failed: %s", name, units.OrDash(s.Error)))
		}
		lat := s.Latency["update"]
		ms := func(us int64) string {
			if lat.Count == 0 {
				return units.NA
			}
			return units.Num(float64(us) / 1000)
		}
		errs, _ := s.Details[DetailErrors].(map[string]any)
		row := []string{name, status,
			figure.Num(s.Details, DetailWindowS).Text(units.Num),
			cellRate(s).Text(units.Num)}
		if k > 1 {
			row = append(row, perStepSecond(s, DetailRowsUpdated).Text(units.Num))
		}
		row = append(row, perStepSecond(s, DetailAttempts).Text(units.Num),
			ms(lat.P50), ms(lat.P99), ms(lat.Max))
		src := figure.OfOp(s, OpUpdate)
		row = append(row, figure.Get(figure.CPUPerOp, src).Text(units.Num), figure.Get(figure.WKBPerOp, src).Text(units.Num))
		for _, kind := range []string{"deadlock", "lock_wait_timeout", "serialization_failure", "busy", "other"} {
			row = append(row, figure.Num(errs, kind).Text(units.Num))
		}
		row = append(row, figure.Num(s.Details, DetailRetries).Text(units.Num),
			figure.Num(s.Details, DetailExhausted).Text(units.Num))
		if k > 1 {
			row = append(row, figure.Num(s.Details, DetailAbandoned).Text(units.Num))
		}
		check, _ := s.Details[DetailCounterCheck].(string)
		if strings.HasPrefix(check, "skipped") {
			// The step's details say why.
			check = "not checked"
		}
		row = append(row, units.OrDash(check))
		t.Rows = append(t.Rows, row)
	}
	if k > 1 {
		t.Notes = append(failures,
			fmt.Sprintf("tx/s: committed transactions (each BEGIN, %d updates of distinct hot rows in a random order, COMMIT) / the cell's step seconds (the figure of the matrices and of `rumbench report`); rows/s: the rows they updated (tx × %d) / the same seconds; attempts/s: every transaction attempt, failed ones included, / the same seconds. window(s) is the update window alone.", k, k),
			"p50/p99/max: service time of one transaction attempt (BEGIN to COMMIT, or to the failure and its rollback); the details' txn_latency_us is the whole transaction including retries and backoff. CPU/tx, wKB/tx: CPU µs of the measured processes and KB written to storage per committed transaction. deadlock..other: failed attempts by kind, each rolled back whole; retries and gave up (after the last retry) follow the retry policy in each step's details; at end: transactions that failed once the cell's time was up, rolled back and not retried.",
			fmt.Sprintf("counters: the hot rows' counters grew by exactly the committed transactions × %d (ok).", k),
		)
		return t
	}
	t.Notes = append(failures,
		"upd/s: committed updates / the cell's step seconds (goodput; the figure of the matrices and of `rumbench report`); attempts/s: every attempt, failed ones included, / the same seconds (throughput). A step also reads the hot rows' counters after its update window (window(s)), so upd/s is a little below committed / window (the details' updates_per_s).",
		"p50/p99/max: service time of one update attempt. CPU/u, wKB/u: CPU µs of the measured processes and KB written to storage per committed update (the cell's totals / its updates). deadlock..other: failed attempts by kind; retries and gave up follow the retry policy in each step's details.",
		"counters: the hot rows' counters grew by exactly the committed updates (ok), or not checked (uniform/zipf spread updates over the whole table; the null engine keeps no rows).",
	)
	return t
}

// HotrowReport writes what `rumbench run hotrow` prints at its
// end: per engine the cell table and the updates/s matrix, then each other
// engine's matrix relative to the first (the base).
func HotrowReport(w io.Writer, bundles []*results.Bundle) error {
	var sb strings.Builder
	labels := make([]string, len(bundles))
	for i, b := range bundles {
		e := b.Run.Engine
		labels[i] = b.Run.VariantLabel()
		name := e.Name
		if labels[i] != e.Name {
			name = labels[i] + " = " + e.Name
		}
		fmt.Fprintf(&sb, "\n%s (%s, %s, version %s)\n\n", name, e.Family, e.Kind, e.Version)
		if e.Note != "" {
			fmt.Fprintf(&sb, "NOTE: %s\n\n", e.Note)
		}
		if e.UpdateCaveat != "" {
			fmt.Fprintf(&sb, "CAVEAT: %s\n\n", e.UpdateCaveat)
		}
		texttable.WriteMarkdown(&sb, hotrowCellTable(b), "##")
	}
	sb.WriteString("\n")
	writeMatrices(&sb, labels, bundles)
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeMatrices appends each run's updates/s matrix, then each other run's
// relative to the first (the base).
func writeMatrices(sb *strings.Builder, labels []string, bundles []*results.Bundle) {
	var mats []Matrix
	for i, b := range bundles {
		m := HotrowMatrix(b)
		m.Engine = labels[i]
		mats = append(mats, m)
	}
	for _, m := range mats {
		t := matrixTable(m, nil)
		t.Notes = []string{"— : skipped (fewer clients than tables); failed / not run: the cell did not finish."}
		texttable.WriteMarkdown(sb, t, "##")
	}
	if len(mats) > 1 {
		for _, m := range mats[1:] {
			texttable.WriteMarkdown(sb, matrixTable(m, &mats[0]), "##")
		}
	}
}

// ReportTable is what `rumbench report` prints after the generic step tables of
// hot-row runs: the matrices the run printed, from the same figures.
func ReportTable(w io.Writer, labels []string, bundles []*results.Bundle) error {
	var sb strings.Builder
	writeMatrices(&sb, labels, bundles)
	_, err := io.WriteString(w, sb.String())
	return err
}
