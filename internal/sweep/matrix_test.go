package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rumbench/internal/results"
)

// writeCell writes a minimal complete bundle for one engine of one cell:
// l.i0x with the given insert rates, on-disk size (the live size is half
// of it), PSS, reads and KB written per inserted row.
func writeCell(t *testing.T, dir string, c Cell, engine string, ipsAvg, ipsPct float64, size, pss int64, reads, wkb float64) {
	t.Helper()
	d := filepath.Join(dir, c.Name(), engine)
	if err := os.MkdirAll(filepath.Join(d, results.StepsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	run := map[string]any{"schema_version": results.SchemaVersion, "workload": "ibench", "complete": true, "steps": []string{"l.i0x"},
		"engine": map[string]any{"name": engine}, "sizes": map[string]any{"indexes": cellIndexes(c)}}
	step := map[string]any{"step": "l.i0x", "main_op": "insert", "complete": true, "rate_percentile": 99, "seconds": 10, "interval_s": 1,
		"inserted": int64(ipsAvg * 10), "ips_avg": ipsAvg, "ips_99": ipsPct,
		"ops":               map[string]any{"insert": map[string]any{"unit": "rows", "role": "write", "count": 1, "rows": int64(ipsAvg * 10), "rate_avg": ipsAvg, "rate_pct": ipsPct}},
		"engine_size_bytes": size / 2,
		"metrics":           map[string]any{"disk_bytes": size, "pss_bytes": pss, "per_op": map[string]any{"insert": map[string]any{"reads": reads, "wkb": wkb}}},
	}
	for name, v := range map[string]any{results.RunFile: run, filepath.Join(results.StepsDir, "l.i0x.json"): step} {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Each matrix relative to an earlier sweep: cell by cell this / that, and
// the relative-to-0 figure as the ratio of the two sweeps' ratios.
func TestCompareTables(t *testing.T) {
	spec := ibenchSpec([]string{"pebble", "sqlite"}, []int{0, 3}, []int{20}, []int{1})
	now, before := t.TempDir(), t.TempDir()
	c0, c3 := ibenchCell(0, 20, 1), ibenchCell(3, 20, 1)
	// now: pebble 0 idx 1000/s, 3 idx 600/s; before: 500/s and 200/s.
	writeCell(t, now, c0, "pebble", 1000, 800, 2e9, 1e9, 0.5, 2)
	writeCell(t, now, c3, "pebble", 600, 300, 3e9, 1e9, 1.5, 4)
	writeCell(t, before, c0, "pebble", 500, 400, 1e9, 2e9, 0.25, 4)
	writeCell(t, before, c3, "pebble", 200, 100, 4e9, 1e9, 0.5, 8)
	writeCell(t, now, c0, "sqlite", 100, 80, 1e9, 1e9, 0, 1)
	tables := CompareTables(now, spec, before)
	if len(tables) != 4 {
		t.Fatalf("%d tables, want 4", len(tables))
	}
	abs, rel, rpi, wpi := tables[0], tables[1], tables[2], tables[3]
	row := func(tb [][]string, engine string) []string {
		for _, r := range tb {
			if r[0] == engine {
				return r
			}
		}
		t.Fatalf("no row %s", engine)
		return nil
	}
	// ipsAvg 1000/500, ipsP 800/400, disk 2/1, live 2/1, PSS 1/2.
	if got := row(abs.Rows, "pebble"); got[1] != "2.00-2.00-2.00-2.00-0.50" || got[2] != "3.00-3.00-0.75-0.75-1.00" {
		t.Errorf("absolute ratios %v", got)
	}
	// 3 idx relative to 0: now 0.6, before 0.4 → 1.5.
	if got := row(rel.Rows, "pebble"); got[1] != "1.00" || got[2] != "1.50" {
		t.Errorf("relative ratios %v", got)
	}
	if got := row(rpi.Rows, "pebble"); got[1] != "2.00" || got[2] != "3.00" {
		t.Errorf("r/i ratios %v", got)
	}
	if got := row(wpi.Rows, "pebble"); got[1] != "0.50" || got[2] != "0.50" {
		t.Errorf("wKB/i ratios %v", got)
	}
	// sqlite: the base sweep lacks it; 3 idx did not run now.
	if got := row(abs.Rows, "sqlite"); got[1] != "not in base" || got[2] != "not run" {
		t.Errorf("missing cells %v", got)
	}
}

// The sweep's HTML report opens with the insert-rate-by-indexes chart (one
// line per engine) and the matrices, before the runs and step sections.
func TestSweepHTML(t *testing.T) {
	spec := ibenchSpec([]string{"pebble", "sqlite"}, []int{0, 3}, []int{20}, []int{1})
	dir := t.TempDir()
	for _, e := range spec.Engines {
		writeCell(t, dir, ibenchCell(0, 20, 1), e, 1000, 800, 1e9, 1e9, 0, 1)
		writeCell(t, dir, ibenchCell(3, 20, 1), e, 300, 200, 1e9, 1e9, 1, 2)
	}
	path := filepath.Join(t.TempDir(), "r.html")
	n, err := WriteHTMLFile(path, dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	html := string(raw)
	ov, runs := strings.Index(html, `<section id="summary">`), strings.Index(html, `<h2 id="runs">Runs</h2>`)
	if ov < 0 || runs < ov || n < 1 {
		t.Fatalf("overview at %d, runs at %d, %d charts", ov, runs, n)
	}
	lead := html[ov:runs]
	for _, want := range []string{"<svg", "insert rate by secondary indexes (l.i0x, pad 20 B, 1 client(s))", "pebble", "sqlite", "relative to 0 indexes", "throughput summary", "stalls"} {
		if !strings.Contains(lead, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if strings.Index(html, `<section id="step-0">`) < runs {
		t.Error("step sections do not follow the overview")
	}
}

// The matrices' first column is headed "variant" when a row is a labelled
// variant, in the Markdown (what sweep and collect print), the comparison
// and the HTML report; "engine" when every row is an engine, as before.
func TestMatrixRowHeader(t *testing.T) {
	for _, c := range []struct {
		name     string
		engines  []string
		variants map[string]string
		want     string
	}{
		{"engines", []string{"pebble", "sqlite"}, nil, "engine"},
		{"labelled variants", []string{"none", "zstd"}, map[string]string{"none": "pebble", "zstd": "pebble"}, "variant"},
		{"an engine beside a variant", []string{"pebble", "zstd"}, map[string]string{"pebble": "pebble", "zstd": "pebble"}, "variant"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := ibenchSpec(c.engines, []int{0, 1}, []int{20}, []int{1})
			spec.Variants = c.variants
			dir := t.TempDir()
			for _, e := range spec.Engines {
				writeCell(t, dir, ibenchCell(0, 20, 1), e, 1000, 800, 1e9, 1e9, 0, 1)
				writeCell(t, dir, ibenchCell(1, 20, 1), e, 500, 400, 1e9, 1e9, 1, 2)
			}
			other := map[string]string{"engine": "variant", "variant": "engine"}[c.want]
			var md strings.Builder
			if err := Markdown(&md, dir, spec); err != nil {
				t.Fatal(err)
			}
			if err := CompareMarkdown(&md, dir, spec, dir); err != nil {
				t.Fatal(err)
			}
			// 4 matrices, each twice (this sweep, and against the base).
			if got := strings.Count(md.String(), "\n| "+c.want+" "); got != 8 || strings.Contains(md.String(), "| "+other+" ") {
				t.Errorf("%d matrices headed %q, want 8 and none %q:\n%s", got, c.want, other, md.String())
			}
			if !strings.Contains(md.String(), "same "+c.want+": how much") {
				t.Errorf("the relative matrix's note does not say %q:\n%s", c.want, md.String())
			}
			path := filepath.Join(t.TempDir(), "r.html")
			if _, err := WriteHTMLFile(path, dir, spec); err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(path)
			if got := strings.Count(string(raw), "<thead><tr><th>"+c.want+"</th><th>0 idx</th>"); got != 4 {
				t.Errorf("HTML: %d matrices headed %q, want 4", got, c.want)
			}
		})
	}
}

// The matrices say which memory cgroup limits the runs had.
func TestMemoryLine(t *testing.T) {
	s := &Spec{Engines: []string{"sqlite", "pebble"}, Shared: map[string]any{"memory_limit": int64(64 << 20),
		"preset_memory": map[string]any{"sqlite.memory_limit": int64(29 << 20), "pebble.memory_limit": float64(61 << 20)}}}
	if got := memoryLine(s); got != "Each engine ran in a memory cgroup (page cache included): sqlite 29 MB, pebble 61 MB." {
		t.Errorf("per engine: %q", got)
	}
	delete(s.Shared, "preset_memory")
	if got := memoryLine(s); got != "Each engine ran in a memory cgroup of 64 MB (page cache included)." {
		t.Errorf("one limit: %q", got)
	}
	if got := memoryLine(&Spec{}); got != "" {
		t.Errorf("no limit: %q", got)
	}
}

// A matrix step whose paced writers missed their target (a sweep of query
// steps) is marked SLA✗ in its cell, with a note; one that met it is not.
func TestMatrixMarksMissedSLA(t *testing.T) {
	spec := ibenchSpec([]string{"pebble"}, []int{0, 3}, []int{20}, []int{1})
	dir := t.TempDir()
	c0, c3 := ibenchCell(0, 20, 1), ibenchCell(3, 20, 1)
	writeCell(t, dir, c0, "pebble", 1000, 800, 2e9, 1e9, 0.5, 2)
	writeCell(t, dir, c3, "pebble", 600, 300, 3e9, 1e9, 1.5, 4)
	for c, met := range map[Cell]bool{c0: true, c3: false} {
		p := filepath.Join(dir, c.Name(), "pebble", results.StepsDir, "l.i0x.json")
		var step map[string]any
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &step); err != nil {
			t.Fatal(err)
		}
		step["ips_target"], step["target_met"] = 1000.0, met
		b, _ = json.Marshal(step)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs := Tables(dir, spec)[0]
	row := abs.Rows[0]
	if strings.Contains(row[1], "SLA") || !strings.HasSuffix(row[2], " SLA✗") {
		t.Fatalf("cells %q: want only the 3-index cell marked SLA✗", row)
	}
	if !strings.Contains(strings.Join(abs.Notes, " "), "SLA✗: the step's paced writers") {
		t.Fatalf("no SLA note: %v", abs.Notes)
	}
}

// A repeated sweep's cell shows each figure's median over the repetitions
// that completed the step, and its ratios are marked when too few
// repetitions were run to tell a difference.
func TestTablesMediansOverRepetitions(t *testing.T) {
	spec := ibenchSpec([]string{"pebble"}, []int{0, 3}, []int{20}, []int{1})
	spec.Repeat = 3
	dir := t.TempDir()
	rep := func(c Cell, k int, ips float64, size int64) {
		tmp := t.TempDir()
		writeCell(t, tmp, c, "pebble", ips, ips/2, size, 1e9, 0.5, float64(k))
		to := filepath.Join(dir, c.Name(), results.RepPrefix+strconv.Itoa(k))
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(tmp, c.Name(), "pebble"), filepath.Join(to, "pebble")); err != nil {
			t.Fatal(err)
		}
	}
	c0, c3 := ibenchCell(0, 20, 1), ibenchCell(3, 20, 1)
	for k, ips := range []float64{900, 1300, 1000} {
		rep(c0, k+1, ips, int64(k+1)*1e9)
		rep(c3, k+1, ips/2, 4e9)
	}
	tables := Tables(dir, spec)
	abs, rel, wpi := tables[0], tables[1], tables[3]
	// Medians: rate 1000 (of 900, 1300, 1000), ipsP 500, disk 2 GB, live 1 GB.
	if got := abs.Rows[0][1]; got != "1000-500-2.00-1.00-1.00" {
		t.Errorf("0 idx cell %q, want the medians 1000-500-2.00-1.00-1.00", got)
	}
	if got := abs.Rows[0][2]; got != "500-250-4.00-2.00-1.00" {
		t.Errorf("3 idx cell %q, want 500-250-4.00-2.00-1.00", got)
	}
	// 3 vs 3 repetitions: the U test can never reach significance.
	if got := rel.Rows[0][2]; got != "0.50?" {
		t.Errorf("relative cell %q, want 0.50? (too few repetitions to tell)", got)
	}
	if got := wpi.Rows[0][1]; got != "2.00" {
		t.Errorf("wKB/i %q, want the median of 1, 2, 3", got)
	}
	if !strings.Contains(strings.Join(abs.Notes, " "), "median of the 3 repetitions") {
		t.Errorf("notes %q do not say the figures are medians", abs.Notes)
	}
}
