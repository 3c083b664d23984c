package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run into an --out that holds a report of earlier runs refuses to
// replace it (exit 2, one line, nothing written), unless --replace-report.
func TestOutReportNotReplaced(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "o")
	html := filepath.Join(out, "report.html")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(html, []byte("earlier report"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--engine", "null", "--rows", "1000", "--steps", "l.i0", "--quiet", "--out", out}
	wantExactBadInput(t, "rumbench: --out "+out+" already holds a report (report.html) of earlier runs, which this run would replace: give a new --out, or --replace-report to write over it", args...)
	if b, _ := os.ReadFile(html); string(b) != "earlier report" {
		t.Fatalf("the refused run changed report.html: %q", b)
	}
	if _, err := os.Stat(filepath.Join(out, "null")); !os.IsNotExist(err) {
		t.Fatalf("the refused run wrote a bundle (%v)", err)
	}
	if _, stderr, code := rb(t, append(args, "--replace-report")...); code != 0 {
		t.Fatalf("--replace-report: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(html); string(b) == "earlier report" {
		t.Fatal("--replace-report did not write the run's report")
	}
}

// report refuses to compare runs of different workload sizes unless
// --allow-mixed, which then compares them with the warning.
func TestReportRefusesMixedSizes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, r := range []struct{ out, rows string }{{a, "1000"}, {b, "2000"}} {
		if _, stderr, code := rb(t, "run", "--engine", "null", "--rows", r.rows, "--steps", "l.i0", "--quiet", "--out", r.out); code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
	}
	wantExactBadInput(t, "rumbench: #2 null rows=2000 ‡ ran a different workload size than the base #1 (rows 2000 (base 1000)): its ratios would compare different work; report such runs apart, or give --allow-mixed to compare them anyway", "report", a, b)
	stdout, stderr, code := rb(t, "report", "--allow-mixed", a, b)
	if code != 0 || !strings.Contains(stdout, "ran a different workload size than the base") {
		t.Fatalf("report --allow-mixed: exit %d, want the report with its warning:\n%s%s", code, stdout, stderr)
	}
}
