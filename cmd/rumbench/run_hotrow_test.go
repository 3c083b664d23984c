package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHotrowBadInput(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	base := []string{"run", "--workload", "hotrow", "--engine", "null", "--out", filepath.Join(out, "r")}
	cases := []struct {
		name  string
		wants []string
		args  []string
	}{
		{"zero tables", []string{"--tables", "between 1 and"}, append(base, "--tables", "0")},
		{"zero concurrency", []string{"--concurrency", "between 1 and"}, append(base, "--concurrency", "0")},
		{"negative zipf", []string{"--distribution", "zipf:-1", "θ must be > 0"}, append(base, "--distribution", "zipf:-1")},
		{"unknown distribution", []string{"unknown --distribution", "pareto"}, append(base, "--distribution", "pareto")},
		{"no cell", []string{"no cell to run"}, append(base, "--tables", "8", "--concurrency", "1,4")},
		{"duplicate tables", []string{"--tables", "twice"}, append(base, "--tables", "2,2")},
		{"bad span", []string{"--clients-span", "some"}, append(base, "--clients-span", "some")},
		{"zero cell seconds", []string{"--cell-seconds"}, append(base, "--cell-seconds", "0")},
		{"hot rows over rows", []string{"--hot-rows", "--rows"}, append(base, "--rows", "10", "--hot-rows", "11")},
		{"hot rows with uniform", []string{"--hot-rows", "distribution hot only"}, append(base, "--distribution", "uniform", "--hot-rows", "3")},
		{"zero rows per tx", []string{"--rows-per-tx", "at least 1"}, append(base, "--rows-per-tx", "0")},
		{"rows per tx over hot rows", []string{"--rows-per-tx (3)", "at most --hot-rows (2)"}, append(base, "--hot-rows", "2", "--rows-per-tx", "3")},
		{"rows per tx with uniform", []string{"--rows-per-tx", "--distribution hot"}, append(base, "--distribution", "uniform", "--rows-per-tx", "2")},
		{"ibench flag on hotrow", []string{"--indexes", "workload ibench only"}, append(base, "--indexes", "1")},
		{"ibench flag on hotrow subcommand", []string{"--indexes", "workload ibench only"}, []string{"run", "hotrow", "--engine", "null", "--indexes", "1"}},
		{"hotrow flag on ibench", []string{"--cell-seconds", "workload hotrow only"}, []string{"run", "--engine", "null", "--out", filepath.Join(out, "r"), "--cell-seconds", "1"}},
		{"hotrow flag on ibench subcommand", []string{"--cell-seconds", "workload hotrow only"}, []string{"run", "ibench", "--engine", "null", "--cell-seconds", "1"}},
		{"unknown workload", []string{"unknown --workload", "hotrow, ibench, linkbench"}, []string{"run", "--workload", "tpcc", "--engine", "null", "--out", out}},
		{"unknown workload subcommand", []string{"unknown workload", "tpcc", "hotrow"}, []string{"run", "tpcc", "--engine", "null", "--out", out}},
		{"contradicting workloads", []string{"contradicts"}, []string{"run", "hotrow", "--workload", "ibench", "--engine", "null", "--out", out}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantBadInput(t, c.wants, c.args...) })
	}
}

// TestHotrowRunPrintsMatrix runs a tiny sweep on two engines and checks the
// matrices, the relative matrix and the bundle.
func TestHotrowRunPrintsMatrix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	stdout, stderr, code := rb(t, "run", "--workload", "hotrow", "--engine", "null,pebble", "--rows", "500",
		"--tables", "1,2", "--concurrency", "1,2", "--cell-seconds", "0.3", "--interval", "100ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, want := range []string{
		"## null: updates/s (committed), rows = tables, columns = concurrency",
		"## pebble: updates/s (committed), rows = tables, columns = concurrency",
		"## pebble relative to null",
		"| tables \\ clients | 1 | 2 |",
		"| 2 | — |",
	} {
		if !strings.Contains(squeeze(stdout), squeeze(want)) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"hotrow.md", "pebble/run.json", "pebble/intervals.jsonl", "pebble/steps/load.json",
		"pebble/steps/t1c1.json", "pebble/steps/t1c2.json", "pebble/steps/t2c2.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("bundle lacks %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "pebble/steps/t2c1.json")); err == nil {
		t.Error("skipped cell t2c1 has a step file")
	}
}

// TestHotrowReportMatchesRun: `rumbench report` of a hot-row run prints
// the matrices the run printed, with the same figures (both the step's
// committed updates / step seconds), the generic tables agree with them,
// and the runs table describes the hot-row sizes (not ibench's churn and
// pad).
func TestHotrowReportMatchesRun(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	runOut, stderr, code := rb(t, "run", "hotrow", "--engine", "pebble,sqlite", "--rows", "300",
		"--tables", "1,2", "--concurrency", "1,2", "--cell-seconds", "0.3", "--interval", "100ms", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, runOut, stderr)
	}
	repOut, stderr, code := rb(t, "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	for _, title := range []string{
		"## pebble: updates/s (committed), rows = tables, columns = concurrency",
		"## sqlite: updates/s (committed), rows = tables, columns = concurrency",
		"## sqlite relative to pebble: updates/s ratio (>1 is faster)",
	} {
		a, b := mdSection(runOut, title), mdSection(repOut, title)
		if a == "" {
			t.Fatalf("run output lacks %q:\n%s", title, runOut)
		}
		if a != b {
			t.Errorf("%s: the report prints\n%s\nthe run printed\n%s", title, b, a)
		}
	}
	// The throughput summary's t1c1 for pebble is the matrix's 1 x 1.
	cells := func(section, first string) []string {
		for _, l := range strings.Split(mdSection(repOut, section), "\n") {
			f := strings.Split(l, "|")
			if len(f) > 2 && strings.TrimSpace(f[1]) == first {
				var out []string
				for _, c := range f[2 : len(f)-1] {
					out = append(out, strings.TrimSpace(c))
				}
				return out
			}
		}
		return nil
	}
	matrix := cells("## pebble: updates/s (committed), rows = tables, columns = concurrency", "1")
	summary := cells("## throughput summary", "#1 pebble")
	if len(matrix) == 0 || len(summary) < 2 || summary[1] != matrix[0] {
		t.Errorf("pebble t1c1: throughput summary %v, matrix %v: want the same figure", summary, matrix)
	}
	if strings.Contains(repOut, "churn —") || !strings.Contains(repOut, "hotrow cell_seconds 0.3, clients_span table") {
		t.Errorf("runs table: want the hot-row sizes:\n%s", mdSection(repOut, "## runs"))
	}
}

// mdSection is the markdown table under the heading line title (its
// heading and rows), or "".
func mdSection(s, title string) string {
	i := strings.Index(s, title)
	if i < 0 {
		return ""
	}
	lines := strings.Split(s[i:], "\n")
	out := []string{lines[0]}
	for _, l := range lines[1:] {
		switch {
		case strings.HasPrefix(l, "|"):
			out = append(out, l)
		case len(out) > 1:
			return strings.Join(out, "\n")
		}
	}
	return strings.Join(out, "\n")
}
