package report

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/stats"
)

// copyRun copies testdata/run1's engine bundles into dst/<engine>.
func copyRun(t *testing.T, dst string, engines ...string) {
	t.Helper()
	for _, e := range engines {
		if err := os.CopyFS(filepath.Join(dst, e), os.DirFS(filepath.Join("testdata", "run1", e))); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadFindsNestedBundles: a directory holding runs' --out directories
// two levels down is read, every bundle once; a symbolic link to a run is
// not followed (it could loop or leave the tree) and a bundle's own
// subdirectories are not searched.
func TestLoadFindsNestedBundles(t *testing.T) {
	top := t.TempDir()
	copyRun(t, filepath.Join(top, "2026", "run-a"), "pebble", "sqlite")
	elsewhere := t.TempDir()
	copyRun(t, filepath.Join(elsewhere, "run-b"), "pebble")
	if err := os.Symlink(filepath.Join(elsewhere, "run-b"), filepath.Join(top, "2026", "link")); err != nil {
		t.Fatal(err)
	}
	// A bundle inside a bundle's directory is not another run.
	copyRun(t, filepath.Join(top, "2026", "run-a", "pebble", "steps", "nested"), "sqlite")
	bs, err := Load([]string{top})
	if err != nil {
		t.Fatalf("Load(%s): %v", top, err)
	}
	var got []string
	for _, b := range bs {
		rel, _ := filepath.Rel(top, b.Dir)
		got = append(got, rel)
	}
	want := []string{"2026/run-a/pebble", "2026/run-a/sqlite"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("bundles %v, want %v (in the order they ran, no symlinked or nested ones)", got, want)
	}
	// A link named on the command line is entered: the user chose it.
	if bs, err := Load([]string{filepath.Join(top, "2026", "link")}); err != nil || len(bs) != 1 {
		t.Errorf("Load(link): %d bundles, %v; want the linked run's one", len(bs), err)
	}
	_, err = Load([]string{t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "in any directory below it") {
		t.Errorf("empty dir: error %v, want one saying every depth was searched", err)
	}
}

// TestNotRunStepsAndEngines: an interrupted run whose first engine stopped
// before its query steps, and whose second engine never started. The steps
// no run reached say "not run" (no "(write step)" guess, no headers made
// of empty operation names) and the engine that never started is listed,
// in the summary and in the verdict.
func TestNotRunStepsAndEngines(t *testing.T) {
	out := t.TempDir()
	copyRun(t, out, "pebble")
	dir := filepath.Join(out, "pebble")
	for _, s := range []string{"qr100", "qp100"} {
		if err := os.Remove(filepath.Join(dir, "steps", s+".json")); err != nil {
			t.Fatal(err)
		}
	}
	// The run was asked for pebble and sqlite (--engine pebble,sqlite).
	raw, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	run["config"].(map[string]any)["engines"] = []string{"pebble", "sqlite"}
	run["complete"] = false
	if raw, err = json.Marshal(run); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	bs, err := Load([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteVerdict(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"qr100 (write step)", "/s.av(/s)", "qp100 (write step)"} {
		if strings.Contains(md, bad) {
			t.Errorf("report shows %q for a step no run reached:\n%s", bad, md)
		}
	}
	for _, want := range []string{
		"## qr100 (not run)", "## qp100 (not run)", "qr100(not run)",
		"NOT RUN: engine sqlite of the run in " + out + " never started",
		"| — sqlite (never started) |",
		"sqlite never started (not run)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	for _, l := range rep.Verdict() {
		if strings.HasPrefix(strings.TrimSpace(l), "qr100") && !strings.HasSuffix(l, "not run") {
			t.Errorf("verdict line %q: want not run", l)
		}
	}
}

// TestVerdict: per step the leader and by how much, "~" where repetitions
// show no significant difference, and a plain statement when every figure
// is one run.
func TestVerdict(t *testing.T) {
	rep := fixture(t, 0)
	v := strings.Join(rep.Verdict(), "\n")
	for _, want := range []string{
		"one run each, so no test of significance",
		"l.i0   pebble rows=500 ran 1.11× faster than pebble rows=1000, 2.22× faster than sqlite rows=1000 (1111 vs 1000 rows/s)",
		"qp100  pebble rows=1000 590 q/s (the only run that ran it)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v)
		}
	}
	// Repeated: two runs of 4 repetitions each whose rates overlap.
	row := func(rates ...float64) *Row {
		st := stats.New(rates)
		return &Row{Run: &Run{Label: "x"}, Status: StatusOK, Values: map[string]Value{"rate_avg": figure.Known(st.Median)},
			Stats: map[string]*stats.Stat{"rate_avg": st}}
	}
	a, b := row(100, 104, 98, 101), row(99, 103, 102, 97)
	a.Run.Label, b.Run.Label = "a", "b"
	r := &Report{Runs: []*Run{a.Run, b.Run}, Steps: []*StepReport{{Name: "s", Ran: true, Rows: []*Row{a, b}}}}
	line := r.stepVerdict(r.Steps[0])
	if !strings.HasPrefix(line, "a ran ~1.") || !strings.Contains(line, "faster than b") {
		t.Errorf("overlapping repetitions: verdict %q, want a ran ~1.0x× faster than b", line)
	}
	c := row(200, 210, 205, 199)
	c.Run.Label = "c"
	r.Steps[0].Rows = []*Row{a, c}
	if line := r.stepVerdict(r.Steps[0]); !strings.HasPrefix(line, "c ran 2.01× faster than a") {
		t.Errorf("separated repetitions: verdict %q, want c ran 2.01× faster than a (significant: no ~)", line)
	}
}

// TestPacedWriterWindows: a background writer that writes one batch every
// 0.5 s, logged at 0.1 s intervals, is charted over windows holding whole
// batches: its rate no longer swings between 0 and 5× its target.
func TestPacedWriterWindows(t *testing.T) {
	var pts []IntervalPoint
	for i := 0; i < 20; i++ {
		p := IntervalPoint{T: float64(i+1) / 10, Seconds: 0.1}
		if i%5 == 4 {
			p.Rate, p.Present = 500, true // a batch of 50 rows in 0.1 s
		}
		pts = append(pts, p)
	}
	got := groupPoints(pts, 5)
	if len(got) != 4 {
		t.Fatalf("windows %d, want 4", len(got))
	}
	for _, p := range got {
		if p.Rate < 99.9 || p.Rate > 100.1 {
			t.Errorf("window ending %.1fs: rate %.1f, want 100 (the target)", p.T, p.Rate)
		}
	}
	if !logRates([]float64{10, 200}) || logRates([]float64{10, 90}) {
		t.Error("logRates: want a log axis past 10× only")
	}
}

// TestRateChartLogAxis: when one run's interval rates are 50× another's,
// the step's rate chart is drawn on a log axis (a linear one would press
// the slower run against zero); charts of closer runs stay linear.
func TestRateChartLogAxis(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	for i, iv := range bs[1].Intervals {
		if iv.Step != "l.i0" {
			continue
		}
		for op, o := range iv.Ops {
			o.Rows /= 50
			bs[1].Intervals[i].Ops[op] = o
		}
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Steps {
		if sr.Name != "l.i0" && sr.Name != "l.i1" {
			continue
		}
		cs, err := rep.stepCharts(sr)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) == 0 {
			t.Fatalf("%s: no chart", sr.Name)
		}
		logged := strings.Contains(cs[0].Title, "log scale")
		if want := sr.Name == "l.i0"; logged != want || !strings.Contains(cs[0].SVG, "<svg") {
			t.Errorf("%s: chart %q: log axis %v, want %v", sr.Name, cs[0].Title, logged, want)
		}
	}
}

// TestGoldenHTMLOutline: the HTML page's layout, as the outline of its
// headings, warnings, table of contents and charts in page order, is the
// golden one (go test ./internal/report -update to accept a change): the
// busy-host warning beside the title, the contents, the summary leading
// with the relative charts and tables, then the runs and each step.
func TestGoldenHTMLOutline(t *testing.T) {
	bs, err := Load([]string{"testdata/run1", "testdata/pebble-small"})
	if err != nil {
		t.Fatal(err)
	}
	f := func(v float64) *float64 { return &v }
	m := bs[1].Steps["l.i0"].Metrics
	if m == nil {
		bs[1].Steps["l.i0"].Metrics = &results.Metrics{}
		m = bs[1].Steps["l.i0"].Metrics
	}
	m.OtherCPUCores, m.StealCores, m.NoiseSpanS = f(0.6), f(0), f(10)
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := rep.HTML(&b); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?s)<h1>(.*?)</h1>|<h2[^>]*>(.*?)</h2>|<h3>(.*?)</h3>|<p class="warnbox">(.*?)</p>|<nav class="toc">(.*?)</nav>|<figure aria-label="(.*?)">`)
	tags := regexp.MustCompile(`<[^>]+>`)
	var outline strings.Builder
	for _, m := range re.FindAllStringSubmatch(b.String(), -1) {
		for i, prefix := range []string{"", "# ", "## ", "### ", "WARNING BOX: ", "CONTENTS: ", "CHART: "} {
			if i > 0 && m[i] != "" {
				outline.WriteString(prefix + html.UnescapeString(tags.ReplaceAllString(m[i], "")) + "\n")
			}
		}
	}
	golden(t, "report-outline.txt", []byte(outline.String()))
}

// TestOneActionVerdict: maint is one timed action (and the engine's wait to
// come to rest) in every run: its verdict gives each run's length instead
// of ranking 1/length as if it were a throughput.
func TestOneActionVerdict(t *testing.T) {
	run := func(label string, secs float64) *Row {
		st := &results.Step{Step: "maint", StepDesc: results.StepDesc{MainOp: "maintain"}, Seconds: secs,
			Ops: map[string]*results.OpSummary{"maintain": {Unit: measure.UnitOps, Count: 1}}}
		b := &Bundle{Bundle: &results.Bundle{Steps: map[string]*results.Step{"maint": st}}}
		return &Row{Run: &Run{Label: label, Bundle: b}, Status: StatusOK, Values: map[string]Value{"rate_avg": figure.Known(1 / secs)}}
	}
	a, b := run("pebble", 4.1), run("sqlite", 1.4)
	r := &Report{Runs: []*Run{a.Run, b.Run}, Steps: []*StepReport{{Name: "maint", Ran: true, Rows: []*Row{a, b},
		Rate: measure.OpSpec{Name: "maintain", Unit: measure.UnitOps}}}}
	if line := r.stepVerdict(r.Steps[0]); !strings.HasPrefix(line, "took pebble 4.10 s, sqlite 1.40 s") || strings.Contains(line, "faster") {
		t.Errorf("maint verdict %q, want each run's length", line)
	}
	// A step of many operations is still ranked by its rate.
	a.Run.Bundle.Steps["maint"].Ops["maintain"].Count = 50
	if line := r.stepVerdict(r.Steps[0]); !strings.Contains(line, "faster than") {
		t.Errorf("a step of 50 operations: verdict %q, want a ranking", line)
	}
}
