package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rumbench/internal/runner"
)

// A CI-size sweep: 2 engines × 2 index counts × 1 row size, its matrices,
// the report of its directory, and a rerun that resumes (finds all done).
func TestSweepSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	args := []string{"sweep", "--engine", "pebble,sqlite", "--indexes", "0,3", "--pad-sizes", "100", "--rows", "3000",
		"--interval", "200ms", "--out", out}
	var so, se bytes.Buffer
	if code := runWith(args, &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so.String(), se.String())
	}
	for _, want := range []string{"run 4/4 x3-pad100-c1 sqlite done", "## insert rate by secondary indexes: ipsAvg-ipsP-disk(GB)-live(GB)-PSS(GB), l.i0x, pad 100 B, 1 client(s)",
		"| engine | 0 idx | 3 idx |", "## relative to 0 indexes"} {
		if !strings.Contains(strings.Join(strings.Fields(so.String()), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("sweep output lacks %q:\n%s", want, so.String())
		}
	}
	so.Reset()
	if code := runWith([]string{"report", out}, &so, &se); code != 0 || !strings.Contains(so.String(), "| pebble |") {
		t.Errorf("report of the sweep: exit %d\n%s", code, so.String())
	}
	// Against itself every ratio is 1; --html opens with the summary chart.
	so.Reset()
	html := filepath.Join(t.TempDir(), "sweep.html")
	if code := runWith([]string{"report", out, "--compare-to", out, "--html", html}, &so, &se); code != 0 ||
		!strings.Contains(so.String(), "relative to "+out) || !strings.Contains(so.String(), "| pebble | 1.00-1.00-") {
		t.Errorf("report --compare-to: exit %d\n%s", code, so.String())
	}
	if raw, err := os.ReadFile(html); err != nil || !strings.Contains(string(raw), `<section id="summary">`) {
		t.Errorf("sweep HTML: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("the sweep wrote no report.html: %v", err)
	}
	se.Reset()
	if code := runWith([]string{"report", out, "--compare-to", t.TempDir()}, &so, &se); code != exitBadInput || !strings.Contains(se.String(), "is not a sweep directory") {
		t.Errorf("--compare-to a non-sweep: exit %d (%s)", code, se.String())
	}
	so.Reset()
	if code := runWith(args, &so, &se); code != 0 || !strings.Contains(so.String(), "4 of 4 runs already finished") {
		t.Errorf("rerun: exit %d\n%s", code, so.String())
	}
	se.Reset()
	if code := runWith([]string{"sweep", "--engine", "pebble", "--indexes", "5", "--out", out}, &so, &se); code != exitBadInput {
		t.Errorf("--indexes 5: exit %d (%s)", code, se.String())
	}
}

// A plain --engine-opt that only some of the sweep's engines know goes to
// those engines only.
func TestSweepEngineOptsPerEngine(t *testing.T) {
	got := runner.OptionsFor("sqlite", map[string]string{"cache_size": "8MB", "drop_database": "true", "pebble.sync": "true", "sqlite.synchronous": "full"})
	if len(got) != 2 || got["cache_size"] != "8MB" || got["synchronous"] != "full" {
		t.Errorf("sqlite gets %v", got)
	}
}

// sweep --vary of 2 × 2 settings on pebble: 4 labelled variants, each a
// bundle under its label that records it, one row each in the matrices;
// report and collect of the directory read them back by label.
func TestSweepVary(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	args := []string{"sweep", "--engine", "pebble", "--vary", "pebble.compression=none,zstd", "--vary", "sync=false,true",
		"--indexes", "0,1", "--rows", "1000", "--interval", "200ms", "--out", out}
	var so, se bytes.Buffer
	if code := runWith(args, &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so.String(), se.String())
	}
	labels := []string{"pebble-compression-none-sync-false", "pebble-compression-none-sync-true", "pebble-compression-zstd-sync-false", "pebble-compression-zstd-sync-true"}
	for _, l := range labels {
		// Four matrices (ipsAvg..., relative, r/i, wKB/i): one row each.
		if n := strings.Count(so.String(), "| "+l+" "); n != 4 {
			t.Errorf("%s has %d rows in the matrices, want 4:\n%s", l, n, so.String())
		}
		raw, err := os.ReadFile(filepath.Join(out, "x1-pad20-c1", l, "run.json"))
		if err != nil || !strings.Contains(string(raw), `"label": "`+l+`"`) {
			t.Errorf("bundle of %s: %v", l, err)
		}
	}
	if !strings.Contains(so.String(), "2 cells × 4 engines") {
		t.Errorf("the sweep's first line does not count 4 variants:\n%s", so.String())
	}
	// Rows are variants: the matrices' first column says so.
	if strings.Count(so.String(), "| variant ") != 4 || strings.Contains(so.String(), "| engine ") {
		t.Errorf("the matrices' first column is not headed variant:\n%s", so.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "x0-pad20-c1", labels[2], "run.json"))
	if err != nil || !strings.Contains(string(raw), `"compression": "zstd"`) || !strings.Contains(string(raw), `"sync": "false"`) {
		t.Errorf("the zstd variant's run.json lacks its settings read back: %v", err)
	}
	so.Reset()
	if code := runWith([]string{"sweep", "collect", out}, &so, &se); code != 0 || !strings.Contains(so.String(), "| "+labels[3]+" ") {
		t.Errorf("collect: exit %d\n%s", code, so.String())
	}
	for _, bad := range [][]string{
		{"--vary", "pebble.block=1,2"},
		{"--vary", "pebble.compression"},
		{"--engine", "pebble,pebble"},
	} {
		se.Reset()
		a := append([]string{"sweep", "--engine", "pebble", "--out", t.TempDir()}, bad...)
		if code := runWith(a, &so, &se); code != exitBadInput || strings.Count(strings.TrimSpace(se.String()), "\n") != 0 {
			t.Errorf("%v: exit %d, want one line and %d:\n%s", bad, code, exitBadInput, se.String())
		}
	}
}
