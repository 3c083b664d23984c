package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixture is two engines of one run (pebble with metrics and stalls in its
// step summaries, sqlite without, with an incomplete and a missing step)
// plus a pebble run of a smaller workload.
func fixture(t *testing.T, base int) *Report {
	t.Helper()
	bs, err := Load([]string{"testdata/run1", "testdata/pebble-small"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(bs, Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./internal/report -update to accept):\n%s", name, got)
	}
}

func TestGoldenMarkdown(t *testing.T) {
	var b bytes.Buffer
	rep := fixture(t, 0)
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	// What `rumbench report` prints: the tables, then the verdict.
	b.WriteString("\n")
	if err := rep.WriteVerdict(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", b.Bytes())
	out := b.String()
	for _, want := range []string{
		"| #2 sqlite rows=1000 | incomplete |",                      // incomplete step shown as such
		"| #2 sqlite rows=1000 | not run |",                         // missing step shown as such
		"WARNING: #3 pebble rows=500 ran a different workload size", // flagged
		"203 (incomplete)", "not run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestGoldenCSV(t *testing.T) {
	var b bytes.Buffer
	if err := fixture(t, 2).CSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.csv", b.Bytes())
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, rec := range recs[1:] {
		// sqlite's bundle has no metrics: they must be empty, never 0.
		if rec[col["engine"]] == "sqlite" && rec[col["cpu_us_per_op"]] != "" {
			t.Errorf("sqlite %s cpu_us_per_op = %q, want empty", rec[col["step"]], rec[col["cpu_us_per_op"]])
		}
		if rec[col["status"]] == StatusNotRun && rec[col["ips_avg"]] != "" {
			t.Errorf("step not run has ips_avg %q", rec[col["ips_avg"]])
		}
		if rec[col["base"]] != "2" {
			t.Errorf("base = %s, want 2", rec[col["base"]])
		}
	}
}

func TestJSONNulls(t *testing.T) {
	var b bytes.Buffer
	if err := fixture(t, 0).JSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steps []struct {
			Step string `json:"step"`
			Rows []struct {
				Label  string              `json:"label"`
				Status string              `json:"status"`
				Values map[string]*float64 `json:"values"`
			} `json:"rows"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Steps {
		for _, r := range s.Rows {
			if strings.HasPrefix(r.Label, "sqlite") && r.Values["wkb_per_op"] != nil {
				t.Errorf("%s %s: wkb_per_op = %v, want null", s.Step, r.Label, *r.Values["wkb_per_op"])
			}
			if s.Step == "l.i0" && strings.HasPrefix(r.Label, "pebble rows=1000") {
				if v := r.Values["cpu_us_per_op"]; v == nil || *v != 12.5 {
					t.Errorf("pebble l.i0 cpu_us_per_op = %v, want 12.5", v)
				}
			}
		}
	}
}

func TestStallsFromIntervals(t *testing.T) {
	rep := fixture(t, 0)
	for _, sr := range rep.Steps {
		if sr.Name != "l.i1" {
			continue
		}
		// pebble's summary carries stalls; sqlite's are computed from its log.
		if st := sr.Rows[0].Stalls["insert"]; st == nil || st.Source != "step" || st.Count != 1 {
			t.Errorf("pebble l.i1 stalls = %+v, want 1 from the step summary", st)
		}
		if st := sr.Rows[1].Stalls["insert"]; st == nil || st.Source != "intervals" || st.Count != 1 || st.LongestS != 1 {
			t.Errorf("sqlite l.i1 stalls = %+v, want 1 interval computed from the log", st)
		}
	}
}

func TestBadInput(t *testing.T) {
	empty := t.TempDir()
	badSchema := t.TempDir()
	if err := os.WriteFile(filepath.Join(badSchema, "run.json"), []byte(`{"schema_version": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"missing", []string{filepath.Join(empty, "nope")}, "no such directory"},
		{"no bundle", []string{empty}, "holds no run bundle"},
		{"schema", []string{badSchema}, "schema_version 99"},
		{"none", nil, "no directory given"},
	} {
		_, err := Load(c.paths)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []int{-1, 3} {
		if _, err := Build(bs, Options{Base: base}); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("--base %d: error %v, want out of range", base, err)
		}
	}
}

func TestHTMLCharts(t *testing.T) {
	var b bytes.Buffer
	n, err := fixture(t, 0).HTML(&b)
	if err != nil {
		t.Fatal(err)
	}
	// The summary charts (headline rates and costs per operation relative
	// to the base), then per step: l.i0 insert+latency, l.i1
	// insert+delete+latency, qr100 and qp100 insert+delete+query+latency.
	// l.x has one interval per run: fewer than 3 points, so no chart (its
	// table row says it).
	if want := 2 + 2 + 3 + 4 + 4; n != want {
		t.Errorf("charts = %d, want %d", n, want)
	}
	html := b.String()
	sum, runs, steps := strings.Index(html, `<section id="summary">`), strings.Index(html, `<h2 id="runs">Runs</h2>`), strings.Index(html, `<section id="step-0">`)
	if sum < 0 || !(sum < runs && runs < steps) {
		t.Errorf("summary at %d, runs at %d, steps at %d: want the summary first", sum, runs, steps)
	}
	lead := html[sum:runs]
	for _, want := range []string{"headline rate of each step relative to base", "efficiency per operation relative to base",
		"throughput summary", "<h3>stalls"} {
		if !strings.Contains(lead, want) {
			t.Errorf("summary section lacks %q", want)
		}
	}
	// 16 charts: a table of contents before the summary, a link per step.
	if toc := strings.Index(html, `<nav class="toc">`); toc < 0 || toc > sum || !strings.Contains(html, `<a href="#step-4">qp100 (4 charts)</a>`) {
		t.Errorf("no table of contents before the summary (at %d) linking the steps", toc)
	}
	if got := strings.Count(b.String(), "<svg"); got != n {
		t.Errorf("<svg> elements = %d, want %d", got, n)
	}
	for _, bad := range []string{"<script", "<link", "@import", "src=\"http", "href=\"http", "url("} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("HTML report contains %q: it must be self-contained", bad)
		}
	}
}

// TestEngineRetries: a step's engine retries (details.engine_retries, as
// read back from JSON) are noted under its table and in the run summary;
// steps without retries get no note.
func TestEngineRetries(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	s := bs[0].Steps["l.i1"]
	if s == nil {
		t.Fatal("fixture lacks l.i1")
	}
	s.Details = map[string]any{"engine_retries": float64(12)}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var md, sum bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	StepSummary(&sum, bs[0].Bundle)
	for name, out := range map[string]string{"report": md.String(), "summary": sum.String()} {
		if n := strings.Count(out, "writes rolled back by the engine"); n != 1 {
			t.Errorf("%s notes engine retries %d times, want once (l.i1):\n%s", name, n, out)
		}
		if !strings.Contains(out, "12 writes rolled back") {
			t.Errorf("%s lacks the count 12", name)
		}
	}
}

// TestWritersSLA: a query step's writers' SLA shows in the run's summary
// table (ok or MISSED with the share of the target reached) and as SLA✗ in
// the throughput summary of the report, for the run that missed it only.
func TestWritersSLA(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	var pebble, sqlite *results.Bundle
	for _, b := range bs {
		switch b.Run.Engine.Name {
		case "pebble":
			pebble = b.Bundle
		case "sqlite":
			sqlite = b.Bundle
		}
	}
	// run1's steps recorded no share of the target (read back from the
	// version 1 fields): give them one.
	share := func(b *results.Bundle, step string, pct float64) {
		if ts := b.Steps[step].Targets; len(ts) != 1 || ts[0].Op != "insert" || ts[0].PctOf != nil {
			t.Fatalf("%s %s: targets %+v, want the writers' as recorded", b.Run.Engine.Name, step, ts)
		}
		b.Steps[step].Targets[0].PctOf = &pct
	}
	share(sqlite, "qr100", 78.4)
	share(pebble, "qp100", 99.5)
	var ps, ss bytes.Buffer
	StepSummary(&ps, pebble)
	StepSummary(&ss, sqlite)
	if !strings.Contains(ps.String(), "writers' SLA") || !strings.Contains(ps.String(), "ok 99.5%") || strings.Count(ps.String(), "MISSED") != 1 {
		t.Errorf("pebble's summary:\n%s", ps.String())
	}
	if !strings.Contains(ss.String(), "MISSED 78.4%") {
		t.Errorf("sqlite's summary lacks its missed SLA:\n%s", ss.String())
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tt := rep.ThroughputTable()
	n := 0
	for _, row := range tt.Rows {
		for _, c := range row {
			if strings.HasSuffix(c, "SLA✗") {
				n++
				if !strings.HasPrefix(row[0], "#2 sqlite") {
					t.Errorf("SLA✗ on %s", row[0])
				}
			}
		}
	}
	if n != 1 {
		t.Errorf("%d cells marked SLA✗, want 1 (sqlite's qr100): %v", n, tt.Rows)
	}
}

// TestPacedQueriesTarget: a step that paced two operations (the writers,
// and the queries under --query-rate) shows each verdict by its operation:
// a column per kind in the run's summary, ! on the missed operation's rate
// and the shortfall under the step's table, SLA✗ with the queries' note in
// the throughput summary, and both targets in the JSON.
func TestPacedQueriesTarget(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	var pebble *results.Bundle
	for _, b := range bs {
		if b.Run.Engine.Name == "pebble" {
			pebble = b.Bundle
		}
	}
	s := pebble.Steps["qp100"]
	qps := *s.Ops["query"].RateAvg
	pct := 0.1
	s.Targets = append(s.Targets, results.Target{Op: "query", Who: "queries", Unit: measure.UnitOps, Rate: qps * 1000, Achieved: qps, PctOf: &pct, MetAtPct: 95})

	var ps bytes.Buffer
	StepSummary(&ps, pebble)
	if !strings.Contains(ps.String(), "queries' SLA") || !strings.Contains(ps.String(), "MISSED 0.1%") ||
		!strings.Contains(ps.String(), "queries' SLA: the paced operation's rate in % of its target; ok at 95% or more, else MISSED.") {
		t.Errorf("pebble's summary lacks the queries' verdict:\n%s", ps.String())
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sr *StepReport
	for _, x := range rep.Steps {
		if x.Name == "qp100" {
			sr = x
		}
	}
	abs := rep.StepTables(sr)[0]
	qcol := slices.Index(abs.Headers, "QPS.av(q/s)")
	icol := slices.Index(abs.Headers, "IPS.av(rows/s)")
	if qcol < 0 || icol < 0 || !strings.HasSuffix(abs.Rows[0][qcol], "!") || strings.HasSuffix(abs.Rows[0][icol], "!") {
		t.Errorf("qp100 row %q: want ! on the queries' rate only", abs.Rows[0])
	}
	want := fmt.Sprintf("! #1 pebble missed its query rate target of %s q/s: %s q/s (-99.9%%)", figure.Must(figure.RateAvg).Format(qps*1000), figure.Must(figure.RateAvg).Format(qps))
	if !slices.Contains(abs.Notes, want) {
		t.Errorf("qp100 notes %q lack %q", abs.Notes, want)
	}
	tt := rep.ThroughputTable()
	if !strings.HasSuffix(tt.Rows[0][len(tt.Rows[0])-1], "SLA✗") {
		t.Errorf("pebble's qp100 cell %q: want SLA✗", tt.Rows[0])
	}
	queries := "SLA✗: the step's paced queries reached less than 95% of their target rate (queries' SLA; the step's table says by how much)."
	if !slices.Contains(tt.Notes, queries) || !strings.Contains(strings.Join(tt.Notes, " "), "the query step's paced writers inserted less than 95%") {
		t.Errorf("throughput notes %q: want the writers' (sqlite's qr100) and the queries'", tt.Notes)
	}
	var js bytes.Buffer
	if err := rep.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steps []struct {
			Step string
			Rows []struct {
				IPSTarget *float64 `json:"ips_target"`
				Targets   []struct {
					Op, Who, Unit string
					Rate          float64
					Met           bool
				}
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, st := range doc.Steps {
		if st.Step != "qp100" {
			continue
		}
		r := st.Rows[0]
		if r.IPSTarget == nil || *r.IPSTarget != 200 || len(r.Targets) != 2 || r.Targets[0].Op != "insert" || !r.Targets[0].Met ||
			r.Targets[1].Op != "query" || r.Targets[1].Unit != "queries/s" || r.Targets[1].Rate != qps*1000 || r.Targets[1].Met {
			t.Errorf("qp100 JSON row: ips_target %v, targets %+v", r.IPSTarget, r.Targets)
		}
	}
}
