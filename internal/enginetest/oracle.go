package enginetest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"rumbench/internal/model"
)

func cmpValues(t *model.Table, cols []int, a, b model.Row) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		var c int
		if t.Columns[cols[i]].Type == model.String {
			c = bytes.Compare(a[i].Bytes, b[i].Bytes)
		} else if a[i].Int < b[i].Int {
			c = -1
		} else if a[i].Int > b[i].Int {
			c = 1
		}
		if c != 0 {
			return c
		}
	}
	if len(a) < len(b) {
		return -1
	}
	return 0
}

// mem is the model of a table: rows by encoded PK.
type mem struct {
	t    *model.Table
	rows map[string]model.Row
}

func newMem(t *model.Table) *mem { return &mem{t: t, rows: map[string]model.Row{}} }

func (m *mem) key(r model.Row) string {
	var b []byte
	for _, p := range m.t.PK {
		b = fmt.Appendf(b, "%d:%q|", r[p].Int, r[p].Bytes)
	}
	return string(b)
}

func (m *mem) put(r model.Row) { m.rows[m.key(r)] = model.CopyRow(nil, r) }

func (m *mem) pk(r model.Row) model.Row {
	var k model.Row
	for _, p := range m.t.PK {
		k = append(k, r[p])
	}
	return k
}

// entries returns the expected entries of index ix (-1 = PK), sorted.
func (m *mem) entries(ix int) []model.Row {
	proj := m.t.IndexColumns(ix)
	var out []model.Row
	for _, r := range m.rows {
		e := make(model.Row, len(proj))
		for i, c := range proj {
			e[i] = r[c]
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return cmpValues(m.t, proj, out[i], out[j]) < 0 })
	return out
}

func sameRow(a, b model.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Int != b[i].Int || !bytes.Equal(a[i].Bytes, b[i].Bytes) {
			return false
		}
	}
	return true
}

func scanAll(tb testing.TB, c model.Conn, t *model.Table, spec model.ScanSpec) []model.Row {
	tb.Helper()
	var got []model.Row
	n, err := c.Scan(context.Background(), t, spec, func(r model.Row) bool {
		got = append(got, model.CopyRow(nil, r))
		return true
	})
	if err != nil {
		tb.Fatalf("scan %s index %d: %v", t.Name, spec.Index, err)
	}
	if n != len(got) {
		tb.Fatalf("scan %s index %d returned %d, called fn %d times", t.Name, spec.Index, n, len(got))
	}
	return got
}

// check verifies the PK and every index of the table against the model: full
// scans both ways, Get of every model row, and random bounded scans.
func (m *mem) check(tb testing.TB, c model.Conn, r *rand.Rand, gone []model.Row) {
	tb.Helper()
	ctx := context.Background()
	for ix := -1; ix < len(m.t.Indexes); ix++ {
		want := m.entries(ix)
		got := scanAll(tb, c, m.t, model.ScanSpec{Index: ix})
		if len(got) != len(want) {
			tb.Fatalf("%s index %d: full scan has %d entries, want %d", m.t.Name, ix, len(got), len(want))
		}
		for i := range want {
			if !sameRow(got[i], want[i]) {
				tb.Fatalf("%s index %d: entry %d is %v, want %v", m.t.Name, ix, i, got[i], want[i])
			}
		}
		desc := scanAll(tb, c, m.t, model.ScanSpec{Index: ix, Desc: true})
		for i := range desc {
			if !sameRow(desc[i], want[len(want)-1-i]) {
				tb.Fatalf("%s index %d: descending entry %d is %v, want %v", m.t.Name, ix, i, desc[i], want[len(want)-1-i])
			}
		}
		m.checkRanges(tb, c, r, ix, want)
	}
	// Get: every model row, plus keys that must not be found.
	var keys []model.Row
	for _, row := range m.rows {
		keys = append(keys, m.pk(row))
	}
	found := 0
	n, err := c.Get(ctx, m.t, keys, func(row model.Row) {
		want, ok := m.rows[m.key(row)]
		if !ok || !sameRow(row, want) {
			tb.Fatalf("%s: Get returned %v, model has %v", m.t.Name, row, want)
		}
		found++
	})
	if err != nil || n != len(keys) || found != n {
		tb.Fatalf("%s: Get found %d (%d calls) of %d: %v", m.t.Name, n, found, len(keys), err)
	}
	if len(gone) > 0 {
		n, err := c.Get(ctx, m.t, gone, func(row model.Row) { tb.Fatalf("%s: Get found deleted row %v", m.t.Name, row) })
		if err != nil || n != 0 {
			tb.Fatalf("%s: Get of deleted keys found %d: %v", m.t.Name, n, err)
		}
	}
}

