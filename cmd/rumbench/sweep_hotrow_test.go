package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `rumbench sweep hotrow` through the workload's Sweeper: every cell of
// tables × clients is a pebble run of its own (t2-c1 skipped: fewer clients
// than tables), its matrices print per variant, the run.json of a cell is
// the hot-row run of that cell, and a rerun resumes.
func TestSweepHotrow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	args := []string{"sweep", "hotrow", "--engine", "pebble", "--tables", "1,2", "--clients", "1,2", "--rows", "500",
		"--cell-seconds", "0.3", "--interval", "100ms", "--out", out}
	var so, se bytes.Buffer
	if code := runWith(args, &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so.String(), se.String())
	}
	got := strings.Join(strings.Fields(so.String()), " ")
	for _, want := range []string{"rumbench sweep: 3 cells × 1 engines, workload hotrow", "run 1/3 t1-c1 pebble done", "run 3/3 t2-c2 pebble done",
		"## updates/s by tables × clients, engine pebble", "| tables \\ clients | 1 | 2 |", "## CPU µs per update by tables × clients"} {
		if !strings.Contains(got, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("sweep output lacks %q:\n%s", want, so.String())
		}
	}
	// Every cell ran and shows a figure; the skipped one says so.
	for _, line := range strings.Split(so.String(), "\n") {
		if strings.HasPrefix(line, "| 2 ") && !strings.Contains(line, "skipped") {
			t.Errorf("the t2-c1 cell is not shown skipped: %q", line)
		}
		if strings.HasPrefix(line, "| 1 ") && (strings.Contains(line, "not run") || strings.Contains(line, "n/a")) {
			t.Errorf("a cell of 1 table has no figure: %q", line)
		}
	}
	// report.html leads with the matrices' summary chart.
	if html, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(html), "updates/s by clients, engine pebble") {
		t.Errorf("report.html lacks the summary chart (%v)", err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "t2-c2", "pebble", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Config struct {
			Workload  string         `json:"workload"`
			SweepCell string         `json:"sweep_cell"`
			Hotrow    map[string]any `json:"hotrow"`
		} `json:"config"`
		Complete bool `json:"complete"`
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	if c := run.Config; !run.Complete || c.Workload != "hotrow" || c.SweepCell != "t2-c2" || c.Hotrow["rows"] != 500.0 ||
		len(c.Hotrow["tables"].([]any)) != 1 || c.Hotrow["concurrency"].([]any)[0] != 2.0 {
		t.Errorf("cell t2-c2's run.json: %s", raw)
	}
	so.Reset()
	if code := runWith(args, &so, &se); code != 0 || !strings.Contains(so.String(), "3 of 3 runs already finished") {
		t.Errorf("rerun: exit %d\n%s", code, so.String())
	}
	so.Reset()
	if code := runWith([]string{"sweep", "collect", out}, &so, &se); code != 0 || !strings.Contains(so.String(), "3 of 3 cells finished") {
		t.Errorf("collect: exit %d\n%s", code, so.String())
	}
}

// `rumbench sweep linkbench`: requesters × nodes, each cell a run of its
// own, and its requests/s matrix.
func TestSweepLinkbench(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	args := []string{"sweep", "linkbench", "--engine", "pebble", "--requesters", "1,2", "--nodes", "200", "--request-seconds", "0.3",
		"--interval", "100ms", "--out", out}
	var so, se bytes.Buffer
	if code := runWith(args, &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so.String(), se.String())
	}
	got := strings.Join(strings.Fields(so.String()), " ")
	for _, want := range []string{"run 2/2 r2-n200 pebble done", "## requests/s by nodes × requesters, engine pebble", "| nodes \\ requesters | 1 | 2 |"} {
		if !strings.Contains(got, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("sweep output lacks %q:\n%s", want, so.String())
		}
	}
	if strings.Contains(got, "| 200 | not run") || strings.Contains(got, "| 200 | n/a") {
		t.Errorf("a cell has no figure:\n%s", so.String())
	}
}

// A workload without a Sweeper is refused with one line; so are axes the
// workload cannot run.
func TestSweepRefusesUnsweepable(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		// ping: the toy workload of toy_workload_test.go, without a Sweeper.
		{[]string{"sweep", "ping", "--engine", "pebble", "--out", "x"}, "workload ping cannot be swept"},
		{[]string{"sweep", "hotrow", "--tables", "0", "--out", "x"}, "--tables values must be at least 1, got 0"},
		{[]string{"sweep", "hotrow", "--tables", "4", "--clients", "1,2", "--out", "x"}, "no cell to run"},
	} {
		var so, se bytes.Buffer
		code := runWith(tc.args, &so, &se)
		if msg := strings.TrimSpace(se.String()); code != exitBadInput || !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") != 0 {
			t.Errorf("%v: exit %d, want %d and one line with %q: %q", tc.args, code, exitBadInput, tc.want, msg)
		}
	}
}
