package hotrow

import (
	"strings"
	"testing"

	"rumbench/internal/results"
)

func hotrowBundle(engine string, ups map[string]float64, failed ...string) *results.Bundle {
	b := &results.Bundle{Steps: map[string]*results.Step{}}
	b.Run.Engine.Name = engine
	b.Run.Steps = []string{"load", "t1c1", "t1c4", "t2c4", "t4c4"}
	for name, v := range ups {
		b.Steps[name] = &results.Step{Step: name, Complete: true, Details: map[string]any{"updates_per_s": v}}
	}
	for _, name := range failed {
		b.Steps[name] = &results.Step{Step: name, Error: "boom"}
	}
	return b
}

// TestHotrowMatrixShape: rows are table counts, columns concurrency; cells
// with fewer clients than tables are skipped, unfinished ones say so.
func TestHotrowMatrixShape(t *testing.T) {
	base := hotrowBundle("pebble", map[string]float64{"t1c1": 100, "t1c4": 200, "t2c4": 400}, "t4c4")
	m := HotrowMatrix(base)
	if len(m.Tables) != 3 || len(m.Concurrency) != 2 || m.Tables[2] != 4 || m.Concurrency[1] != 4 {
		t.Fatalf("axes %v x %v", m.Tables, m.Concurrency)
	}
	wantStatus := [][]string{{"ok", "ok"}, {CellSkipped, "ok"}, {CellSkipped, CellFailed}}
	for i := range wantStatus {
		for j := range wantStatus[i] {
			if m.Status[i][j] != wantStatus[i][j] {
				t.Fatalf("status[%d][%d] = %s, want %s", i, j, m.Status[i][j], wantStatus[i][j])
			}
		}
	}
	if v := m.Values[1][1]; !v.OK || v.V != 400 {
		t.Fatalf("t2c4 = %+v", v)
	}

	other := hotrowBundle("sqlite", map[string]float64{"t1c1": 50, "t1c4": 400}) // t2c4 and t4c4 not run
	var sb strings.Builder
	if err := HotrowReport(&sb, []*results.Bundle{base, other}); err != nil {
		t.Fatal(err)
	}
	// Column widths depend on the values; compare with spaces squeezed.
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	out := squeeze(sb.String())
	for _, want := range []string{
		"## pebble: updates/s (committed), rows = tables, columns = concurrency",
		"| 1                |   100 |     200 |",
		"| 2                |     — |     400 |",
		"| 4                |     — |  failed |",
		"## sqlite relative to pebble",
		"| 1                | 0.50 |    2.00 |",
		"| 2                |    — | not run |",
		"t4c4 failed: boom",
	} {
		if !strings.Contains(out, squeeze(want)) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestHotrowUpdateCaveat: an engine whose row updates rumbench isolates
// (pebble) gets a caveat line above its cells; the others do not.
func TestHotrowUpdateCaveat(t *testing.T) {
	base := hotrowBundle("pebble", map[string]float64{"t1c1": 100})
	base.Run.Engine.UpdateCaveat = "Pebble has no transactions: rumbench's lock table"
	other := hotrowBundle("rocksdb", map[string]float64{"t1c1": 50})
	var sb strings.Builder
	if err := HotrowReport(&sb, []*results.Bundle{base, other}); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	if strings.Count(out, "CAVEAT: ") != 1 || !strings.Contains(out, "CAVEAT: Pebble has no transactions: rumbench's lock table") {
		t.Fatalf("want one caveat line, pebble's:\n%s", out)
	}
	if strings.Index(out, "CAVEAT") > strings.Index(out, "\nrocksdb (") {
		t.Fatalf("the caveat is not in pebble's section:\n%s", out)
	}
}

// TestHotrowReportByLabel: two variants of one engine are told apart by
// their labels in every section, the matrix relative to the first
// included.
func TestHotrowReportByLabel(t *testing.T) {
	on := hotrowBundle("innodb", map[string]float64{"t1c1": 100})
	off := hotrowBundle("innodb", map[string]float64{"t1c1": 50})
	on.Run.Label, off.Run.Label = "detect-on", "detect-off"
	var sb strings.Builder
	if err := HotrowReport(&sb, []*results.Bundle{on, off}); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"\ndetect-on = innodb (", "## detect-off: hot-row cells", "## detect-on: updates/s",
		"## detect-off relative to detect-on: updates/s ratio"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