// checkRanges runs bounded scans with random lower bounds and limits and
// compares them with the model's sorted entries.
func (m *mem) checkRanges(tb testing.TB, c model.Conn, r *rand.Rand, ix int, want []model.Row) {
	tb.Helper()
	proj := m.t.IndexColumns(ix)
	ranges := 40
	if raceEnabled {
		ranges = 10 // the same checks, single-threaded: the race run needs few
	}
	for k := 0; k < ranges; k++ {
		var lower model.Row
		l := 1 + r.Intn(len(proj))
		if len(want) > 0 && r.Intn(3) > 0 {
			lower = model.CopyRow(nil, want[r.Intn(len(want))][:l])
		} else {
			lower = make(model.Row, l)
			for i := range lower {
				if m.t.Columns[proj[i]].Type == model.String {
					lower[i].Bytes = strAlphabet[r.Intn(len(strAlphabet))]
				} else {
					lower[i].Int = int64(r.Intn(60)) - 15
				}
			}
		}
		// Perturb the last value so bounds fall between entries too.
		if last := &lower[l-1]; m.t.Columns[proj[l-1]].Type != model.String && r.Intn(2) == 0 {
			last.Int += int64(r.Intn(3)) - 1
		}
		limit := []int{0, 1, 10, 100}[r.Intn(4)]
		desc := r.Intn(2) == 0
		var exp []model.Row
		if !desc {
			i := sort.Search(len(want), func(i int) bool { return cmpValues(m.t, proj, want[i][:l], lower) >= 0 })
			for ; i < len(want) && (limit == 0 || len(exp) < limit); i++ {
				exp = append(exp, want[i])
			}
		} else {
			i := sort.Search(len(want), func(i int) bool { return cmpValues(m.t, proj, want[i][:l], lower) > 0 }) - 1
			for ; i >= 0 && (limit == 0 || len(exp) < limit); i-- {
				exp = append(exp, want[i])
			}
		}
		got := scanAll(tb, c, m.t, model.ScanSpec{Index: ix, Lower: lower, Limit: limit, Desc: desc})
		if len(got) != len(exp) {
			tb.Fatalf("%s index %d lower %v limit %d desc %v: %d entries, want %d", m.t.Name, ix, lower, limit, desc, len(got), len(exp))
		}
		for i := range exp {
			if !sameRow(got[i], exp[i]) {
				tb.Fatalf("%s index %d lower %v limit %d desc %v: entry %d is %v, want %v", m.t.Name, ix, lower, limit, desc, i, got[i], exp[i])
			}
		}
		m.checkCols(tb, c, model.ScanSpec{Index: ix, Lower: lower, Limit: limit, Desc: desc}, k, exp)
	}
}

// checkCols runs spec again naming the columns its callback reads
// (ScanSpec.Cols, a different set for each k: none, the first, the last,
// two, all): the same entries in the same order, the named columns equal to
// exp's.
func (m *mem) checkCols(tb testing.TB, c model.Conn, spec model.ScanSpec, k int, exp []model.Row) {
	tb.Helper()
	np := len(m.t.IndexColumns(spec.Index))
	spec.Cols = [][]int{model.NoCols, {0}, {np - 1}, {np - 1, k % np}, nil}[k%5]
	if spec.Cols == nil {
		for i := range np {
			spec.Cols = append(spec.Cols, i)
		}
	}
	i := 0
	n, err := c.Scan(context.Background(), m.t, spec, func(r model.Row) bool {
		if i >= len(exp) {
			tb.Fatalf("%s index %d cols %v: more than the %d entries of the scan without cols", m.t.Name, spec.Index, spec.Cols, len(exp))
		}
		for _, p := range spec.Cols {
			if r[p].Int != exp[i][p].Int || !bytes.Equal(r[p].Bytes, exp[i][p].Bytes) {
				tb.Fatalf("%s index %d cols %v: entry %d column %d is %+v, want %+v", m.t.Name, spec.Index, spec.Cols, i, p, r[p], exp[i][p])
			}
		}
		i++
		return true
	})
	if err != nil || n != len(exp) || i != n {
		tb.Fatalf("%s index %d cols %v: %d entries (%d calls), want %d: %v", m.t.Name, spec.Index, spec.Cols, n, i, len(exp), err)
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func insertRange(tb testing.TB, c model.Conn, t *model.Table, m *mem, from, to int64, batch int) {
	tb.Helper()
	var rows []model.Row
	for pk := from; pk < to; pk++ {
		rows = append(rows, IbenchRow(nil, pk))
		if len(rows) == batch || pk == to-1 {
			must(tb, c.Insert(context.Background(), t, rows))
			for _, r := range rows {
				m.put(r)
			}
			rows = rows[:0]
		}
	}
}

func sameSchema(a, b *model.Table) bool {
	if a.Name != b.Name || len(a.Columns) != len(b.Columns) || len(a.Indexes) != len(b.Indexes) || fmt.Sprint(a.PK) != fmt.Sprint(b.PK) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i] != b.Columns[i] {
			return false
		}
	}
	for i := range a.Indexes {
		if a.Indexes[i].Name != b.Indexes[i].Name || fmt.Sprint(a.Indexes[i].Columns) != fmt.Sprint(b.Indexes[i].Columns) {
			return false
		}
	}
	return true
}
