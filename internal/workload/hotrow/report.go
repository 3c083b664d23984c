package hotrow

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"rumbench/internal/report"
	"rumbench/internal/results"
)

// Aliases of the report toolkit used by the hot-row views.
type (
	Value = report.Value
)

const (
	StatusOK   = report.StatusOK
	naText     = report.NAText
	notRunText = report.NotRunText
)

var (
	num          = report.Num
	ratio        = report.Ratio
	cell         = report.CellText
	fmtNum       = report.FmtNum
	fmtRatio     = report.FmtRatio
	orDash       = report.OrDash
	writeMDTable = report.WriteMarkdownTable
)

// Matrix is one engine's hot-row updates/s matrix: rows are table counts,
// columns concurrency. A cell's value is unavailable (OK false) when it was
// skipped (fewer clients than tables), not run, or failed; Status says which.
type Matrix struct {
	Engine      string
	Tables      []int
	Concurrency []int
	// Values[i][j] is committed updates/s for Tables[i] × Concurrency[j].
	Values [][]Value
	Status [][]string
}

// Matrix cell statuses besides "ok".
const (
	CellSkipped = "skipped"
	CellNotRun  = "not run"
	CellFailed  = "failed"
)

// HotrowMatrix builds the updates/s matrix of one hot-row bundle. The axes
// are those of the planned cells, so skipped and unfinished cells show.
func HotrowMatrix(b *results.Bundle) Matrix {
	m := Matrix{Engine: b.Run.Engine.Name}
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
		vals := make([]Value, len(m.Concurrency))
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
				stat[j] = StatusOK
				vals[j] = num(s.Details, DetailUpdatesPerS)
			}
		}
		m.Values = append(m.Values, vals)
		m.Status = append(m.Status, stat)
	}
	return m
}

// matrixTable renders m, or m relative to base when base is not nil.
func matrixTable(m Matrix, base *Matrix) report.Table {
	t := report.Table{Headers: []string{"tables \\ clients"}, Right: []bool{false}}
	for _, n := range m.Concurrency {
		t.Headers = append(t.Headers, strconv.Itoa(n))
		t.Right = append(t.Right, true)
	}
	if base == nil {
		t.Title = fmt.Sprintf("%s: updates/s (committed), rows = tables, columns = concurrency", m.Engine)
	} else {
		t.Title = fmt.Sprintf("%s relative to %s: updates/s ratio (>1 is faster)", m.Engine, base.Engine)
	}
	for i, tables := range m.Tables {
		row := []string{strconv.Itoa(tables)}
		for j, n := range m.Concurrency {
			v, st := m.Values[i][j], m.Status[i][j]
			if st != StatusOK {
				row = append(row, statusText(st))
				continue
			}
			if base == nil {
				row = append(row, cell(v, fmtNum))
				continue
			}
			row = append(row, cell(ratio(v, base.at(tables, n)), fmtMatrixRatio))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// at returns the base value of a cell, unavailable when the base lacks it.
func (m *Matrix) at(tables, clients int) Value {
	i, j := slices.Index(m.Tables, tables), slices.Index(m.Concurrency, clients)
	if i < 0 || j < 0 || m.Status[i][j] != StatusOK {
		return Value{}
	}
	return m.Values[i][j]
}

// fmtMatrixRatio keeps two significant digits below 0.1: engines differ by
// orders of magnitude here, and 0.00 would hide by how much.
func fmtMatrixRatio(v float64) string {
	if v != 0 && v < 0.1 && v > -0.1 {
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return fmtRatio(v)
}

func statusText(st string) string {
	if st == CellSkipped {
		return notRunText
	}
	return st
}

// hotrowCellTable lists every cell of one bundle with latency, errors by
// kind and retries.
func hotrowCellTable(b *results.Bundle) report.Table {
	t := report.Table{
		Title: fmt.Sprintf("%s: hot-row cells", b.Run.Engine.Name),
		Headers: []string{"cell", "status", "window(s)", "upd/s", "attempts/s", "p50(ms)", "p99(ms)", "max(ms)",
			"CPU/u(µs)", "wKB/u", "deadlock", "lockwait", "serial", "busy", "other", "retries", "gave up", "counters"},
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
		status := StatusOK
		if !s.Complete {
			status = CellFailed
			failures = append(failures, fmt.Sprintf("%s failed: %s", name, orDash(s.Error)))
		}
		lat := s.Latency["update"]
		ms := func(us int64) string {
			if lat.Count == 0 {
				return naText
			}
			return fmtNum(float64(us) / 1000)
		}
		errs, _ := s.Details[DetailErrors].(map[string]any)
		row := []string{name, status,
			cell(num(s.Details, DetailWindowS), fmtNum),
			cell(num(s.Details, DetailUpdatesPerS), fmtNum),
			cell(num(s.Details, DetailAttemptsPerS), fmtNum),
			ms(lat.P50), ms(lat.P99), ms(lat.Max)}
		var cpu, wkb Value
		if s.Metrics != nil && s.Metrics.PerOp[OpUpdate] != nil {
			c := s.Metrics.PerOp[OpUpdate]
			if c.CPUUs != nil {
				cpu = report.Known(*c.CPUUs)
			}
			if c.WKB != nil {
				wkb = report.Known(*c.WKB)
			}
		}
		row = append(row, cell(cpu, fmtNum), cell(wkb, fmtNum))
		for _, k := range []string{"deadlock", "lock_wait_timeout", "serialization_failure", "busy", "other"} {
			row = append(row, cell(num(errs, k), fmtNum))
		}
		row = append(row, cell(num(s.Details, DetailRetries), fmtNum),
			cell(num(s.Details, DetailExhausted), fmtNum))
		check, _ := s.Details[DetailCounterCheck].(string)
		if strings.HasPrefix(check, "skipped") {
			// The step's details say why.
			check = "not checked"
		}
		row = append(row, orDash(check))
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(failures,
		"upd/s: committed updates per second of the cell's window (goodput); attempts/s counts every attempt, failed ones included (throughput).",
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
	var mats []Matrix
	for _, b := range bundles {
		e := b.Run.Engine
		fmt.Fprintf(&sb, "\n%s (%s, %s, version %s)\n\n", e.Name, e.Family, e.Kind, e.Version)
		if e.Note != "" {
			fmt.Fprintf(&sb, "NOTE: %s\n\n", e.Note)
		}
		if e.UpdateCaveat != "" {
			fmt.Fprintf(&sb, "CAVEAT: %s\n\n", e.UpdateCaveat)
		}
		writeMDTable(&sb, hotrowCellTable(b), "##")
		m := HotrowMatrix(b)
		mats = append(mats, m)
	}
	sb.WriteString("\n")
	for _, m := range mats {
		t := matrixTable(m, nil)
		t.Notes = []string{"— : skipped (fewer clients than tables); failed / not run: the cell did not finish."}
		writeMDTable(&sb, t, "##")
	}
	if len(mats) > 1 {
		for _, m := range mats[1:] {
			writeMDTable(&sb, matrixTable(m, &mats[0]), "##")
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
